#!/usr/bin/python3
"""The metadata views: `symbols` against readelf -sW (every line
of both tables), symbol/<name> bytes against the source at the offset
computed from readelf's section and segment tables, objdump of libc's
symbol/memcpy, `build-id` against readelf -n, the `info` metadata lines
against readelf -d and --debug-dump=links, decompressed/<name> against
objcopy --decompress-debug-sections (zlib, zstd, legacy .zdebug), and the
user.elf.ch_* attributes of compressed sections.
"""

import os
import re
import shutil
import subprocess
import tempfile

import elf_oracle as oracle
from elffs_mount import Checker, fixture, fixtures_dir, require_fuse, run_mounted

LIBDIR = "/usr/lib/x86_64-linux-gnu"
LIBS = ["libc.so.6", "libm.so.6", "libstdc++.so.6", "libz.so.1", "libzstd.so.1",
        "libfuse3.so.3", "libgcc_s.so.1", "libpthread.so.0"]
FIXTURES = ["s390x-libc.so.6", "armhf-libc.so.6", "many.o", "exec", "pie", "libshared.so"]
SAMPLE = 200  # symbol files read per binary
FIELD_MAX = 4096  # bytes of a string of the file shown in symbols and info
ENV = dict(os.environ, LC_ALL="C")


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV,
                          check=True, **kw).stdout.decode("utf-8", "surrogateescape")


def readelf_symbols(path):
    """{'symtab': [line...], 'dynsym': [...]} in the mount's line format."""
    tables = {"symtab": [], "dynsym": []}
    cur = None
    for line in run(["readelf", "-sW", path]).splitlines():
        m = re.match(r"^Symbol table '(.*)' contains", line)
        if m:
            cur = tables.get({".symtab": "symtab", ".dynsym": "dynsym"}.get(m.group(1)))
            continue
        m = re.match(r"^\s*(\d+): (.*)$", line)
        if m is None or cur is None:
            continue
        f = m.group(2).split(None, 6)
        f += [""] * (7 - len(f))
        cur.append(" ".join([m.group(1)] + f[:6]) + " " + cut(f[6]))
    return tables


def cut(s):
    """A string of the file as the text views show it (elffs(1)): its first
    FIELD_MAX bytes and "...[cut, N bytes]" when it is longer."""
    b = s.encode("utf-8", "surrogateescape")
    if len(b) <= FIELD_MAX:
        return s
    return (b[:FIELD_MAX] + f"...[cut, {len(b)} bytes]".encode()).decode("utf-8",
                                                                         "surrogateescape")


def check_symbols(ck, view, src):
    try:
        with open(os.path.join(view, "symbols"), "rb") as fh:
            text = fh.read().decode("utf-8", "surrogateescape")
        size = os.stat(os.path.join(view, "symbols")).st_size
    except OSError as e:
        ck.fail(f"{src}: symbols: {e}")
        return None
    ck.eq(size, len(text.encode("utf-8", "surrogateescape")), f"{src}: symbols st_size")
    got = {"symtab": [], "dynsym": []}
    for line in text.splitlines():
        table, rest = line.split(" ", 1)
        got.setdefault(table, []).append(rest)
    want = readelf_symbols(src)
    for t in ("symtab", "dynsym"):
        bad = [(g, w) for g, w in zip(got[t], want[t]) if g != w]
        ck.eq(len(got[t]), len(want[t]), f"{src}: {t} line count")
        ck.ok(not bad, f"{src}: {t}: {len(bad)} lines differ, first: {bad[:3]}")
        ck.count("symbols compared", len(want[t]))
    return want


def plain(name):
    return name.split("@", 1)[0]


def sym_range(info, sym, rel, arm):
    """(offset, size) of a readelf symbol line's bytes, or None."""
    f = sym.split(" ", 7)
    value, size, typ, ndx, name = int(f[1], 16), int(f[2], 0), f[3], f[6], f[7]
    if size == 0 or not ndx.isdigit() or int(ndx) == 0 or typ in ("SECTION", "FILE", "TLS"):
        return None
    if rel:
        secs = [s for s in info.sections if s.index == int(ndx)]
        if not secs or secs[0].type == "NOBITS" or "C" in secs[0].flags:
            return None
        s = secs[0]
        return (s.off + value, size) if value + size <= s.size else None
    if arm and typ == "FUNC":
        value &= ~1
    for seg in info.segments:
        if seg.type == "LOAD" and seg.vaddr <= value and value + size <= seg.vaddr + seg.filesz:
            return seg.off + value - seg.vaddr, size
    return None


