#!/usr/bin/python3
"""Scale and descriptor bounds (SPEC section 4): a tree of 1500
distinct ELF files, made here, is mounted by a daemon limited to 1024
descriptors (prlimit --nofile=1024, fewer than the binaries): mounting is
instant, `find` over the view of the tree's bin/ lists exactly the files
readelf predicts, and a reader holding 1500 files of the 1500 different
binaries open at once reads each correctly. In default and -o nommap mode.

The tree needs nothing from the machine's /usr: its binaries are copies of
the fixtures exec, pie and libshared.so, each given its own build id (the
last four bytes of the GNU build-id note's descriptor hold its number), so
no two are the same file or hold the same bytes. bin/ also holds files
that are not ELF and a symlink, which the view leaves out of `find -type f`.
"""

import hashlib
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import elf_oracle as oracle
from elffs_mount import Checker, Mount, MountError, fixture, require_fuse

OPEN_AT_ONCE = 1500
NOFILE = 1024
IN_BIN = 300  # binaries directly in bin/ (what find lists); the others under lib/
PER_LIB_DIR = 100
TEMPLATES = ["exec", "pie", "libshared.so"]

assert OPEN_AT_ONCE > NOFILE  # the point: more binaries open than the daemon has descriptors


def build_id_desc(ck, path):
    """File offset and size of the GNU build-id descriptor of path (readelf -SW)."""
    info = oracle.readelf([path])[path]
    for s in info.sections:
        if s.name == ".note.gnu.build-id":
            # Elf_Nhdr (12 bytes), then "GNU\0", then the descriptor
            return s.off + 16, s.size - 16
    ck.fail(f"{path}: readelf shows no .note.gnu.build-id (fixture)")
    return None


def make_tree(ck, root):
    """OPEN_AT_ONCE distinct binaries under root: [(path, template)]."""
    templates = []
    for name in TEMPLATES:
        src = fixture(name)
        desc = build_id_desc(ck, src)
        if desc is None or desc[1] < 8:
            return []
        with open(src, "rb") as f:
            templates.append((name, bytearray(f.read()), desc[0] + desc[1] - 4))
    made = []
    for i in range(OPEN_AT_ONCE):
        name, data, at = templates[i % len(templates)]
        struct.pack_into("<I", data, at, i)
        if i < IN_BIN:
            rel = os.path.join("bin", f"{name}-{i:04d}")
        else:
            rel = os.path.join("lib", f"d{(i - IN_BIN) // PER_LIB_DIR:02d}", f"{name}-{i:04d}")
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o755)
        made.append(path)
    # left out of the view's regular files: not ELF, empty, a symlink
    with open(os.path.join(root, "bin", "script"), "w") as f:
        f.write("#!/bin/sh\necho not an ELF file\n")
    open(os.path.join(root, "bin", "empty"), "wb").close()
    os.symlink(os.path.basename(made[0]), os.path.join(root, "bin", "link"))
    return made


