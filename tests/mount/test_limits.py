#!/usr/bin/python3
"""Scale and descriptor bounds (SPEC section 4, issue 3): with /usr as
SOURCE and the daemon limited to the default 1024 descriptors
(prlimit --nofile=1024), mounting is instant, `find` over the view of
/usr/bin lists exactly the files readelf predicts, and a reader holding
1500 files of 1500 different binaries open at once reads each correctly.
In default and -o nommap mode.
"""

import os
import re
import subprocess
import time

import elf_oracle as oracle
from elffs_mount import Checker, Mount, MountError, require_fuse

OPEN_AT_ONCE = 1500
NOFILE = 1024


def elf_files(root, recursive):
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(d, name)
            if not os.path.islink(path) and os.path.isfile(path) and oracle.is_elf(path):
                out.append(path)
        if not recursive:
            break
    return out


def check_find(ck, mnt, bins, infos):
    want = sum(2 + max(0, len(i.sections) - 1) + len(i.segments) for i in infos.values())
    started = time.monotonic()
    try:
        out = subprocess.run(["find", os.path.join(mnt, "bin"), "-type", "f"],
                             capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        ck.fail("find over the view of /usr/bin did not finish within 60 s")
        return
    ck.eq(out.returncode, 0, f"find exit status ({out.stderr[-300:]!r})")
    # the issue 6 views (symbols, symbol/, build-id, decompressed/) are counted by test_meta_views
    old = [ln for ln in out.stdout.splitlines()
           if not re.search(rb"/(symbol|decompressed)/[^/]*$|/(symbols|build-id)$", ln)]
    ck.eq(len(old), want, "find -type f over /usr/bin: file count")
    ck.count("find_files", len(out.stdout.splitlines()))
    print(f"find over /usr/bin: {time.monotonic() - started:.1f} s", flush=True)


def check_many_open(ck, mnt, paths, infos):
    fds, failed = [], []
    try:
        for src in paths:
            view = os.path.join(mnt, os.path.relpath(src, "/usr"), "header")
            try:
                fds.append((src, os.open(view, os.O_RDONLY)))
            except OSError as e:
                failed.append(f"{view} ({e.strerror}, {len(fds)} open)")
        ck.ok(not failed, f"{len(failed)} of {len(paths)} opens failed with many files open, "
                          f"first: {failed[:2]}")
        ck.count("open_at_once", len(fds))
        bad = []
        for src, fd in fds:
            size = infos[src].header_int("Size of this header")
            with open(src, "rb") as f:
                want = f.read(size)
            try:
                got = os.pread(fd, 4096, 0)
            except OSError as e:
                got = f"error {e.strerror}"
            if got != want:
                bad.append(f"{src}: {got[:16]!r}")
        ck.ok(not bad, f"{len(bad)} header reads wrong with {len(fds)} files open: {bad[:3]}")
    finally:
        for _, fd in fds:
            os.close(fd)


def run_mode(ck, args, bins, paths, infos):
    started = time.monotonic()
    try:
        with Mount(ck, "/usr", args, prefix=["prlimit", f"--nofile={NOFILE}", "--"]) as m:
            live = time.monotonic() - started
            ck.ok(live < 3, f"mounting /usr took {live:.1f} s")
            check_find(ck, m.path, bins, {b: infos[b] for b in bins})
            check_many_open(ck, m.path, paths, infos)
            ck.ok(m.alive(), "daemon died")
    except MountError as e:
        ck.fail(str(e))
    print(f"mode {args or 'mmap'}: {time.monotonic() - started:.1f} s", flush=True)


def main():
    require_fuse()
    ck = Checker("limits")
    bins = elf_files("/usr/bin", False)
    libs = elf_files("/usr/lib/x86_64-linux-gnu", True)
    paths = (bins + libs)[:OPEN_AT_ONCE]
    ck.ok(len(paths) == OPEN_AT_ONCE, f"only {len(paths)} ELF files in /usr (machine)")
    infos = oracle.readelf(sorted(set(bins + paths)))
    for args in ([], ["-o", "nommap"]):
        run_mode(ck, args, bins, paths, infos)
    ck.finish()


if __name__ == "__main__":
    main()
