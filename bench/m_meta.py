"""Measurement 4: metadata.

 - A full `find DIR -printf '%y %s %m %i\\n'` walk (find lstat()s every entry to
   print its size, mode and inode) of a fresh elffs mount of a tree of
   /usr/lib, against the same walk of the tree itself (its inodes and dentries warm
   from an untimed walk first). The mount shows more entries than the source
   (each ELF file becomes a directory of sections and segments): both counts
   are reported, and the same walk of the bare FUSE server bench/treeceiling
   showing a tree of as many directories and entries (with and without
   readdirplus) is the FUSE ceiling of that walk.
 - The first lookup in an object with 70,000 sections: a fresh mount, then
   one stat() of its last section file, timed in this process. The
   baseline is pfelf doing the same work in-process (open, every section
   header, the name lookup), from bench/elfcmp --one.
"""
import os
import subprocess
import time

import mounts
from benchlib import add_lever, add_row, kv, log, median, run

# The walked tree. The mount shows every section, segment and symbol of each
# ELF file as an entry: /usr/lib as a whole becomes millions of entries (a
# walk of several minutes, five times, and as many for the ceiling), so the
# default is a real sub-tree of it: gcc's (compilers, plugins, libraries:
# about 157,000 entries through the mount). ELFFS_BENCH_WALK picks another.
FULL_TREE = "/usr/lib/gcc"
QUICK_TREE = "/usr/lib/x86_64-linux-gnu/gconv"


def _walk(path):
    """Seconds, entries, directories, find's exit status."""
    t0 = time.perf_counter()
    res = subprocess.run(["find", path, "-printf", "%y %s %m %i\n"], capture_output=True)
    secs = time.perf_counter() - t0
    if res.returncode not in (0, 1):  # 1: some entry unreadable; still a full walk
        raise RuntimeError("find %s failed: %s" % (path, res.stderr[-500:]))
    return secs, res.stdout.count(b"\n"), res.stdout.count(b"\nd ") + 1, res.returncode


