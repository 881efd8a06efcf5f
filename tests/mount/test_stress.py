#!/usr/bin/python3
"""Concurrency stress on a real tree: a temporary directory holding every ELF
fixture (copies) and a deterministic sample of ~200 libraries of
/usr/lib/x86_64-linux-gnu (copies of those of at most 8 MiB) is
mounted (default and -o nommap). Its floors are met by the fixtures alone
(they give more than 2,000 non-empty section and segment files); the
machine's libraries only add variety. For a bounded time per mode, 8 reader
threads open random section and segment files of the tree, read random ranges and verify every byte against os.pread of
the source at the offset readelf -SlW gives; 2 more threads do lookups
(stat of random nodes, listings of sections/ and segments/, getxattr),
and one drops the kernel's dentry and inode caches every 0.5 s
(echo 2 > /proc/sys/vm/drop_caches), so the daemon sees forgets of nodes
in use by the others. No call may fail or take more than 5 s, no byte may
differ. Then, while 8 readers still read from open files, `fusermount3 -uz`
detaches the mount: the reads in flight and after go on giving the right
bytes, and once the readers close their files the daemon exits 0 and
leaves no mount; 8 more short mounts per mode are lazily unmounted with
four files open (a sanitized daemon must report no leak of them).

usage: test_stress.py [SECONDS_PER_MODE]   (default 12, or ELFFS_STRESS_SECONDS)
"""

import errno
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import elf_oracle as oracle
from elffs_mount import (Checker, Mount, MountError, daemon_ended, drop_caches, fixture,
                         fixtures_dir, mount_entry, require_fuse)
from test_hostile import Walker

LIB_DIR = "/usr/lib/x86_64-linux-gnu"
SAMPLE = 200
LIB_MAX_SIZE = 8 << 20  # the sample is copied: about 90 MB
READERS = 8
LOOKERS = 2
SIZES = [1, 17, 512, 4096, 4097, 65536, 131072, 300000, 1 << 20]


def sample_libs():
    """Every len/SAMPLE-th shared library directly in LIB_DIR (not symlinks) of
    at most LIB_MAX_SIZE bytes."""
    out = []
    for name in sorted(os.listdir(LIB_DIR)):
        path = os.path.join(LIB_DIR, name)
        if ".so" in name and not os.path.islink(path) and os.path.isfile(path) and \
                os.path.getsize(path) <= LIB_MAX_SIZE and oracle.is_elf(path):
            out.append(path)
    step = max(1, len(out) // SAMPLE)
    return out[::step][:SAMPLE]


def fixture_elfs():
    """Every ELF file among the fixtures (regular files, not links)."""
    d = fixtures_dir()
    return [os.path.join(d, n) for n in sorted(os.listdir(d))
            if os.path.isfile(os.path.join(d, n)) and not os.path.islink(os.path.join(d, n))
            and oracle.is_elf(os.path.join(d, n))]


def make_tree(root):
    """The stressed tree in root: fixtures/ (copies) and lib/ (the sample);
    returns (number of fixtures, number of libraries)."""
    fix, lib = os.path.join(root, "fixtures"), os.path.join(root, "lib")
    os.mkdir(fix)
    os.mkdir(lib)
    fixtures = fixture_elfs()
    for path in fixtures:
        shutil.copyfile(path, os.path.join(fix, os.path.basename(path)))
    # Copies, not hard links: a link changes the ctime of the system
    # library, and a mount of it by another test running beside this one
    # then takes it for a changed file (a new generation, whose old nodes
    # answer ENOENT): a stress run saw getxattr fail that way.
    libs = sample_libs()
    for path in libs:
        shutil.copyfile(path, os.path.join(lib, os.path.basename(path)))
    return len(fixtures), len(libs)


def ranges(root):
    """[(mounted relative path, source path, offset, size)] of every non-empty
    section and segment of the files of the tree, by readelf."""
    out = []
    paths = [os.path.join(d, n) for d, _, names in os.walk(root) for n in sorted(names)]
    for src, info in oracle.readelf(sorted(paths)).items():
        if "Class" not in info.header:
            continue
        size = os.path.getsize(src)
        rel = os.path.relpath(src, root)
        for f, off, length, _ in oracle.expected_files(info, size):
            if length:
                out.append((os.path.join(rel, f), src, off, length))
    return out


class Sources:
    """One descriptor per source file, for os.pread."""

    def __init__(self, files):
        self.fds = {src: os.open(src, os.O_RDONLY) for src in {f[1] for f in files}}

    def read(self, src, off, n):
        return os.pread(self.fds[src], n, off)

    def close(self):
        for fd in self.fds.values():
            os.close(fd)


def verify(ck, stats, what, got, want):
    if got == want:
        with stats["lock"]:
            stats["bytes"] += len(got)
        return True
    k = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]),
             min(len(got), len(want)))
    ck.fail(f"{what}: {len(got)} bytes read, {len(want)} expected, first difference at {k}")
    with stats["lock"]:
        stats["mismatches"] += 1
    return False


