#!/usr/bin/python3
"""MiniDebugInfo through the mount: gnu_debugdata/ and decompressed/.gnu_debugdata.

Over the fixtures of tests/fixtures/minidebug/mkminidebug.py (gdb's recipe
for x86-64 and for s390x, big endian), on both backends (default and -o
nommap):

- gnu_debugdata/elf and decompressed/.gnu_debugdata hold exactly what
  `xz -dc` makes of the section's stream (the fixture's .xz);
- gnu_debugdata/symbols equals `readelf -sW` of that inner file, and the
  symbols `eu-readelf --elf-section -s` reads from the program itself
  (through the mount's elf too); each section file of gnu_debugdata/
  holds the inner file's bytes of that section; the static functions are
  where nm of the program before stripping puts them;
- the binary's info says "compressed: .gnu_debugdata XZ <size>", the
  section file's user.elf.ch_type is XZ and user.elf.ch_size the size;
- no gnu_debugdata/ inside gnu_debugdata/ (not followed again), none in a
  program without the section;
- the hostile streams (mkminidebug.py's hx-*): an index that lies, a 4 GiB
  dictionary, 228 KiB that decode to 1 GiB (the index saying so, or 1
  MiB), two streams, padding, a cut or damaged stream, inner files that are
  not ELF or lie: EIO inside gnu_debugdata/ (or the inner file's own
  errors), decompressed/.gnu_debugdata EIO or absent (a stream whose index
  cannot be read), never a partial file; the daemon alive and its peak
  memory under 48 MiB above what it had once mounted (96 under
  AddressSanitizer: redzones, shadow and its quarantine of freed memory);
- the memory budget: 24 MiB of zeros as MiniDebugInfo are read whole under
  the default budget, and give EFBIG under -o memory=16 (decompressed/
  and gnu_debugdata/ alike), while a small one is still served.
"""

import errno
import os
import re
import subprocess
import sys
import tempfile

from elffs_mount import Checker, daemon_has_asan, require_env, require_fuse, run_mounted

ENV = dict(os.environ, LC_ALL="C", DEBUGINFOD_URLS="")
PROGS = [("mini-x86", ""), ("mini-s390x", "s390x-linux-gnu-")]
SYM = re.compile(r"^\s*(\d+):\s+([0-9a-f]+)\s+(\d+)\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s?(.*)$")


def tool(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          env=ENV, check=False).stdout


def xz_dc(path):
    return tool(["xz", "-dc", path])


def symbols_of(text):
    """[(num, value, size, type, bind, ndx, name)] of readelf/eu-readelf -s text."""
    out = []
    for line in text.splitlines():
        m = SYM.match(line)
        if m:
            ndx = "UND" if m.group(6) == "UNDEF" else m.group(6)
            out.append((int(m.group(1)), int(m.group(2), 16), int(m.group(3)), m.group(4),
                        m.group(5), ndx, m.group(7)))
    return out