def raise_own_nofile(ck, need):
    """The reader (this process) must be able to hold `need` descriptors:
    raise its soft limit (and the hard one, which needs CAP_SYS_RESOURCE)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return True
    try:
        if hard != resource.RLIM_INFINITY and hard < need:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, need))
        else:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    except (ValueError, OSError) as e:
        return ck.fail(f"this test must hold {need} descriptors, its limit is {soft} "
                       f"(hard {hard}) and cannot be raised: {e}")
    return True


def check_find(ck, mnt, bins, infos):
    want = sum(2 + max(0, len(infos[b].sections) - 1) + len(infos[b].segments) for b in bins)
    started = time.monotonic()
    try:
        out = subprocess.run(["find", os.path.join(mnt, "bin"), "-type", "f"],
                             capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        ck.fail("find over the view of bin/ did not finish within 60 s")
        return
    ck.eq(out.returncode, 0, f"find exit status ({out.stderr[-300:]!r})")
    # the metadata views (symbols, symbol/, build-id, decompressed/) are counted by test_meta_views,
    # and <binary>/elf by test_bytes
    old = [ln for ln in out.stdout.splitlines()
           if not re.search(rb"/(symbol|decompressed)/[^/]*$|/(symbols|build-id|relocations|elf)$", ln)]
    ck.eq(len(old), want, f"find -type f over bin/ ({len(bins)} binaries): file count")
    ck.count("find_files", len(out.stdout.splitlines()))
    print(f"find over bin/: {time.monotonic() - started:.1f} s", flush=True)


def check_many_open(ck, root, mnt, paths, infos):
    want = {}
    for src in paths:  # read before the views are open: this process's descriptors are counted
        with open(src, "rb") as f:
            want[src] = f.read(infos[src].header_int("Size of this header"))
    fds, failed = [], []
    try:
        for src in paths:
            view = os.path.join(mnt, os.path.relpath(src, root), "header")
            try:
                fds.append((src, os.open(view, os.O_RDONLY)))
            except OSError as e:
                failed.append(f"{view} ({e.strerror}, {len(fds)} open)")
        ck.ok(not failed, f"{len(failed)} of {len(paths)} opens failed with many files open, "
                          f"first: {failed[:2]}")
        ck.count("open_at_once", len(fds))
        bad = []
        for src, fd in fds:
            try:
                got = os.pread(fd, 4096, 0)
            except OSError as e:
                got = f"error {e.strerror}"
            if got != want[src]:
                bad.append(f"{src}: {got[:16]!r}")
        ck.ok(not bad, f"{len(bad)} header reads wrong with {len(fds)} files open: {bad[:3]}")
    finally:
        for _, fd in fds:
            os.close(fd)


def daemon_nofile(pid):
    """The soft RLIMIT_NOFILE of pid, as /proc/PID/limits shows it."""
    try:
        with open(f"/proc/{pid}/limits") as f:
            for line in f:
                if line.startswith("Max open files"):
                    return int(line.split()[3])
    except (OSError, ValueError, IndexError) as e:
        return f"unreadable: {e}"
    return None


def run_mode(ck, args, root, bins, paths, infos):
    started = time.monotonic()
    try:
        with Mount(ck, root, args, prefix=["prlimit", f"--nofile={NOFILE}", "--"]) as m:
            live = time.monotonic() - started
            ck.ok(live < 3, f"mounting the tree took {live:.1f} s")
            ck.eq(daemon_nofile(m.proc.pid), NOFILE, "the daemon's descriptor limit (soft)")
            check_find(ck, m.path, bins, infos)
            check_many_open(ck, root, m.path, paths, infos)
            ck.ok(m.alive(), "daemon died")
    except MountError as e:
        ck.fail(str(e))
    print(f"mode {args or 'mmap'}: {time.monotonic() - started:.1f} s", flush=True)


def main():
    require_fuse()
    ck = Checker("limits")
    if not raise_own_nofile(ck, OPEN_AT_ONCE + 32):
        ck.finish()
    root = tempfile.mkdtemp(prefix="elffs-limits-")
    try:
        started = time.monotonic()
        paths = make_tree(ck, root)
        if len(paths) != OPEN_AT_ONCE:
            ck.fail(f"made {len(paths)} binaries, want {OPEN_AT_ONCE}")
            ck.finish()
        infos = oracle.readelf(paths)
        digests = set()
        for p in paths:
            with open(p, "rb") as f:
                digests.add(hashlib.sha256(f.read()).digest())
        ck.eq(len(digests), OPEN_AT_ONCE, "distinct contents among the binaries made")
        ck.eq(sum(1 for p in paths if "Class" in infos[p].header), OPEN_AT_ONCE,
              "binaries readelf reads")
        bins = [p for p in paths if os.path.dirname(p) == os.path.join(root, "bin")]
        ck.eq(len(bins), IN_BIN, "binaries in bin/")
        print(f"tree of {len(paths)} binaries made and read by readelf: "
              f"{time.monotonic() - started:.1f} s", flush=True)
        for args in ([], ["-o", "nommap"]):
            run_mode(ck, args, root, bins, paths, infos)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