def read_some(ck, w, srcs, stats, rng, item, fd=None):
    """Read 1-4 random ranges of one file (opened here unless fd is given)."""
    rel, src, off, length = item
    path = os.path.join(w.mnt, rel)
    own = fd is None
    if own:
        fd, _ = w.call(f"open {rel}", os.open, path, os.O_RDONLY)
        if fd is None:
            return
    try:
        for _ in range(rng.randrange(1, 5)):
            pos = rng.randrange(length)
            n = rng.choice(SIZES)
            got, _ = w.call(f"pread {rel} {n}@{pos}", os.pread, fd, n, pos)
            if got is None:
                return
            verify(ck, stats, f"{rel} {n}@{pos}", got, srcs.read(src, off + pos,
                                                               min(n, length - pos)))
            with stats["lock"]:
                stats["reads"] += 1
    finally:
        if own:
            os.close(fd)


def pick(rng, files):
    """A random file of a random binary (xnum.o alone has 65,000 sections:
    a choice among all files would read little else)."""
    by_bin = files.by_bin
    return rng.choice(by_bin[rng.choice(files.bins)])


class Files(list):
    """The (relative path, source, offset, size) list, also by binary."""

    def __init__(self, items):
        super().__init__(items)
        self.by_bin = {}
        for f in items:
            self.by_bin.setdefault(f[1], []).append(f)
        self.bins = sorted(self.by_bin)


def reader(ck, w, srcs, files, stats, stop, seed):
    rng = random.Random(seed)
    while not stop.is_set() and not w.dead:
        read_some(ck, w, srcs, stats, rng, pick(rng, files))


def looker(ck, w, files, stats, stop, seed):
    rng = random.Random(seed)
    while not stop.is_set() and not w.dead:
        rel = pick(rng, files)[0]
        path = os.path.join(w.mnt, rel)
        w.call(f"stat {rel}", os.stat, path)
        w.call(f"listdir {rel}", os.listdir, os.path.dirname(path))
        w.call(f"getxattr {rel}", os.getxattr, path, "user.elf.index")
        w.call(f"stat {rel} view", os.stat, os.path.join(w.mnt, rel.split("/sections/")[0]
                                                         .split("/segments/")[0], "info"))
        with stats["lock"]:
            stats["lookups"] += 1


def dropper(stats, stop):
    while not stop.wait(0.5):
        try:
            drop_caches()
            stats["drops"] += 1
        except OSError as e:
            print(f"NOTE: cannot drop caches: {e.strerror}", flush=True)
            return


def run_threads(targets):
    threads = [threading.Thread(target=t, args=a) for t, a in targets]
    for t in threads:
        t.start()
    return threads


def phase_load(ck, w, srcs, files, seconds):
    stats = {"lock": threading.Lock(), "bytes": 0, "reads": 0, "lookups": 0, "mismatches": 0,
             "drops": 0}
    stop = threading.Event()
    threads = run_threads([(reader, (ck, w, srcs, files, stats, stop, k))
                           for k in range(READERS)] +
                          [(looker, (ck, w, files, stats, stop, 100 + k))
                           for k in range(LOOKERS)] + [(dropper, (stats, stop))])
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    del stats["lock"]
    return stats


def phase_unmount(ck, w, m, srcs, files):
    """fusermount3 -uz while 8 readers read from files they hold open."""
    stats = {"lock": threading.Lock(), "bytes": 0, "reads": 0, "mismatches": 0}
    stop, started = threading.Event(), threading.Barrier(READERS + 1)

    def hold(seed):
        rng = random.Random(1000 + seed)
        item = rng.choice([f for f in files if f[3] >= 65536] or files)
        fd, _ = w.call(f"open {item[0]}", os.open, os.path.join(w.mnt, item[0]), os.O_RDONLY)
        started.wait()
        if fd is None:
            return
        try:
            while not stop.is_set() and not w.dead:
                read_some(ck, w, srcs, stats, rng, item, fd)
        finally:
            os.close(fd)

    threads = run_threads([(hold, (k,)) for k in range(READERS)])
    started.wait()
    time.sleep(0.5)
    before = stats["reads"]
    out = subprocess.run(["fusermount3", "-uz", m.path], capture_output=True, text=True)
    ck.eq(out.returncode, 0, f"fusermount3 -uz while reading: {out.stderr.strip()}")
    ck.ok(mount_entry(m.path) is None, "mount still in mountinfo after fusermount3 -uz")
    time.sleep(1.0)
    after = stats["reads"]
    ck.ok(after > before, f"reads stopped at the lazy unmount ({before} -> {after})")
    ck.ok(m.alive(), "daemon exited while files were still open")
    stop.set()
    for t in threads:
        t.join()
    daemon_ended(ck, m, "the last file of a lazy unmount closed")
    del stats["lock"]
    return stats


