"""Measurements 1, 2 and 6 (sequential part): a >= 1 GiB section read whole,
cold (the mount's page cache dropped, the source's page cache warm) and warm
(read again at once), through elffs, through the bare FUSE server (the
ceiling) and with pread(2) from the source (the physical limit).

Every target is mounted at the same time and the runs are interleaved
(run 1 of every target, then run 2, ...) so that the machine's drift hits
them all alike. Before each cold read: sync, echo 1 > drop_caches (the whole
page cache), then the source file is read whole again so that it is
resident; the mount's file is then 0 % resident (checked with mincore)."""
import contextlib

import mounts
from benchlib import (add_lever, add_row, drop_caches, log, median, proc_status,
                      resident_pct, seq_mbps, warm)

WARM_CEILING = "ceiling mmap, 2 threads, readahead 1M, keep_cache"
# Candidates for the FUSE ceiling, all with the page cache in use like elffs
# (a file that can be mmapped and cached). The best median is the ceiling.
CEILINGS = [
    ("ceiling mmap, 2 threads, readahead 128K", ["--mode=mmap", "--threads=2"], None),
    ("ceiling mmap, 2 threads, readahead 1M", ["--mode=mmap", "--threads=2"], 1024),
    ("ceiling mmap, 2 threads, readahead 1M, splice",
     ["--mode=mmap", "--threads=2", "-o", "splice_write,splice_move"], 1024),
    ("ceiling fd+splice, 2 threads, readahead 1M",
     ["--mode=fd", "--threads=2", "-o", "splice_write,splice_move"], 1024),
    (WARM_CEILING, ["--mode=mmap", "--threads=2", "--keep-cache"], 1024),
]
# Not a candidate (no page cache, no shared mmap) but the fastest cold path.
DIRECT_IO = ("ceiling mmap, 2 threads, direct_io (1 MiB requests)",
             ["--mode=mmap", "--threads=2", "--direct-io"], None)

ELFFS = [
    ("elffs", {}, None),
    ("elffs -o readahead=0 (the kernel's 128K)", {"opts": ["readahead=0"]}, None),
    ("elffs -o readahead=4096", {"opts": ["readahead=4096"]}, None),
    ("elffs -s (1 thread)", {"single": True}, None),
    ("elffs -o nommap", {"opts": ["nommap"]}, None),
]


class Target:
    def __init__(self, name, path, offset, mount=None):
        self.name = name
        self.path = path
        self.offset = offset
        self.mount = mount
        self.cold, self.warm, self.resident = [], [], []


def _mount_all(ctx, stack, big, off, size):
    src_dir = ctx.path("src")
    targets = [Target("direct pread", big, off)]
    for i, (name, args, ra) in enumerate(CEILINGS + [DIRECT_IO]):
        m = stack.enter_context(mounts.ceiling(ctx, big, off, size, ctx.path("mnt-c%d" % i),
                                               args))
        if ra:
            m.set_readahead_kb(ra)
        targets.append(Target(name, m.mnt + "/data", 0, m))
    for i, (name, kw, ra) in enumerate(ELFFS):
        m = stack.enter_context(mounts.elffs(ctx, src_dir, ctx.path("mnt-e%d" % i), **kw))
        if ra:
            m.set_readahead_kb(ra)
        targets.append(Target(name, m.mnt + "/big.elf/sections/.big", 0, m))
    return targets


def _one_run(ctx, t, big, size):
    drop_caches()
    warm(ctx, big)
    if t.mount and "direct_io" not in t.name:  # direct_io files cannot be mmapped
        t.resident.append(resident_pct(ctx, t.path))
    t.cold.append(seq_mbps(ctx, t.path, t.offset, size))
    t.warm.append(seq_mbps(ctx, t.path, t.offset, size))


def measure(ctx, big, off, size):
    with contextlib.ExitStack() as stack:
        targets = _mount_all(ctx, stack, big, off, size)
        for t in targets:
            if t.mount:
                log("%s: readahead %d KiB" % (t.name, t.mount.readahead_kb()))
        for r in range(ctx.runs):
            log("sequential run %d/%d" % (r + 1, ctx.runs))
            for t in targets:
                _one_run(ctx, t, big, size)
        rss = {t.name: proc_status(t.mount.pid) for t in targets if t.mount}
    _report(ctx, {t.name: t for t in targets}, rss, size)


def _report(ctx, by, rss, size):
    med = {n: (median(t.cold), median(t.warm)) for n, t in by.items()}
    direct = med["direct pread"][0]
    best = max((n for n, _, _ in CEILINGS), key=lambda n: med[n][0])
    ceil = med[best][0]
    e_cold, e_warm = med["elffs"]
    gib = size / (1 << 30)
    note = "%.2f GiB section, 1 MiB reads, MB/s" % gib
    add_row(ctx, "1a", "cold sequential read, elffs vs FUSE ceiling", e_cold, "MB/s",
            best, ceil, ">= 0.9", e_cold / ceil >= 0.9, note=note)
    add_row(ctx, "1b", "cold sequential read, elffs vs direct pread", e_cold, "MB/s",
            "direct pread", direct, ">= 0.45", e_cold / direct >= 0.45, note=note)
    add_row(ctx, "1c", "cold sequential read, FUSE ceiling vs direct pread", ceil, "MB/s",
            "direct pread", direct, "(info)", None, note=best)
    res = median(by["elffs"].resident)
    add_row(ctx, "2", "warm sequential read, elffs vs direct pread", e_warm, "MB/s",
            "direct pread", direct, ">= 0.9", e_warm / direct >= 0.9,
            note="mount file %.0f %% resident before the cold read" % res)
    n_cold, n_warm = med["elffs -o nommap"]
    w = med[WARM_CEILING][1]
    add_row(ctx, "2c", "warm sequential read, FUSE ceiling (keep_cache) vs direct pread", w,
            "MB/s", "direct pread", direct, "(info)", None, note=WARM_CEILING)
    add_row(ctx, "6a", "cold sequential read, -o nommap vs mmap", n_cold, "MB/s", "elffs (mmap)",
            e_cold, "(info)", None)
    add_row(ctx, "6b", "warm sequential read, -o nommap vs mmap", n_warm, "MB/s", "elffs (mmap)",
            e_warm, "(info)", None)
    for name, _, _ in CEILINGS + [DIRECT_IO]:
        add_lever(ctx, "FUSE ceiling (cold)", name, med[name][0], "MB/s", "direct pread", direct)
    for name, _, _ in ELFFS[1:]:
        add_lever(ctx, "elffs (cold)", name, med[name][0], "MB/s", "elffs", e_cold)
        add_lever(ctx, "elffs (warm)", name, med[name][1], "MB/s", "elffs", e_warm)
    for name in (n for n, _, _ in CEILINGS[:1] + ELFFS[:1]):
        st = rss[name]
        add_lever(ctx, "RSS after %d cold+warm reads of the section" % ctx.runs, name,
                  (st.get("RssAnon", 0) + st.get("RssFile", 0)) / 1024, "MiB", "", 0,
                  note="RssAnon %d KiB, RssFile %d KiB" % (st.get("RssAnon", 0),
                                                           st.get("RssFile", 0)))
    ctx.series["seq"] = {n: {"cold": med[n][0], "warm": med[n][1]} for n in med}
    ctx.series["seq_ceiling"] = best
