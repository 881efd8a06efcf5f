"""The first walk of a mixed tree (docs/benchmarks.md, "First walk of a mixed tree").

`find DIR -printf '%y %s %m %i\\n'` over a fresh elffs mount of a tree where
most files are not ELF (each regular file is read for its magic to be shown
or left out), against the same find over the tree itself:

 - first walk: the page cache, dentries and inodes dropped (drop_caches 3)
   before the source's walk and before the mount's; against the source's
   cold walk;
 - second walk: the same mount again at once (its listings past the 1 s
   timeout are taken again, the magic answers are kept); against the
   source's warm walk.

Trees: /usr/share (ELFFS_BENCH_SHARE picks another), and a generated tree
(in the work directory, removed after) of 1,000,000 files (quick: 100,000)
in directories of 1,000: 1 in 100 a 64-byte ELF header, the rest 200-byte
text files. A lever: the same first walk without the look ahead of the
walk (ELFFS_PROBE_AHEAD=0, fs/source/ahead.c).

Two floors, in the same run, say what the SPEC's rules leave on this
machine (docs/benchmarks.md, "First walk of a mixed tree"):

 - first walk: the I/O no first walk can skip, outside FUSE: the source's
   cold `find` piped into `readbench heads 16`, which reads the first
   64 bytes of every regular file (a file that is not ELF is left out, so
   each is read) while find still lists;
 - second walk: the bare FUSE server bench/treeceiling (--tree) showing
   the very tree the mount showed (its find's records: the same directories, names
   and order), answered from memory, 1 s timeouts, 10 threads, every
   listing with its attributes (READDIRPLUS_AUTO off: no LOOKUP after a
   listing, the fewest requests a walk can cost), walked twice by the same
   find, the second timed: what FUSE alone costs to revalidate that tree
   after the timeout. A lever: the same with READDIRPLUS_AUTO on (the
   kernel's default policy; elffs turns it off).
"""
import contextlib
import os
import shutil
import struct
import subprocess
import time

import mounts
from benchlib import add_lever, add_row, kv, log, median

SHARE = "/usr/share"
GEN_FILES = 1000000
GEN_FILES_QUICK = 100000
PER_DIR = 1000
ELF_EVERY = 100


def drop_all():
    """Drop the page cache, dentries and inodes."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def find_walk(path, dirs=False, user=()):
    """Seconds and lines of one find walk (and its directories: dirs);
    user: an argv prefix that runs find as another user (setpriv ...)."""
    t0 = time.perf_counter()
    res = subprocess.run(list(user) + ["find", path, "-printf", "%y %s %m %i\n"],
                         capture_output=True)
    secs = time.perf_counter() - t0
    if res.returncode not in (0, 1):
        raise RuntimeError("find %s failed: %s" % (path, res.stderr[-500:]))
    lines = res.stdout.count(b"\n")
    if dirs:
        return secs, lines, res.stdout.count(b"\nd ") + res.stdout.startswith(b"d ")
    return secs, lines


def _io_floor(ctx, tree):
    """Seconds of the first walk's own I/O outside FUSE (cold), files read."""
    drop_all()
    res = None
    with open(ctx.path("io-floor-find.err"), "w+") as errf:
        t0 = time.perf_counter()
        find = subprocess.Popen(["find", tree, "-printf", "%y %s %p\\0"],
                                stdout=subprocess.PIPE, stderr=errf)
        try:
            res = subprocess.run([ctx.readbench, "heads", "16"], stdin=find.stdout,
                                 capture_output=True, text=True)
        finally:
            find.stdout.close()
            if res is None:  # readbench did not run
                find.kill()
            rc = find.wait()
        secs = time.perf_counter() - t0
        errf.seek(0)
        err = errf.read()
    if rc != 0:
        raise RuntimeError("find %s failed (%d): %s" % (tree, rc, err[-500:]))
    if res.returncode != 0:
        raise RuntimeError("readbench heads failed: %s" % res.stderr[-500:])
    got = kv(res.stdout)
    if got["files"] < 1 or got["unreadable"]:
        raise RuntimeError("readbench heads read %d files, %d unreadable" %
                           (got["files"], got["unreadable"]))
    return secs, int(got["files"])


def _fuse_floor(ctx, records, auto=False):
    """Seconds of the second find walk of the bare FUSE server showing the
    tree of records (treeceiling --tree); auto: READDIRPLUS_AUTO on."""
    mnt = ctx.path("mnt-tm")
    argv = [ctx.treeceiling, "--tree=" + records, "--plus" if auto else "--plus-always",
            "--threads=10", mnt]
    with mounts.FuseMount(argv, mnt, ctx.path("treeceiling-walk.log")) as m:
        find_walk(m.mnt)
        time.sleep(1.1)  # past the 1 s timeouts, as the mount's second walk
        return find_walk(m.mnt)[0]


def _records(path, out):
    """The records of the tree at path (find's '%y %P\\0') into file out."""
    with open(out, "wb") as f:
        res = subprocess.run(["find", path, "-mindepth", "1", "-printf", "%y %P\\0"],
                             stdout=f, stderr=subprocess.PIPE)
    if res.returncode not in (0, 1):
        raise RuntimeError("find %s failed: %s" % (path, res.stderr[-500:]))