def run_mode(ck, args, root, files, seconds):
    srcs = Sources(files)
    try:
        with Mount(ck, root, args, check_exit=False) as m:  # exit checked here
            w = Walker(ck, m.path, m.proc.pid)
            w.allowed = set()
            try:
                load = phase_load(ck, w, srcs, files, seconds)
                ck.ok(m.alive(), "daemon died under load")
                um = phase_unmount(ck, w, m, srcs, files)
            finally:
                w.stop()
            if daemon_ended(ck, m, "the lazy unmount"):
                ck.eq(m.proc.poll(), 0, f"daemon exit status after the lazy unmount: "
                                        f"{m.output()}")
            ck.ok(mount_entry(m.path) is None, "mount left behind after the lazy unmount")
            for k, v in load.items():
                ck.count("bytes_verified" if k == "bytes" else k, v)
            ck.count("bytes_verified", um["bytes"])
            ck.count("mismatches", um["mismatches"])
            print(f"mode {args or 'mmap'}: load {load}, during the lazy unmount {um}, "
                  f"{w.ops} calls, errors {dict(w.errors)}, slowest {w.slowest[0]:.2f} s "
                  f"({w.slowest[1]})", flush=True)
    except MountError as e:
        ck.fail(str(e))
    finally:
        srcs.close()


def lazy_unmounts(ck, args, rounds=8):
    """fusermount3 -uz with files open, then close them: each time the daemon
    exits 0, leaves no mount and (sanitized build) reports no leak of the
    files that were open (Mount.stop scans its output)."""
    src = fixture("libshared.so")
    for r in range(rounds):
        try:
            with Mount(ck, os.path.realpath(src), args, check_exit=False) as m:
                fds = [os.open(os.path.join(m.path, d), os.O_RDONLY)
                       for d in ("sections/.text", "sections/.rodata", "segments/01-LOAD",
                                 "info")]
                for fd in fds:
                    os.pread(fd, 4096, 0)
                subprocess.run(["fusermount3", "-uz", m.path], check=True)
                for fd in fds:
                    os.close(fd)
                if daemon_ended(ck, m, "the lazy unmount and the last close"):
                    ck.eq(m.proc.poll(), 0, f"daemon exit status after a lazy unmount (output "
                                            f"ends {m.output()[-300:]!r})")
        except (MountError, OSError, subprocess.CalledProcessError) as e:
            ck.fail(f"lazy unmount round {r}: {e}")
        ck.count("lazy_unmounts")


def main():
    require_fuse()
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    seconds = float(args[0] if args else os.environ.get("ELFFS_STRESS_SECONDS", "12"))
    ck = Checker("stress")
    ck.counts = {"bytes_verified": 0, "reads": 0, "lookups": 0, "mismatches": 0, "drops": 0}
    root = tempfile.mkdtemp(prefix="elffs-stress-")
    try:
        nfix, nlibs = make_tree(root)
        files = Files(ranges(root))
        from_fixtures = sum(1 for f in files if f[0].startswith("fixtures/"))
        ck.ok(nfix >= 10 and from_fixtures > 2000,
              f"only {nfix} fixtures giving {from_fixtures} files")
        print(f"{nfix} fixtures and {nlibs} libraries, {len(files)} section and segment "
              f"files ({from_fixtures} of the fixtures)", flush=True)
        for mode in ([], ["-o", "nommap"]):
            run_mode(ck, mode, root, files, seconds)
            lazy_unmounts(ck, mode)
    finally:
        shutil.rmtree(root)
    ck.eq(ck.counts["mismatches"], 0, "mismatches")
    ck.ok(ck.counts["bytes_verified"] > 0, "no byte verified")
    ck.finish()


if __name__ == "__main__":
    main()
