#!/usr/bin/python3
"""Byte equality: every section and segment file of every fixture, of every
ELF file of /usr/bin and of a deterministic sample of
/usr/lib/x86_64-linux-gnu (the largest libraries included) holds exactly
the source's bytes (readelf offsets and sizes, os.pread of the source).
Every fixture must be checked; the machine's files add variety, not a
floor.

usage: test_bytes.py [--nommap]     (mounts with -o nommap)
ELFFS_BYTES_FULL=1 checks all of /usr/lib/x86_64-linux-gnu.
"""

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import elf_oracle as oracle
from elffs_mount import Checker, Mount, MountError, fixtures_dir, require_fuse

LIB_DIR = "/usr/lib/x86_64-linux-gnu"
LIB_SAMPLE = 400
LIB_LARGEST = 8
MAX_FILES_PER_BINARY = 3000  # beyond this (xnum.o), a deterministic sample
WORKERS = 3  # readers in parallel: the daemon is multithreaded
VIEW_TOP = {"info", "header", "elf", "sections", "segments", "symbols", "symbol", "relocations"}
VIEW_OPTIONAL = {"build-id", "decompressed"}  # present when the file has them


def elf_files(root):
    """Relative paths of the regular (not symlinked) ELF files under root."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(d, name)
            if not os.path.islink(path) and os.path.isfile(path) and oracle.is_elf(path):
                out.append(os.path.relpath(path, root))
    return out


def lib_sample(root):
    files = elf_files(root)
    if os.environ.get("ELFFS_BYTES_FULL") == "1":
        return files
    by_size = sorted(files, key=lambda f: (-os.path.getsize(os.path.join(root, f)), f))
    largest, inodes = [], set()
    for f in by_size:  # the largest distinct files (hard links count once)
        ino = os.stat(os.path.join(root, f)).st_ino
        if ino not in inodes and len(largest) < LIB_LARGEST:
            inodes.add(ino)
            largest.append(f)
    rest = [f for f in files if f not in largest]
    step = max(1, len(rest) // LIB_SAMPLE)
    return largest + rest[::step]


def sample(expected):
    if len(expected) <= MAX_FILES_PER_BINARY:
        return expected
    step = len(expected) // MAX_FILES_PER_BINARY + 1
    return expected[::step] + expected[-50:]


def check_binary(ck, view, src, info):
    if not ck.ok(os.path.isdir(view), f"{view}: binary directory missing"):
        ck.count("mismatches")
        return
    ck.count("files")
    top = set(os.listdir(view))
    ck.eq(top - VIEW_OPTIONAL, VIEW_TOP, f"{view}: entries")
    size = os.path.getsize(src)
    fd = os.open(src, os.O_RDONLY)
    try:
        ehsize = info.header_int("Size of this header")
        err = oracle.compare_file(os.path.join(view, "header"), fd, 0, ehsize)
        if not ck.ok(err is None, f"{view}/header: {err}"):
            ck.count("mismatches")
        err = oracle.compare_file(os.path.join(view, "elf"), fd, 0, size)
        if not ck.ok(err is None, f"{view}/elf: {err}"):
            ck.count("mismatches")
        expected = oracle.expected_files(info, size)
        for kind in ("sections", "segments"):
            want = {e[0].split("/", 1)[1] for e in expected if e[0].startswith(kind + "/")}
            try:
                got = set(os.listdir(os.path.join(view, kind)))
            except OSError as e:
                got = set()
                ck.fail(f"{view}/{kind}: {e.strerror}")
            if got != want:
                ck.count("mismatches")
                ck.fail(f"{view}/{kind}: missing {sorted(want - got)[:10]}, "
                        f"unexpected {sorted(got - want)[:10]}")
        for rel, off, length, kind in sample(expected):
            err = oracle.compare_file(os.path.join(view, rel), fd, off, length)
            ck.count(kind + "s")
            ck.count("bytes", length)
            if not ck.ok(err is None, f"{view}/{rel}: {err}"):
                ck.count("mismatches")
    finally:
        os.close(fd)


def check_root(ck, root, rels, args):
    started = time.monotonic()
    infos = oracle.readelf([os.path.join(root, r) for r in rels])
    before = dict(ck.counts)
    try:
        with Mount(ck, root, args) as m:
            def one(rel):
                src = os.path.join(root, rel)
                info = infos.get(src)
                if info is None or "Class" not in info.header:
                    ck.count("unparsable_by_readelf")
                    return
                check_binary(ck, os.path.join(m.path, rel), src, info)

            with ThreadPoolExecutor(WORKERS) as pool:
                list(pool.map(one, rels))
            ck.ok(m.alive(), f"daemon died serving {root}")
    except MountError as e:
        ck.fail(str(e))
    done = {k: v - before.get(k, 0) for k, v in ck.counts.items()}
    print(f"{root}: {done} in {time.monotonic() - started:.1f} s", flush=True)
    return done


def main():
    require_fuse()
    nommap = "--nommap" in sys.argv[1:]
    args = ["-o", "nommap"] if nommap else []
    ck = Checker("bytes" + (" (nommap)" if nommap else " (mmap)"))
    ck.counts = {"files": 0, "sections": 0, "segments": 0, "bytes": 0, "mismatches": 0}
    fixtures = fixtures_dir()
    rels = elf_files(fixtures)
    with open(os.path.join(fixtures, "MANIFEST")) as f:
        listed = [line.split()[0] for line in f if line.strip()]
    ck.ok(set(listed) <= set(rels), f"fixtures not found as ELF files: {set(listed) - set(rels)}")
    done = check_root(ck, fixtures, rels, args)
    # The floor is what the fixtures hold: every one of them checked. The
    # machine's files add variety, never a floor (a fresh Debian has few).
    ck.eq(done.get("files", 0), len(rels), "fixtures checked")
    check_root(ck, "/usr/bin", elf_files("/usr/bin"), args)
    check_root(ck, LIB_DIR, lib_sample(LIB_DIR), args)
    ck.finish()


if __name__ == "__main__":
    main()
