#!/usr/bin/python3
"""Go's tables through the mount: go/ of every Go fixture.

usage: test_go.py GO_FIXTURES_DIR

Over the fixtures of tests/fixtures/go/mkgo.py (its MANIFEST: NAME KIND
TWIN; NAME.funcs and NAME.gov say what Go's own tools say), on both
backends (default and -o nommap):

- go/functions equals NAME.funcs (the oracle: Go 1.19's debug/gosym, its
  Funcs and PCToLine(Entry), the text start from the unstripped twin)
  line for line; go/buildinfo equals `go version -m NAME` less its
  "NAME: ", and is absent when go version -m prints nothing;
- nm -n go/debug names every function at its entry (a T symbol);
  addr2line -f -e go/debug at a pc in the middle of every 50th function
  names the function and file:line debug/gosym's PCToLine gives there
  (the oracle's "lookup"; its ":-1", no position, is addr2line's "??");
- info says "go functions: N", where the table was found and the text
  start;
- through .build-id (the cgo programs, linked by gcc, have a GNU build
  id and no debug file in SOURCE): .build-id/<xx>/<rest>.debug links to
  the binary's go/debug, and so does its debug; gdb -batch -iex 'set
  debug-file-directory MNT' -ex 'info symbol ADDR'
  ./prog-amd64-cgo-stripped names the function of every 50th (none
  without the mount), llvm-symbolizer --debug-file-directory=MNT and
  eu-addr2line --debuginfo-path=MNT name one; a program with a debug
  file of its own in SOURCE (the cgo program stripped by binutils, its
  objcopy --only-keep-debug file beside) gets that one, and info says
  which one each serves;
- the hostile tables (mkgo.py's hostile-*) and a fixture of our own whose
  pc-value tables loop: go/ absent or its files absent or EIO, the
  daemon alive and answering;
- a second user under allow_other: a Go program it cannot read shows it
  no go/ (EACCES), nor its .build-id link's target; one it may read
  shows it the same go/functions as root.
Without a go tool the fixtures are empty and the test skips.
"""

import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile

from elffs_mount import Checker, Mount, MountError, as_nobody, build_id, require_fuse

ENV = dict(os.environ, LC_ALL="C", DEBUGINFOD_URLS="")
EVERY = 50  # addr2line at a pc of every 50th function
# Where the patched layouts' tables and text starts are found (mkgo.py).
INFO_LINES = {
    "prog-amd64-cgopie-stripped": ["go pclntab: PT_GNU_RELRO, "],
    "prog-amd64-pie-textreloc": ["go text start: 0x401000 (textStart relocation)\n"],
    "prog-amd64-pie-modreloc": ["go text start: 0x401000 (module data relocation)\n"],
    "prog-amd64-go126": ["go text start: 0x401000 (module data)\n"],
    "prog-amd64-textsym": ["go text start: 0x401000 (runtime.text)\n"],
    "synth-1.2-le64": ["go text start: none (entries are addresses)\n"],
}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def tool(args, cwd=None, stdin=None):
    p = subprocess.run(args, cwd=cwd, input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, env=ENV, check=False, timeout=300)
    return p.stdout.decode(errors="replace")


def manifest(fix):
    with open(os.path.join(fix, "MANIFEST"), encoding="utf-8") as f:
        return [tuple(line.split()) for line in f if line.strip()]


def shown(name):
    """A name as go/functions writes it: control characters as ^X."""
    return "".join("^" + chr(ord(c) + 0x40) if ord(c) < 0x20 else
                   "^" + chr(0xbf) if ord(c) == 0x7f else c for c in name)


def funcs_of(fix, name):
    """[(entry, end, name, pos)] of NAME.funcs (names and positions as Go
    gives them: a tab in a name would be the name's, the position is the
    last field)."""
    out = []
    text = read(os.path.join(fix, name + ".funcs")).decode(errors="surrogateescape")
    for line in text.splitlines():
        e, n, rest = line.split("\t", 2)
        fn, pos = rest.rsplit("\t", 1)
        out.append((int(e, 16), int(n, 16), fn, pos))
    return out


def functions_text(fix, name):
    """NAME.funcs as go/functions writes it: control characters ^X."""
    text = read(os.path.join(fix, name + ".funcs")).decode(errors="surrogateescape")
    width = len(text.split("\t", 1)[0]) if text else 16
    lines = [f"{e:0{width}x}\t{n:0{width}x}\t{shown(fn)}\t{shown(pos)}\n"
             for e, n, fn, pos in funcs_of(fix, name)]
    return "".join(lines).encode(errors="surrogateescape")