def elf_header(i):
    """An ELF64 x86-64 ET_REL header without sections; i makes it unique."""
    return (b"\x7fELF" + bytes([2, 1, 1, 0]) + struct.pack("<Q", i) +
            struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, 0, 0, 64, 0, 0, 64, 0, 0))


def generate(top, files):
    os.makedirs(top)
    text = b"".join(b"line %d of a text file\n" % k for k in range(9))[:200]
    for d in range(-(-files // PER_DIR)):
        dd = os.path.join(top, "d%04d" % d)
        os.mkdir(dd)
        for j in range(min(PER_DIR, files - d * PER_DIR)):
            i = d * PER_DIR + j
            with open(os.path.join(dd, "f%04d" % j), "wb") as f:
                f.write(elf_header(i) if i % ELF_EVERY == 0 else text)


def _walks(ctx, tree, env=None, records=None):
    """(source cold, source warm, mount first, mount second, entries src, mnt);
    env: variables for the daemon (a lever); records: a file to write the
    mount's tree to (for treeceiling --tree)."""
    drop_all()
    sc, n_src = find_walk(tree)
    sw, _ = find_walk(tree)
    drop_all()
    env = env or {}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with mounts.elffs(ctx, tree, ctx.path("mnt-w")) as m:
            mc, n_mnt, dirs = find_walk(m.mnt, dirs=True)
            ms, _ = find_walk(m.mnt)
            if records:
                _records(m.mnt, records)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return sc, sw, mc, ms, n_src, n_mnt, dirs


def _tree(ctx, tree, ident, label):
    runs = [[] for _ in range(4)]
    serial, io_floor, fuse_floor, fuse_auto = [], [], [], []
    records = ctx.path("walk-tree.rec")
    for r in range(ctx.runs):
        log("walk of %s, run %d/%d" % (label, r + 1, ctx.runs))
        # the mount shows the same tree in every run: its records once
        got = _walks(ctx, tree, records=records if r == 0 else None)
        for k in range(4):
            runs[k].append(got[k])
        n_src, n_mnt, dirs = got[4], got[5], got[6]
        serial.append(_walks(ctx, tree, env={"ELFFS_PROBE_AHEAD": "0"})[2])
        secs, n_read = _io_floor(ctx, tree)
        io_floor.append(secs)
        fuse_floor.append(_fuse_floor(ctx, records))
        fuse_auto.append(_fuse_floor(ctx, records, auto=True))
    os.unlink(records)
    sc, sw, mc, ms = (median(v) for v in runs)
    se, fi, ff, fa = median(serial), median(io_floor), median(fuse_floor), median(fuse_auto)
    add_row(ctx, ident + "a", "first find walk of %s, fresh mount, cold caches" % label, mc,
            "s", "source walk, cold", sc, "<= 2", mc / sc <= 2,
            note="%d entries in the mount, %d in the source; without the look ahead "
            "%.2f s" % (n_mnt, n_src, se))
    add_row(ctx, ident + "b", "second find walk of %s, same mount" % label, ms, "s",
            "source walk, warm", sw, "<= 2", ms / sw <= 2)
    add_row(ctx, ident + "f1", "floor of the first walk of %s: its own I/O outside FUSE "
            "(cold find + first 64 bytes of %d regular files, 16 at a time)" % (label, n_read),
            fi, "s", "source walk, cold", sc, "(info)", None,
            note="the mount's first walk is %.2fx this floor" % (mc / fi))
    add_row(ctx, ident + "f2", "floor of the second walk of %s: the bare FUSE server showing "
            "the mount's tree (%d dirs, %d entries; every listing with its attributes), "
            "second find walk" % (label, dirs, n_mnt), ff, "s", "source walk, warm", sw,
            "(info)", None, note="the mount's second walk is %.2fx this floor" % (ms / ff))
    add_lever(ctx, "attributes with every listing (second walk's floor, %s)" % label,
              "READDIRPLUS_AUTO off (the floor)", ff, "s",
              "READDIRPLUS_AUTO on (kernel default)", fa)
    add_lever(ctx, "look ahead (first walk of %s)" % label,
              "look ahead on (default)", mc, "s",
              "look ahead off (ELFFS_PROBE_AHEAD=0)", se)


def share_tree():
    """The real tree of the walks (ELFFS_BENCH_SHARE, default /usr/share)."""
    return os.environ.get("ELFFS_BENCH_SHARE") or SHARE


@contextlib.contextmanager
def generated(ctx, name="walk-gen", files=None):
    """A generated tree in the work directory (of the walk group's size
    unless files is given), (path, files), removed after."""
    files = files or (GEN_FILES_QUICK if ctx.quick else GEN_FILES)
    top = ctx.path(name)
    shutil.rmtree(top, ignore_errors=True)
    log("generating %d files in %s" % (files, top))
    try:
        generate(top, files)
        yield top, files
    finally:
        shutil.rmtree(top, ignore_errors=True)


def measure(ctx):
    share = share_tree()
    _tree(ctx, share, "15s", share)
    with generated(ctx) as (top, files):
        _tree(ctx, top, "15g", "a generated tree of %d files" % files)
