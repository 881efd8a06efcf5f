#!/usr/bin/python3
"""Extended attributes of section and segment files: listxattr gives
exactly SPEC's user.elf.* names, every value equals readelf's field
(addresses and offsets 0x hex, the rest decimal, type and flags as readelf
prints them), and setting or removing any attribute fails with EROFS. Names
of other namespaces (security.*, system.*) fail with EOPNOTSUPP.
"""

import errno
import os
import re
import shutil
import subprocess

import elf_oracle as oracle
from elffs_mount import Checker, fixture, fixtures_dir, require_fuse, run_mounted

BINARIES = ["exec", "libshared.so", "comdat.o", "s390x-libc.so.6", "armhf-libc.so.6"]
SECTION_ATTRS = ["index", "type", "flags", "addr", "offset", "size", "align", "entsize", "link",
                 "info"]
SEGMENT_ATTRS = ["index", "type", "flags", "offset", "vaddr", "paddr", "filesz", "memsz",
                 "align"]
HEX = re.compile(r"^0x[0-9a-f]+$")
DEC = re.compile(r"^(0|[1-9][0-9]*)$")


def section_want(s):
    return {"index": ("dec", s.index), "type": ("str", [s.type]), "flags": ("str", [s.flags]),
            "addr": ("hex", s.addr), "offset": ("hex", s.off), "size": ("dec", s.size),
            "align": ("dec", s.align), "entsize": ("dec", s.es), "link": ("dec", s.link),
            "info": ("dec", s.info)}


def segment_want(p, machine):
    types = sorted({p.type, oracle.spec_segment_type(p.type, machine)})
    return {"index": ("dec", p.index), "type": ("str", types), "flags": ("str", [p.flags]),
            "offset": ("hex", p.off), "vaddr": ("hex", p.vaddr), "paddr": ("hex", p.paddr),
            "filesz": ("dec", p.filesz), "memsz": ("dec", p.memsz), "align": ("dec", p.align)}


def value_ok(kind, want, got):
    if kind == "str":
        return got in want
    if kind == "hex":
        return bool(HEX.match(got)) and int(got, 16) == want
    return bool(DEC.match(got)) and int(got) == want


def check_node(ck, path, attrs, want):
    try:
        names = os.listxattr(path)
    except OSError as e:
        ck.fail(f"{path}: listxattr: {e.strerror}")
        return
    ck.eq(sorted(names), sorted("user.elf." + a for a in attrs), f"{path}: listxattr")
    for a in attrs:
        kind, value = want[a]
        try:
            got = os.getxattr(path, "user.elf." + a).decode("utf-8", "replace")
        except OSError as e:
            ck.fail(f"{path}: getxattr user.elf.{a}: {e.strerror}")
            continue
        ck.ok(value_ok(kind, value, got), f"{path}: user.elf.{a} = {got!r}, readelf: {value!r}")
        ck.count("values")
    ck.errno_is(errno.ENODATA, f"{path}: getxattr user.elf.nosuch", os.getxattr, path,
                "user.elf.nosuch")
    ck.errno_is(errno.EROFS, f"{path}: setxattr new", os.setxattr, path, "user.test", b"x")
    ck.errno_is(errno.EROFS, f"{path}: setxattr existing", os.setxattr, path,
                "user.elf.index", b"1")
    ck.errno_is(errno.EROFS, f"{path}: removexattr", os.removexattr, path, "user.elf.index")


def check_binary(ck, view, info):
    names = oracle.section_file_names(info.sections)
    for s in info.sections:
        if s.index:
            check_node(ck, os.path.join(view, "sections", names[s.index]), SECTION_ATTRS,
                       section_want(s))
            ck.count("sections")
    for p in info.segments:
        path = os.path.join(view, "segments", oracle.segment_file_name(p, info.machine))
        check_node(ck, path, SEGMENT_ATTRS, segment_want(p, info.machine))
        ck.count("segments")
    for other in (view, os.path.join(view, "info"), os.path.join(view, "sections")):
        ck.errno_is(errno.EROFS, f"{other}: setxattr", os.setxattr, other, "user.test", b"x")
    check_foreign(ck, [view, os.path.join(view, "sections", names[1])])


def check_foreign(ck, paths):
    """Namespaces elffs has nothing in answer EOPNOTSUPP (what `ls -l` takes as
    "none on this device" and stops asking), its own namespace ENODATA."""
    for path in paths:
        for name in ("security.selinux", "system.posix_acl_access", "system.posix_acl_default",
                     "trusted.x"):
            ck.errno_is(errno.EOPNOTSUPP, f"{path}: getxattr {name}", os.getxattr, path, name,
                        follow_symlinks=False)
        ck.errno_is(errno.ENODATA, f"{path}: getxattr user.nosuch", os.getxattr, path,
                    "user.nosuch", follow_symlinks=False)


def check_getfattr(ck, view, info):
    """The ordinary tool agrees: getfattr -d prints user.elf.size of .text."""
    if shutil.which("getfattr") is None:
        print("note: getfattr (package attr) not installed, tool check not run")
        return
    text = [s for s in info.sections if s.name == ".text"][0]
    out = subprocess.run(["getfattr", "-n", "user.elf.size", "--only-values",
                          os.path.join(view, "sections", ".text")],
                         capture_output=True, text=True)
    ck.eq((out.returncode, out.stdout), (0, str(text.size)), "getfattr user.elf.size of .text")


def main():
    require_fuse()
    ck = Checker("xattr")
    fx = fixtures_dir()
    srcs = [fixture(n) for n in BINARIES]
    infos = oracle.readelf(srcs)

    def body(m):
        for src in srcs:
            check_binary(ck, os.path.join(m.path, os.path.basename(src)), infos[src])
        check_foreign(ck, [m.path])
        check_getfattr(ck, os.path.join(m.path, "exec"), infos[srcs[0]])

    run_mounted(ck, fx, [], body)
    ck.finish()


if __name__ == "__main__":
    main()