def _tree_walk(ctx, dirs, entries, plus):
    files = max(1, -(-(entries - 1 - dirs) // dirs))
    argv = [ctx.treeceiling, "--dirs=%d" % dirs, "--files=%d" % files]
    if plus:
        argv.append("--plus")
    with mounts.FuseMount(argv + [ctx.path("mnt-t")], ctx.path("mnt-t"),
                          ctx.path("treeceiling.log")) as m:
        return _walk(m.mnt)[0]


def walk(ctx):
    tree = os.environ.get("ELFFS_BENCH_WALK") or (QUICK_TREE if ctx.quick else FULL_TREE)
    _walk(tree)
    src, mnt, tc, tcp = [], [], [], []
    for r in range(ctx.runs):
        log("metadata walk run %d/%d" % (r + 1, ctx.runs))
        secs, n_src, _, _ = _walk(tree)
        src.append(secs)
        with mounts.elffs(ctx, tree, ctx.path("mnt-m")) as m:
            secs, n_mnt, n_dirs, rc = _walk(m.mnt)
            mnt.append(secs)
            if rc:
                log("find on the mount exited %d (unreadable entries)" % rc)
        tc.append(_tree_walk(ctx, n_dirs - 1, n_mnt, False))
        tcp.append(_tree_walk(ctx, n_dirs - 1, n_mnt, True))
    s, m_, c, cp = median(src), median(mnt), median(tc), median(tcp)
    add_row(ctx, "4a", "find+stat walk of %s, fresh mount vs source" % tree, m_, "s",
            "source walk", s, "<= 3", m_ / s <= 3,
            note="%d entries in the mount, %d in the source; per entry %.2fx" %
            (n_mnt, n_src, (m_ / n_mnt) / (s / n_src)))
    add_row(ctx, "4b", "the same walk, elffs vs FUSE ceiling (%d dirs, %d entries)"
            % (n_dirs, n_mnt), m_, "s", "treeceiling", c, "(info)", None)
    add_lever(ctx, "readdirplus (FUSE ceiling walk)", "treeceiling --plus", cp, "s",
              "treeceiling (LOOKUP per entry)", c)


def first_lookup(ctx, obj, last):
    base = kv(run([ctx.elfcmp, "--one", obj, last, str(max(ctx.runs, 5))]))
    times = []
    for r in range(ctx.runs):
        with mounts.elffs(ctx, os.path.dirname(obj), ctx.path("mnt-l")) as m:
            path = os.path.join(m.mnt, os.path.basename(obj), "sections", last)
            t0 = time.perf_counter()
            os.stat(path)
            times.append((time.perf_counter() - t0) * 1e3)
    ms = median(times)
    add_row(ctx, "4c", "first stat of a section of a 70,000-section object (fresh mount)", ms,
            "ms", "pfelf in-process open+headers+lookup", base["one_pfelf_ms"], "< 100 ms",
            ms < 100, note="libelf in-process: %.1f ms" % base["one_libelf_ms"])


# lsdir: the first `ls -l` of a directory of about 1,200 files on a fresh
# mount (each ELF file is probed to be shown as a directory), against the
# same command on the source and on the bare FUSE server: one directory of
# as many empty files, with and without readdirplus, and with as many of
# them symlinks as the mount shows (`ls -l` reads each link's target: a
# READLINK each, on any FUSE server).
LS_DIR = "/usr/lib/x86_64-linux-gnu"


def _ls(path):
    """Seconds, entries (less "total N"), symlinks."""
    t0 = time.perf_counter()
    res = subprocess.run(["ls", "-l", path], capture_output=True, check=True)
    secs = time.perf_counter() - t0
    return secs, res.stdout.count(b"\n") - 1, res.stdout.count(b"\nl")


def _tree_ls(ctx, files, plus, links=0):
    argv = [ctx.treeceiling, "--dirs=1", "--files=%d" % files, "--links=%d" % links]
    argv += ["--plus"] if plus else []
    with mounts.FuseMount(argv + [ctx.path("mnt-t")], ctx.path("mnt-t"),
                          ctx.path("treeceiling.log")) as m:
        return _ls(m.mnt + "/d0")[0]


def ls_dir(ctx):
    tree = os.environ.get("ELFFS_BENCH_LSDIR") or LS_DIR
    _ls(tree)
    src, mnt, tc, tcp, tcl = [], [], [], [], []
    for r in range(3 * ctx.runs):  # 0.05 to 0.2 s each: more runs against the noise
        log("ls -l run %d/%d" % (r + 1, 3 * ctx.runs))
        secs, n_src, _ = _ls(tree)
        src.append(secs)
        with mounts.elffs(ctx, tree, ctx.path("mnt-ls")) as m:
            secs, n_mnt, n_links = _ls(m.mnt)
            mnt.append(secs)
        tc.append(_tree_ls(ctx, n_mnt, False))
        tcp.append(_tree_ls(ctx, n_mnt, True))
        tcl.append(_tree_ls(ctx, n_mnt, False, n_links))
    s, m_, c, cp, cl = median(src), median(mnt), median(tc), median(tcp), median(tcl)
    add_row(ctx, "14ls", "first ls -l of %s, fresh mount vs source" % tree, m_, "s",
            "source ls -l", s, "(info)", None,
            note="%d entries in the mount, %d in the source; per entry %.2fx" %
            (n_mnt, n_src, (m_ / n_mnt) / (s / n_src)))
    add_row(ctx, "14lt", "the same, elffs vs the bare FUSE server (1 dir of %d files)" % n_mnt,
            m_, "s", "treeceiling", c, "<= 1 per entry", m_ <= c)
    add_row(ctx, "14lu", "the same, elffs vs the bare FUSE server with as many symlinks "
            "(%d files, %d of them symlinks)" % (n_mnt, n_links),
            m_, "s", "treeceiling --links", cl, "<= 1 per entry", m_ <= cl)
    add_lever(ctx, "readdirplus (bare FUSE, ls -l of %d files)" % n_mnt, "treeceiling --plus",
              cp, "s", "treeceiling (LOOKUP per entry)", c)
    add_lever(ctx, "symlinks (bare FUSE, ls -l of %d files)" % n_mnt,
              "treeceiling --links=%d" % n_links, cl, "s", "treeceiling (no symlinks)", c)