def check_functions(ck, top, fix, name):
    want = functions_text(fix, name)
    got = read(os.path.join(top, "go", "functions"))
    if got != want:
        gl, wl = got.splitlines(), want.splitlines()
        bad = next((i for i in range(min(len(gl), len(wl))) if gl[i] != wl[i]), None)
        ck.fail(f"{name}: go/functions: {len(gl)} lines, oracle {len(wl)}; first difference "
                f"at line {bad}: {gl[bad] if bad is not None else ''!r} != "
                f"{wl[bad] if bad is not None else ''!r}")
    ck.eq(os.stat(os.path.join(top, "go", "functions")).st_size, len(want),
          f"{name}: st_size of go/functions")


def check_buildinfo(ck, top, fix, name):
    gov = read(os.path.join(fix, name + ".gov"))
    path = os.path.join(top, "go", "buildinfo")
    if not gov:
        ck.ok(not os.path.exists(path), f"{name}: go/buildinfo shown, go version -m prints nothing")
        return
    prefix = name.encode() + b": "
    ck.ok(gov.startswith(prefix), f"{name}: go version -m: {gov[:60]!r}")
    ck.eq(read(path), gov[len(prefix):], f"{name}: go/buildinfo")


def check_nm(ck, top, name, funcs):
    syms = set()
    for line in tool(["nm", "-n", os.path.join(top, "go", "debug")]).splitlines():
        p = line.split(" ", 2)
        if len(p) == 3 and p[1] == "T":
            syms.add((int(p[0], 16), shown(p[2])))
    missing = [f for f in funcs if (f[0], shown(f[2])) not in syms]
    ck.ok(not missing, f"{name}: nm -n go/debug: {len(missing)} of {len(funcs)} functions not "
          f"at their entry, e.g. {missing[:3]}")


