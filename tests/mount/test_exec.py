#!/usr/bin/python3
"""Programs run from the mount: MNT/<bin>/elf keeps the source's read and
execute bits (elffs(1), "What is shown"), under -o allow_other (so with
default_permissions) and in both data paths (-o passthrough=auto, where
the kernel reads the source itself, and -o passthrough=off):

- with passthrough on (root, Linux 6.9+), the program's bytes never go
  through the daemon (its wchar grows by less than half the file, by
  about all of it under passthrough=off);
- the fixture program runs from MNT/prog/elf, as root and as nobody, with
  the output and status of the source program, and so does its copy of
  mode 0750 for root (nobody: ENOENT or EACCES);
- modes: elf has the source's r and x bits (0755 -> 0555, 0754 -> 0554),
  never setuid, setgid or sticky (a 06755 source's elf is 0555), and the
  data files (header, sections/.text, segments) have the read bits only:
  exec of sections/.text is EACCES;
- nobody cannot run what it may not run in SOURCE: a 0754 source (others
  r, no x) gives EACCES by its mode, one of mode 0755 with the ACL entry
  user:nobody:r-- (the mode shows x; the ACL takes it away) gives EACCES
  from the daemon's check against SOURCE, while nobody still reads that
  elf's bytes.

usage: test_exec.py
"""

import errno
import os
import shutil
import stat
import subprocess
import tempfile

from elffs_mount import Checker, as_nobody, fixture, require_fuse, run_mounted

# name: source mode; the programs of the cases (copies of the fixture exec)
CASES = {"prog": 0o755, "group": 0o750, "noother": 0o754, "suid": 0o6755, "acl": 0o755}


def build_source(root):
    os.chmod(root, 0o755)
    for name, mode in CASES.items():
        path = os.path.join(root, name)
        shutil.copy(fixture("exec"), path)
        os.chmod(path, mode)
    subprocess.run(["setfacl", "-m", "u:nobody:r--", os.path.join(root, "acl")], check=True)


def run(path):
    out = subprocess.run([path], capture_output=True, timeout=30)
    return out.returncode, out.stdout


def nobody_runs(path, want):
    """as_nobody's outcome of running path: 0 when it gives want."""
    return as_nobody(lambda: run(path) == want)


def nobody_reads(path, want):
    def read():
        with open(path, "rb") as f:
            return f.read() == want
    return as_nobody(read)


def wchar(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def check_path(ck, m, src, tag, passthrough):
    """The first run of prog/elf: with passthrough the kernel maps the
    source file and the daemon writes none of the program's bytes to
    /dev/fuse (its wchar grows by less than half the file: the replies
    of the lookups), without it the pages the program touches (at least
    half the file; about all of it with the read ahead)."""
    size = os.path.getsize(os.path.join(src, "prog"))
    os.stat(os.path.join(m.path, "prog", "elf"))
    before = wchar(m.proc.pid)
    try:
        run(os.path.join(m.path, "prog", "elf"))
    except OSError as e:
        ck.fail(f"{tag}: root runs prog/elf: {e.strerror}")
    grew = wchar(m.proc.pid) - before
    print(f"{tag}: running prog/elf ({size} bytes): the daemon wrote {grew} bytes", flush=True)
    if passthrough:
        ck.ok(grew < size // 2, f"{tag}: the daemon wrote {grew} bytes of a {size}-byte program")
    else:  # the pages the program touches, and the read ahead: about the whole file
        ck.ok(grew >= size // 2, f"{tag}: the daemon wrote {grew} bytes of a {size}-byte "
                                 f"program")


def check_modes(ck, mnt, tag):
    for name, mode in CASES.items():
        got = stat.S_IMODE(os.stat(os.path.join(mnt, name, "elf")).st_mode)
        ck.eq(oct(got), oct(mode & 0o555), f"{tag}: {name}/elf: mode (source {oct(mode)})")
        for f in ("header", "sections/.text", "segments/00-PHDR"):
            got = stat.S_IMODE(os.stat(os.path.join(mnt, name, f)).st_mode)
            ck.eq(oct(got), oct(mode & 0o444), f"{tag}: {name}/{f}: mode")
    ck.errno_is(errno.EACCES, f"{tag}: exec of prog/sections/.text", run,
                os.path.join(mnt, "prog", "sections", ".text"))


def check_runs(ck, src, mnt, tag):
    want = run(os.path.join(src, "prog"))
    ck.ok(want[0] == 0 and b"hello" in want[1], f"the fixture program itself: {want}")
    for name in ("prog", "group", "suid"):
        try:
            ck.eq(run(os.path.join(mnt, name, "elf")), want, f"{tag}: root runs {name}/elf")
        except OSError as e:
            ck.fail(f"{tag}: root runs {name}/elf: {e.strerror}")
    ck.eq(nobody_runs(os.path.join(mnt, "prog", "elf"), want), 0,
          f"{tag}: nobody runs prog/elf (0: the source's output and status)")
    # a binary nobody may not read is absent for it (ENOENT), or EACCES by
    # its directory's mode while the kernel has root's lookup of it
    ck.ok(nobody_runs(os.path.join(mnt, "group", "elf"), want) in (errno.ENOENT, errno.EACCES),
          f"{tag}: nobody runs group/elf (0750 source): not ENOENT or EACCES")
    ck.eq(nobody_runs(os.path.join(src, "noother"), want), errno.EACCES,
          "nobody runs the 0754 source")
    ck.eq(nobody_runs(os.path.join(mnt, "noother", "elf"), want), errno.EACCES,
          f"{tag}: nobody runs noother/elf (0754 source)")
    ck.eq(nobody_runs(os.path.join(src, "acl"), want), errno.EACCES,
          "nobody runs the source with the ACL user:nobody:r--")
    ck.eq(nobody_runs(os.path.join(mnt, "acl", "elf"), want), errno.EACCES,
          f"{tag}: nobody runs acl/elf (ACL user:nobody:r-- on the source)")
    with open(os.path.join(src, "acl"), "rb") as f:
        whole = f.read()
    ck.eq(nobody_reads(os.path.join(mnt, "acl", "elf"), whole), 0,
          f"{tag}: nobody reads acl/elf (0: the source's bytes)")


def main():
    require_fuse()
    ck = Checker("exec")
    src = tempfile.mkdtemp(prefix="elffs-exec-")
    try:
        build_source(src)
        for mode in ("auto", "off"):
            tag = f"passthrough={mode}"

            def body(m):
                on = m.passthrough()
                if mode == "auto":
                    print(f"{tag}: passthrough {'on' if on else 'off'}: "
                          f"{[ln for ln in m.output().splitlines() if 'passthrough' in ln]}",
                          flush=True)
                check_path(ck, m, src, tag, on)
                check_modes(ck, m.path, tag)
                check_runs(ck, src, m.path, tag)
                ck.ok(m.alive(), f"{tag}: daemon died")

            run_mounted(ck, src, ["-o", f"allow_other,timeout=0.1,passthrough={mode}"], body)
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