def check_symbol_files(ck, view, src, info, tables):
    rel = "REL" in info.header["Type"]
    arm = info.machine == "ARM"
    ranges = {}
    for t in ("symtab", "dynsym"):
        for line in tables[t]:
            r = sym_range(info, line, rel, arm)
            if r:
                ranges.setdefault(plain(line.split(" ", 7)[7]), set()).add(r)
    try:
        listed = set(os.listdir(os.path.join(view, "symbol")))
    except OSError as e:
        ck.fail(f"{src}: symbol/: {e}")
        return
    unique = sorted(n for n, r in ranges.items() if len(r) == 1 and n and "/" not in n
                    and n not in (".", "..") and len(n) <= 200 and "~" not in n)
    missing = [n for n in unique if n not in listed]
    ck.ok(not missing, f"{src}: symbol/ lacks {len(missing)} names, e.g. {missing[:5]}")
    step = max(1, len(unique) // SAMPLE)
    fd = os.open(src, os.O_RDONLY)
    try:
        for n in unique[::step]:
            (off, size), = ranges[n]
            err = oracle.compare_file(os.path.join(view, "symbol", n), fd, off, size)
            ck.ok(err is None, f"{src}: symbol/{n}: {err}")
            ck.count("symbol files compared")
    finally:
        os.close(fd)
    for n in ("no-such-symbol-xyz", "a~999999999"):
        ck.ok(not os.path.exists(os.path.join(view, "symbol", n)), f"{src}: symbol/{n} exists")


def check_objdump(ck, view, tables):
    sizes = [int(ln.split(" ", 7)[2], 0) for ln in tables["dynsym"]
             if ln.split(" ", 7)[7] == "memcpy@@GLIBC_2.14"]
    ck.eq(len(sizes), 1, "libc.so.6: readelf shows one memcpy@@GLIBC_2.14")
    path = os.path.join(view, "symbol", "memcpy")
    out = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    ck.eq(out.returncode, 0, f"objdump {path}: {out.stderr[-300:]!r}")
    end = 0
    for ln in out.stdout.decode().splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)", ln)
        if m:
            end = max(end, int(m.group(1), 16) + len(m.group(2).split()))
    ck.ok(sizes and end == sizes[0], f"objdump of symbol/memcpy covers {end} bytes, st_size "
          f"{sizes[:1]}")
    ck.count("objdump")


def check_build_id(ck, view, src):
    m = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", src]))
    path = os.path.join(view, "build-id")
    if m is None:
        ck.ok(not os.path.exists(path), f"{src}: build-id without a note")
        ck.ok("build-id" not in os.listdir(view), f"{src}: build-id listed without a note")
        return
    with open(path) as fh:
        ck.eq(fh.read(), m.group(1) + "\n", f"{src}: build-id")
    ck.ok("build-id" in os.listdir(view), f"{src}: build-id not listed")
    ck.count("build ids")


def expected_info_lines(src):
    want = []
    keys = {"SONAME": "soname", "NEEDED": "needed", "RPATH": "rpath", "RUNPATH": "runpath"}
    for ln in run(["readelf", "-dW", src]).splitlines():
        m = re.match(r"^\s*0x[0-9a-f]+ \((\w+)\)\s+.*?: \[(.*)\]$", ln)
        if m and m.group(1) in keys:
            want.append(f"{keys[m.group(1)]}: {cut(m.group(2))}")
    links = run(["readelf", "--debug-dump=links", src])
    m = re.search(r"Separate debug info file: (.*)\n\s*CRC value: 0x([0-9a-f]+)", links)
    if m:
        want += [f"debuglink crc: 0x{int(m.group(2), 16):08x}", f"debuglink: {cut(m.group(1))}"]
    return want


def check_info(ck, view, src):
    with open(os.path.join(view, "info")) as fh:
        lines = fh.read().splitlines()
    keys = ("soname:", "needed:", "rpath:", "runpath:", "debuglink")
    got = [ln for ln in lines if ln.startswith(keys)]
    ck.eq(sorted(got), sorted(expected_info_lines(src)), f"{src}: info dynamic/debuglink lines")
    ck.eq([ln for ln in got if ln.startswith("needed:")],
          [ln for ln in expected_info_lines(src) if ln.startswith("needed:")],
          f"{src}: info needed lines in DT_NEEDED order")
    m = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", src]))
    if m:
        ck.ok(f"build id: {m.group(1)}" in lines, f"{src}: info has no build id line")
    ck.count("infos")