def mounted_symbols(path):
    """The same tuples from a `symbols` file (symtab lines only)."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            p = line.rstrip("\n").split(" ", 8)
            if p[0] == "symtab":
                out.append((int(p[1]), int(p[2], 16), int(p[3]), p[4], p[5], p[7],
                            p[8] if len(p) > 8 else ""))
    return out


def sections_of(path):
    """{name: (type, offset, size)} by readelf -SW."""
    out = {}
    text = tool(["readelf", "-SW", path]).decode(errors="replace")
    for m in re.finditer(r"\[\s*[1-9]\d*\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)",
                         text):
        out.setdefault(m.group(1), (m.group(2), int(m.group(3), 16), int(m.group(4), 16)))
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def check_program(ck, mnt, fix, name, prefix):
    want = xz_dc(os.path.join(fix, name + ".xz"))
    ck.ok(len(want) > 500, f"{name}: xz -dc gave {len(want)} bytes")
    top = os.path.join(mnt, name)
    inner = os.path.join(top, "gnu_debugdata")
    ck.ok("gnu_debugdata" in os.listdir(top), f"{name}: gnu_debugdata not listed")
    ck.ok(read(os.path.join(inner, "elf")) == want, f"{name}: gnu_debugdata/elf is not xz -dc")
    ck.ok(read(os.path.join(top, "decompressed", ".gnu_debugdata")) == want,
          f"{name}: decompressed/.gnu_debugdata is not xz -dc")
    ck.eq(os.stat(os.path.join(inner, "elf")).st_size, len(want), f"{name}: st_size of elf")
    with tempfile.NamedTemporaryFile(prefix="inner-") as t:
        t.write(want)
        t.flush()
        oracle = symbols_of(tool(["readelf", "-sW", t.name]).decode(errors="replace"))
        secs = sections_of(t.name)
    ck.ok(len(oracle) >= 3, f"{name}: readelf -sW of the inner file: {oracle}")
    ck.eq(mounted_symbols(os.path.join(inner, "symbols")), oracle, f"{name}: gnu_debugdata/symbols")
    unnamed = [s[:6] + ("" if s[3] == "SECTION" else s[6],) for s in oracle]
    for src in (os.path.join(fix, name), os.path.join(top, "elf")):
        eu = symbols_of(tool(["eu-readelf", "--elf-section", "-s", src]).decode(errors="replace"))
        ck.eq(eu, unnamed, f"{name}: eu-readelf --elf-section -s {src} (section symbols unnamed)")
    for sname, (stype, off, size) in secs.items():
        got = read(os.path.join(inner, "sections", sname))
        ck.ok(got == (b"" if stype == "NOBITS" else want[off:off + size]),
              f"{name}: gnu_debugdata/sections/{sname}: {len(got)} bytes, not the inner file's")
    full = tool([prefix + "nm", "--defined-only", os.path.join(fix, name + ".full")]).decode()
    byname = {s[6]: s[1] for s in oracle}
    for sym in ("mini_static_alpha", "mini_static_beta"):
        m = re.search(r"^([0-9a-f]+) t " + sym + "$", full, re.M)
        if ck.ok(m, f"{name}: nm of {name}.full has no {sym}"):
            ck.eq(byname.get(sym), int(m.group(1), 16), f"{name}: {sym} in gnu_debugdata/symbols")
    with open(os.path.join(top, "info")) as f:
        ck.ok(f"compressed: .gnu_debugdata XZ {len(want)}\n" in f.read(),
              f"{name}: no compressed line of .gnu_debugdata in info")
    sec = os.path.join(top, "sections", ".gnu_debugdata")
    ck.eq(os.getxattr(sec, "user.elf.ch_type"), b"XZ", f"{name}: user.elf.ch_type")
    ck.eq(os.getxattr(sec, "user.elf.ch_size"), str(len(want)).encode(), f"{name}: ch_size")
    ck.ok("gnu_debugdata" not in os.listdir(inner), f"{name}: gnu_debugdata/ lists gnu_debugdata")
    ck.errno_is(errno.ENOENT, f"{name}: gnu_debugdata/gnu_debugdata", os.stat,
                os.path.join(inner, "gnu_debugdata"))


# name: (decompressed/.gnu_debugdata: "eio", "absent" or "ok"; the inner view:
# "eio", or "ok" when it is served as any file)
HOSTILE = {
    "hx-lie-more": ("eio", "eio"),
    "hx-lie-less": ("eio", "eio"),
    "hx-dict": ("eio", "eio"),
    "hx-bomb": ("eio", "eio"),
    "hx-bomb-lie": ("eio", "eio"),
    "hx-two": ("absent", "eio"),
    "hx-padded": ("absent", "eio"),
    "hx-cut": ("absent", "eio"),
    "hx-corrupt": ("eio", "eio"),
    "hx-notelf": ("ok", "eio"),
    "hx-badshdr": ("ok", "ok"),
    "hx-big": ("ok", "eio"),
}


def check_hostile(ck, mnt, fix, name, dec, view):
    top = os.path.join(mnt, name)
    ck.ok("gnu_debugdata" in os.listdir(top), f"{name}: gnu_debugdata not listed")
    d = os.path.join(top, "decompressed", ".gnu_debugdata")
    if dec == "absent":
        ck.errno_is(errno.ENOENT, f"{name}: decompressed/.gnu_debugdata", os.stat, d)
    elif dec == "eio":
        ck.errno_is(errno.EIO, f"{name}: read decompressed/.gnu_debugdata", read, d)
    else:
        ck.ok(read(d) == xz_dc(os.path.join(fix, name + ".xz")),
              f"{name}: decompressed/.gnu_debugdata is not xz -dc")
    elf = os.path.join(top, "gnu_debugdata", "elf")
    if view == "eio":
        for entry in ("elf", "info", "sections"):
            ck.errno_is(errno.EIO, f"{name}: gnu_debugdata/{entry}", os.stat,
                        os.path.join(top, "gnu_debugdata", entry))
        return
    ck.ok(read(elf) == read(d), f"{name}: gnu_debugdata/elf is not decompressed/.gnu_debugdata")
    with open(os.path.join(top, "gnu_debugdata", "info")) as f:
        ck.ok("error: section headers" in f.read(), f"{name}: no error line in the inner info")


def vm_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        m = re.search(key + r":\s+(\d+)", f.read())
    return int(m.group(1)) if m else 0


def body(ck, fix):
    def run(m):
        rss = vm_kib(m.proc.pid, "VmRSS")
        for name, prefix in PROGS:
            check_program(ck, m.path, fix, name, prefix)
        ck.ok("gnu_debugdata" not in os.listdir(os.path.join(m.path, "plain-x86")),
              "plain-x86 lists gnu_debugdata")
        for name, (dec, view) in HOSTILE.items():
            check_hostile(ck, m.path, fix, name, dec, view)
        ck.ok(m.alive(), "the daemon died")
        peak = vm_kib(m.proc.pid, "VmHWM")
        bound = (96 if daemon_has_asan(m.proc.pid) else 48) * 1024
        ck.ok(peak - rss < bound, f"peak {peak} KiB, {rss} KiB once mounted")
        print(f"  peak {peak / 1024:.1f} MiB, {rss / 1024:.1f} MiB once mounted", flush=True)
    return run


def over_budget(ck, fix):
    """-o memory=16: 24 MiB of MiniDebugInfo are EFBIG, a small one served."""
    def run(m):
        top = os.path.join(m.path, "hx-big")
        ck.errno_is(errno.EFBIG, "hx-big: read decompressed/.gnu_debugdata", read,
                    os.path.join(top, "decompressed", ".gnu_debugdata"))
        ck.errno_is(errno.EFBIG, "hx-big: gnu_debugdata/elf", os.stat,
                    os.path.join(top, "gnu_debugdata", "elf"))
        ck.ok(read(os.path.join(m.path, "mini-x86", "gnu_debugdata", "elf")) ==
              xz_dc(os.path.join(fix, "mini-x86.xz")), "mini-x86 under -o memory=16")
    return run


def main():
    require_fuse()
    fix = require_env("ELFFS_MINIDEBUG_FIXTURES")
    ck = Checker("mount-minidebug")
    for args in ([], ["-o", "nommap"]):
        print(f"backend: {args or 'default'}", flush=True)
        run_mounted(ck, fix, args, body(ck, fix))
        run_mounted(ck, fix, args + ["-o", "memory=16"], over_budget(ck, fix))
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
