"""Measurement 7: the daemon's resident memory after serving >= 1.3 GB: the
1 GiB section read whole, then every section file of a tree of real
libraries (a copy of the top of /usr/lib/x86_64-linux-gnu), on a fresh
mount; RssAnon and RssFile from /proc/PID/status. The same for -o nommap,
and for the bare FUSE server with and without madvise(MADV_DONTNEED) after
each reply (what releasing served pages costs in throughput)."""
import os

import mounts
from benchlib import (MIB, add_lever, add_row, drop_caches, log, median, proc_status,
                      seq_mbps, warm)

BUDGET_MIB = 128


def _read_all(path):
    n = 0
    with open(path, "rb", buffering=0) as f:
        while True:
            b = f.read(MIB)
            if not b:
                return n
            n += len(b)


def _serve(ctx, mnt):
    """Read the big section and every section of every library; bytes read."""
    total = _read_all(os.path.join(mnt, "big.elf", "sections", ".big"))
    libs = os.path.join(mnt, "libs")
    for lib in sorted(os.listdir(libs)):
        sdir = os.path.join(libs, lib, "sections")
        if not os.path.isdir(sdir):
            continue
        for s in sorted(os.listdir(sdir)):
            total += _read_all(os.path.join(sdir, s))
    return total


def _rss(st):
    return (st.get("RssAnon", 0) + st.get("RssFile", 0)) / 1024.0


def measure(ctx, tree):
    res = {}
    for name, opts in (("elffs", []), ("elffs -o nommap", ["nommap"])):
        with mounts.elffs(ctx, tree, ctx.path("mnt-mem"), opts=opts) as m:
            served = _serve(ctx, m.mnt)
            res[name] = (served, proc_status(m.pid))
        log("%s: served %d bytes, %s" % (name, served, res[name][1]))
    served, st = res["elffs"]
    rss = _rss(st)
    add_row(ctx, "7", "daemon RssAnon+RssFile after serving %.2f GB" % (served / 1e9), rss,
            "MiB", "budget", BUDGET_MIB, "<= 128 MiB", rss <= BUDGET_MIB,
            note="RssAnon %d KiB, RssFile %d KiB, VmHWM %d KiB" %
            (st.get("RssAnon", 0), st.get("RssFile", 0), st.get("VmHWM", 0)))
    nst = res["elffs -o nommap"][1]
    add_lever(ctx, "memory after serving", "elffs -o nommap", _rss(nst), "MiB", "elffs", rss,
              note="RssAnon %d KiB, RssFile %d KiB" % (nst.get("RssAnon", 0),
                                                       nst.get("RssFile", 0)))


def dontneed_cost(ctx, big, off, size):
    """Ceiling, mmap mode, with and without MADV_DONTNEED after each reply
    (and with MADV_POPULATE_READ of the range before it):
    the first read of the section by a fresh server (so that neither finds
    page-table entries left by an earlier run), and its RSS after it."""
    confs = [("ceiling mmap", ["--mode=mmap"]),
             ("ceiling mmap + DONTNEED after reply", ["--mode=mmap", "--dontneed"]),
             ("ceiling mmap + POPULATE_READ before, DONTNEED after reply",
              ["--mode=mmap", "--populate", "--dontneed"])]
    speeds = {n: [] for n, _ in confs}
    rss = {n: [] for n, _ in confs}
    for r in range(ctx.runs):
        for i, (n, a) in enumerate(confs):
            with mounts.ceiling(ctx, big, off, size, ctx.path("mnt-d%d" % i), a) as m:
                drop_caches()
                warm(ctx, big)
                speeds[n].append(seq_mbps(ctx, m.mnt + "/data", 0, size))
                rss[n].append(_rss(proc_status(m.pid)))
    base = confs[0][0]
    for n, _ in confs:
        add_lever(ctx, "DONTNEED after reply (first cold read, MB/s)", n, median(speeds[n]),
                  "MB/s", base, median(speeds[base]))
        add_lever(ctx, "DONTNEED after reply (RSS after it)", n, median(rss[n]), "MiB", base,
                  median(rss[base]))