def build_objects(tmp):
    """Objects with compressed debug sections; {name: decompressed copy}."""
    src = os.path.join(tmp, "big.c")
    with open(src, "w") as fh:
        for i in range(200):
            fh.write(f"struct s{i} {{ int a{i}; long b{i}; char c{i}[{i + 1}]; }};\n"
                     f"int f{i}(struct s{i} *p) {{ return p->a{i} + (int)p->b{i} + {i}; }}\n")
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    subprocess.run(["gcc", "-g", "-O1", "-gz=zlib", "-c", src, "-o", os.path.join(out, "zlib.o")],
                   check=True)
    plainobj = os.path.join(tmp, "plain.o")
    subprocess.run(["objcopy", "--decompress-debug-sections", os.path.join(out, "zlib.o"),
                    plainobj], check=True)
    made = ["zlib.o"]
    for kind, name in (("zstd", "zstd.o"), ("zlib-gnu", "legacy.o")):
        r = subprocess.run(["objcopy", f"--compress-debug-sections={kind}", plainobj,
                            os.path.join(out, name)], stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            made.append(name)
        else:
            print(f"note: objcopy cannot compress with {kind}; {name} not tested")
    # a library with DT_RPATH and one with DT_RUNPATH
    for tag, flag in (("rpath", "--disable-new-dtags"), ("runpath", "--enable-new-dtags")):
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(out, f"lib{tag}.so"),
                        src, f"-Wl,-rpath,/opt/{tag}/lib:$ORIGIN", f"-Wl,{flag}",
                        "-Wl,-soname,lib" + tag + ".so.1", "-lz"], check=True)
    return out, plainobj, made


def check_decompressed(ck, view, name, src, plainobj):
    info = oracle.readelf([src, plainobj])
    plain_secs = {s.name: s for s in info[plainobj].sections}
    comp = [s for s in info[src].sections
            if "C" in s.flags or s.name.startswith(".zdebug")]
    ck.ok(comp, f"{name}: readelf shows no compressed section (fixture)")
    listed = set(os.listdir(os.path.join(view, "decompressed")))
    ck.eq(listed, {s.name for s in comp}, f"{name}: decompressed/ listing")
    fd = os.open(plainobj, os.O_RDONLY)
    try:
        for s in comp:
            want = plain_secs[s.name.replace(".zdebug", ".debug", 1)]
            err = oracle.compare_file(os.path.join(view, "decompressed", s.name), fd, want.off,
                                      want.size)
            ck.ok(err is None, f"{name}: decompressed/{s.name}: {err}")
            sec = os.path.join(view, "sections", s.name)
            ck.eq(os.getxattr(sec, "user.elf.ch_size").decode(), str(want.size),
                  f"{name}: {s.name} user.elf.ch_size")
            typ = os.getxattr(sec, "user.elf.ch_type").decode()
            ck.ok(typ in ("ZLIB", "ZSTD"), f"{name}: {s.name} user.elf.ch_type {typ}")
            ck.ok("user.elf.ch_type" in os.listxattr(sec), f"{name}: {s.name} listxattr")
            ck.count("decompressed sections")
    finally:
        os.close(fd)
    other = [s for s in info[src].sections if s not in comp and s.index > 0][0]
    ck.ok("user.elf.ch_type" not in os.listxattr(os.path.join(view, "sections", other.name)),
          f"{name}: ch_type listed on uncompressed {other.name}")
    with open(os.path.join(view, "info")) as fh:
        lines = [ln for ln in fh.read().splitlines() if ln.startswith("compressed: ")]
    ck.eq(len(lines), len(comp), f"{name}: info compressed lines")


def main():
    require_fuse()
    ck = Checker("meta-views")
    fx = fixtures_dir()
    for n in FIXTURES:
        fixture(n)
    libs = [n for n in LIBS if os.path.exists(os.path.join(LIBDIR, n))]
    ck.ok("libc.so.6" in libs, "no libc.so.6 in " + LIBDIR)
    tmp = tempfile.mkdtemp(prefix="elffs-meta-")
    try:
        out, plainobj, made = build_objects(tmp)
        srcs = {os.path.join(LIBDIR, n): n for n in libs}
        srcs.update({os.path.join(fx, n): n for n in FIXTURES})
        srcs.update({os.path.join(out, n): n for n in made + ["librpath.so", "librunpath.so"]
                     if os.path.exists(os.path.join(out, n))})
        infos = oracle.readelf(list(srcs))

        def body(m, base, names):
            for src in names:
                view = os.path.join(m.path, os.path.relpath(src, base))
                tables = check_symbols(ck, view, src)
                if tables is None:
                    continue
                check_symbol_files(ck, view, src, infos[src], tables)
                check_build_id(ck, view, src)
                check_info(ck, view, src)
                if os.path.basename(src) == "libc.so.6" and base == LIBDIR:
                    check_objdump(ck, view, tables)
                if os.path.basename(src) in made:
                    check_decompressed(ck, view, os.path.basename(src), src, plainobj)
                ck.count("files")

        for base in (LIBDIR, fx, out):
            names = [s for s in srcs if os.path.dirname(s) == base]
            run_mounted(ck, base, [], lambda m, b=base, n=names: body(m, b, n))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