def check_addr2line(ck, top, fix, name, twin, funcs):
    pcs = [f[0] + (f[1] - f[0]) // 2 for f in funcs[::EVERY]]
    oracle = tool([os.path.join(fix, "oracle"), "lookup", name, twin], cwd=fix,
                  stdin="".join(f"{pc:x}\n" for pc in pcs).encode()).splitlines()
    got = tool(["addr2line", "-f", "-e", os.path.join(top, "go", "debug")] +
               [hex(pc) for pc in pcs]).splitlines()
    ck.eq(len(oracle), len(pcs), f"{name}: oracle lookup answers")
    ck.eq(len(got), 2 * len(pcs), f"{name}: addr2line lines")
    for i, line in enumerate(oracle[:len(got) // 2]):
        p = line.split("\t")
        if len(p) < 3:
            continue  # "-": no function (never for a pc inside one)
        fn, pos = p[1], p[2]
        if pos.endswith(":-1") or pos.startswith(":"):
            pos = "??:?"  # debug/gosym: no file or line there; addr2line: "??"
        a_fn, a_pos = got[2 * i], got[2 * i + 1]
        a_pos = re.sub(r" \(discriminator \d+\)$", "", a_pos)
        ck.eq((shown(a_fn), "??:?" if a_pos in ("??:0", "??:?") else a_pos), (shown(fn), pos),
              f"{name}: addr2line -f -e go/debug {pcs[i]:#x}")


def check_info(ck, top, name, funcs):
    info = read(os.path.join(top, "info")).decode(errors="replace")
    ck.ok(f"go functions: {len(funcs)}\n" in info, f"{name}: info has no 'go functions: "
          f"{len(funcs)}': {info[-400:]!r}")
    ck.ok(re.search(r"^go pclntab: .+, offset 0x[0-9a-f]+, \d+ bytes, Go 1\.(2|16|18|20) format "
                    r"\(magic 0x[0-9a-f]{8}\)$", info, re.M),
          f"{name}: info has no go pclntab line")
    ck.ok(re.search(r"^go text start: (0x[0-9a-f]+ \(.+\)|none \(.+\))$", info, re.M),
          f"{name}: info has no go text start line")
    for line in INFO_LINES.get(name, ()):
        ck.ok(f"\n{line}" in info, f"{name}: info has no {line!r}: {info[-300:]!r}")


def check_fixture(ck, mnt, fix, name, twin):
    top = os.path.join(mnt, name)
    funcs = funcs_of(fix, name)
    if not ck.ok("go" in os.listdir(top), f"{name}: no go/ listed"):
        return
    listed = sorted(os.listdir(os.path.join(top, "go")))
    has_info = bool(read(os.path.join(fix, name + ".gov")))
    want = ["debug", "functions"] + (["buildinfo"] if has_info else [])
    ck.eq(listed, sorted(want), f"{name}: ls go/")
    check_functions(ck, top, fix, name)
    check_buildinfo(ck, top, fix, name)
    check_nm(ck, top, name, funcs)
    check_addr2line(ck, top, fix, name, twin, funcs)
    check_info(ck, top, name, funcs)


def link_of(path):
    """The target of symlink path, or None."""
    try:
        return os.readlink(path)
    except OSError:
        return None


def gdb_symbol(debugdir, prog, pcs):
    """What gdb's info symbol names at each pc, Go names as Go writes them
    (gdb shows a function pkg.f of its Go symbols as pkg[f])."""
    args = ["gdb", "-nx", "-batch", "-iex", f"set debug-file-directory {debugdir}"]
    for pc in pcs:
        args += ["-ex", f"info symbol {pc:#x}"]
    lines = [line for line in tool(args + [prog]).splitlines()
             if " in section " in line or line.startswith("No symbol")]
    names = [re.sub(r" \+ \d+ in section .*| in section .*", "", line) for line in lines]
    return [re.sub(r"^(.*)\[([^\]]*)\]$", r"\1.\2", n) for n in names]


def check_build_id(ck, mnt, fix, src):
    """The stripped cgo program through .build-id: gdb and llvm-symbolizer."""
    name = "prog-amd64-cgo-stripped"
    prog = os.path.join(src, name)
    if not os.path.exists(prog):
        return ck.fail(f"no {name} in the fixtures")
    bid = build_id(prog)
    if not ck.ok(bid, f"{name}: no GNU build id"):
        return None
    link = os.path.join(mnt, ".build-id", bid[:2], bid[2:] + ".debug")
    ck.eq(link_of(link), f"../../{name}/go/debug",
          f".build-id link of {name}")
    funcs = funcs_of(fix, name)
    pcs = [f[0] + (f[1] - f[0]) // 2 for f in funcs[::EVERY]]
    want = [f[2] for f in funcs[::EVERY]]
    ck.eq(gdb_symbol(mnt, prog, pcs), want, f"gdb info symbol in {name} through {mnt}")
    ck.ok(all(n.startswith("No symbol") for n in gdb_symbol("/nonexistent", prog, pcs[:3])),
          f"gdb names functions of {name} without the mount")
    mid = funcs[len(funcs) // 2]
    out = tool(["llvm-symbolizer", f"--debug-file-directory={mnt}", f"--obj={prog}",
                hex(mid[0])]).splitlines()
    ck.eq(out[:1], [mid[2]], f"llvm-symbolizer --debug-file-directory of {name}")
    out = tool(["eu-addr2line", "-f", f"--debuginfo-path={mnt}", "-e", prog,
                hex(mid[0])]).splitlines()
    ck.eq(out[:1], [mid[2]], f"eu-addr2line --debuginfo-path of {name}")
    return bid


def real_debug_wins(ck, mnt, src):
    """A program of the tree with a debug file of its own in SOURCE (the
    cgo program stripped by binutils, its objcopy --only-keep-debug file
    beside it): its build id's .debug and its debug link lead there, not to
    its go/debug, and info says which; prog-amd64-cgo-stripped's lead to
    its go/debug."""
    bid = build_id(os.path.join(src, "real-stripped"))
    link = os.path.join(mnt, ".build-id", bid[:2], bid[2:] + ".debug")
    ck.eq(link_of(link), "../../real.debug/elf", "the .build-id link of a program with a "
          "debug file in SOURCE")
    ck.eq(link_of(os.path.join(mnt, "real-stripped", "debug")), "../real.debug/elf",
          "debug of a program with a debug file in SOURCE")
    info = read(os.path.join(mnt, "real-stripped", "info")).decode()
    ck.ok("\ndebug: build id: real.debug\n" in info, f"info of real-stripped: {info[-300:]!r}")
    ck.ok("go functions: " in info and "go/" not in info.split("\ndebug:", 1)[1],
          f"info of real-stripped names go/debug: {info[-300:]!r}")
    ck.eq(link_of(os.path.join(mnt, "prog-amd64-cgo-stripped", "debug")), "go/debug",
          "debug of prog-amd64-cgo-stripped")
    info = read(os.path.join(mnt, "prog-amd64-cgo-stripped", "info")).decode()
    ck.ok("\ndebug: go/debug\n" in info, f"info of prog-amd64-cgo-stripped: {info[-300:]!r}")


def with_debug_file(fix, src):
    """real-stripped and real.debug in src from prog-amd64-cgo (one build id)."""
    prog = os.path.join(fix, "prog-amd64-cgo")
    subprocess.run(["objcopy", "--only-keep-debug", prog, os.path.join(src, "real.debug")],
                   check=True)
    subprocess.run(["objcopy", "--strip-debug", "--strip-unneeded", prog,
                    os.path.join(src, "real-stripped")], check=True)


def looping(fix, dst):
    """prog-amd64-stripped with the pc-line table of one function made a
    loop of steps that never advance the pc (a varint pair of 0 pc delta
    over and over): go/functions and go/debug EIO, or that function's
    position as debug/gosym gives none. Returns the file made."""
    data = bytearray(read(os.path.join(fix, "prog-amd64-stripped")))
    m = re.search(rb"\xf0\xff\xff\xff\x00\x00\x01\x08", bytes(data))  # 1.18 header, LE, ptr 8
    if not m:
        return None
    base = m.start()
    word = lambda i: int.from_bytes(data[base + 8 + 8 * i:base + 16 + 8 * i], "little")
    nfunc, pcln, functab = word(0), word(6), word(7)
    func_at = base + functab
    rec = base + functab + int.from_bytes(data[func_at + 8 * (nfunc // 2) + 4:
                                               func_at + 8 * (nfunc // 2) + 8], "little")
    off = int.from_bytes(data[rec + 24:rec + 28], "little")  # pcln of the record
    at = base + pcln + off
    data[at:at + 600] = b"\x02\x00" * 300  # value +1, pc +0: steps that never end the table
    with open(dst, "wb") as f:
        f.write(data)
    os.chmod(dst, 0o755)
    return dst


def check_hostile(ck, m, names):
    for name in names:
        go = os.path.join(m.path, name, "go")
        for leaf in ("functions", "debug", "buildinfo"):
            path = os.path.join(go, leaf)
            try:
                data = read(path)
                ck.eq(len(data), os.stat(path).st_size, f"{name}: go/{leaf} read whole")
                ck.count("hostile read")
            except OSError as e:
                ck.ok(e.errno in (errno.ENOENT, errno.EIO),
                      f"{name}: go/{leaf}: {e.strerror}, want ENOENT or EIO")
                ck.count("hostile refused")
        ck.ok(m.alive() and os.path.isdir(os.path.join(m.path, name)),
              f"{name}: daemon gone after go/")


def check_other_user(ck, mnt, bid):
    """nobody, under allow_other: prog-amd64 (0644) the same; prog-amd64-cgo-stripped
    (made 0600 here) no go/ and no .build-id target."""
    readable = os.path.join(mnt, "prog-amd64", "go", "functions")
    if not ck.ok(os.path.exists(readable), "no go/functions of prog-amd64"):
        return
    want = read(readable)
    ck.eq(as_nobody(lambda: read(readable) == want), 0, "nobody reads prog-amd64's go/functions")
    closed = os.path.join(mnt, "prog-amd64-cgo-stripped", "go")
    for leaf in ("functions", "debug", "buildinfo"):  # a binary nobody may read is absent for it
        ck.ok(as_nobody(lambda: os.stat(os.path.join(closed, leaf)) and False) in
              (errno.ENOENT, errno.EACCES), f"nobody stats go/{leaf} of a program mode 0600")
    if bid:
        link = os.path.join(mnt, ".build-id", bid[:2], bid[2:] + ".debug")
        ck.ok(as_nobody(lambda: read(link) and False) in (errno.EACCES, errno.ENOENT),
              "nobody reads go/debug of a 0600 program through .build-id")


def run(ck, fix, backend):
    entries = manifest(fix)
    with tempfile.TemporaryDirectory(prefix="elffs-go-") as src:
        for name, _, _ in entries:
            shutil.copy2(os.path.join(fix, name), os.path.join(src, name))
        hostile = [n for n, k, _ in entries if k == "hostile"]
        mine = looping(fix, os.path.join(src, "mine-pc-loop"))
        ck.ok(mine, "prog-amd64-stripped: no Go 1.18 header found to patch")
        if mine:
            hostile.append("mine-pc-loop")
        with_debug_file(fix, src)
        os.chmod(os.path.join(src, "prog-amd64-cgo-stripped"), 0o600)
        os.chmod(src, 0o755)
        args = ["-o", "allow_other", "-o", "buildid=.build-id"]  # the index, shown to all
        args += ["-o", "nommap"] if backend == "nommap" else []
        with Mount(ck, src, args) as m:
            for name, kind, twin in entries:
                if kind != "hostile":
                    check_fixture(ck, m.path, fix, name, twin)
                    ck.count(backend)
            bid = check_build_id(ck, m.path, fix, src)
            real_debug_wins(ck, m.path, src)
            check_hostile(ck, m, hostile)
            check_other_user(ck, m.path, bid)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    fix = sys.argv[1]
    ck = Checker("test_go")
    require_fuse()
    if not os.path.exists(os.path.join(fix, "MANIFEST")) or not manifest(fix):
        print("SKIP: no Go fixtures (no go tool)")
        return 77
    for backend in ("mmap", "nommap"):
        try:
            run(ck, fix, backend)
        except MountError as e:
            ck.fail(str(e))
    ck.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
