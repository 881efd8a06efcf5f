"""Measurement 4: metadata.

 - A full `find DIR -printf '%s %m %i\\n'` walk (find lstat()s every entry to
   print its size, mode and inode) of a fresh elffs mount of /usr/lib,
   against the same walk of /usr/lib itself (its inodes and dentries warm
   from an untimed walk first). The mount shows more entries than the source
   (each ELF file becomes a directory of sections and segments): both counts
   are reported.
 - The first lookup in an object with 70,000 sections: a fresh mount, then
   one stat() of its last section file, timed in this process. The
   baseline is pfelf doing the same work in-process (open, every section
   header, the name lookup), from bench/elfcmp --one.
"""
import os
import subprocess
import time

import mounts
from benchlib import add_row, kv, log, median, run

USR_LIB = "/usr/lib"
QUICK_TREE = "/usr/lib/x86_64-linux-gnu"


def _walk(path):
    t0 = time.perf_counter()
    res = subprocess.run(["find", path, "-printf", "%s %m %i\n"], capture_output=True)
    secs = time.perf_counter() - t0
    if res.returncode not in (0, 1):  # 1: some entry unreadable; still a full walk
        raise RuntimeError("find %s failed: %s" % (path, res.stderr[-500:]))
    return secs, res.stdout.count(b"\n"), res.returncode


def walk(ctx):
    tree = QUICK_TREE if ctx.quick else USR_LIB
    _walk(tree)
    src, mnt, again = [], [], []
    n_src = n_mnt = 0
    for r in range(ctx.runs):
        log("metadata walk run %d/%d" % (r + 1, ctx.runs))
        secs, n_src, _ = _walk(tree)
        src.append(secs)
        with mounts.elffs(ctx, tree, ctx.path("mnt-m")) as m:
            secs, n_mnt, rc = _walk(m.mnt)
            mnt.append(secs)
            again.append(_walk(m.mnt)[0])
            if rc:
                log("find on the mount exited %d (unreadable entries)" % rc)
    s, m_, a = median(src), median(mnt), median(again)
    add_row(ctx, "4a", "find+stat walk of %s, fresh mount vs source" % tree, m_, "s",
            "source walk", s, "<= 3", m_ / s <= 3,
            note="%d entries in the mount, %d in the source; per entry %.2fx" %
            (n_mnt, n_src, (m_ / n_mnt) / (s / n_src)))
    add_row(ctx, "4b", "second walk of the same mount vs source", a, "s", "source walk", s,
            "(info)", None)


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
