#!/usr/bin/python3
"""Section type names through the mount: the user.elf.type
extended attribute of every section file equals the type readelf -SW
prints, on the sectypes-*.o of the relocation fixtures
(tests/fixtures/reloc/machines.py): for every machine readelf 2.40 names
processor, OS or user section types of (and its aliases), IA-64 under three
OS/ABIs, Solaris' OS range on SPARC, SPARC V9 and x86-64, GNU and FreeBSD
OS/ABIs and machines without names, the sections have the types
0x70000000..0x7000003f, TI's 0x7f000000.., IA-64's 0x78XX0000 and
0x79000000, the OS range's GNU, Solaris and VMS types, V850's user types
and the generic ones. Both backends (mmap, -o nommap).
"""

import os
import re
import shutil
import subprocess
import tempfile

from elffs_mount import Checker, Mount, MountError, require_env, require_fuse

# "  [ 1] s70000001         ARM_EXIDX       00000000 000034 ..." (ELF32) or a
# 16-digit address (ELF64): the type may hold blanks ("V850 Small Common").
LINE = re.compile(r"^\s*\[\s*(\d+)\]\s(\S+)\s+(.*?)\s+(?:[0-9a-f]{8}|[0-9a-f]{16})\s[0-9a-f]{6}\s")


def readelf_types(path):
    """{section name: type} as readelf -SW prints them."""
    out = subprocess.run(["readelf", "-SW", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=dict(os.environ, LC_ALL="C")).stdout
    types = {}
    for ln in out.decode().splitlines():
        m = LINE.match(ln)
        if m and int(m.group(1)) > 0:
            types[m.group(2)] = m.group(3)
    return types


def check(ck, m, src, name):
    want = readelf_types(os.path.join(src, name))
    ck.ok(len(want) > 100, f"{name}: readelf printed {len(want)} sections")
    secdir = os.path.join(m.path, name, "sections")
    got = sorted(os.listdir(secdir))
    ck.eq(got, sorted(want), f"{name}: section files")
    for sec in got:
        if sec not in want:
            continue
        t = os.getxattr(os.path.join(secdir, sec), "user.elf.type").decode()
        if ck.eq(t, want[sec], f"{name} {sec}: user.elf.type"):
            ck.count("types")


def main():
    require_fuse()
    ck = Checker("sectypes")
    rdir = require_env("ELFFS_RELOC_FIXTURES")
    with open(os.path.join(rdir, "MANIFEST")) as f:
        names = [w[0] for w in (ln.split() for ln in f) if len(w) == 2 and w[1] == "sectypes"]
    ck.ok(len(names) > 20, f"{len(names)} section-type probes in the MANIFEST")
    src = tempfile.mkdtemp(prefix="elffs-sectypes-src-")
    try:
        for name in names:
            shutil.copyfile(os.path.join(rdir, name), os.path.join(src, name))
        for args in ([], ["-o", "nommap"]):
            try:
                with Mount(ck, src, args) as m:
                    for name in names:
                        check(ck, m, src, name)
            except MountError as e:
                ck.fail(str(e))
    finally:
        shutil.rmtree(src, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
