"""Measurements 3 and 6 (random part): random 4 KiB reads of the 1 GiB
section, p50/p99 latency with 1 thread and throughput with 8 threads,
through elffs (mmap and -o nommap) against pread of the same bytes in the
source. Before each run the page cache is dropped and the source read back
in, so the mount's reads miss its cache (a random 4 KiB read starts no
readahead) and reach the daemon, while the source's are page-cache hits."""
import contextlib

import mounts
from benchlib import add_lever, add_row, drop_caches, log, median, readbench, warm

BS = 4096


def _counts(ctx):
    # Few enough reads that most miss the mount's cache (1 GiB = 262,144
    # blocks): about 4 % of the 8-thread reads hit a block read before.
    return (2000, 1000) if ctx.quick else (5000, 1500)


def _run(ctx, path, off, size, threads, count, seed):
    return readbench(ctx, "rand", path, off, size, BS, threads, count, seed)


def measure(ctx, big, off, size):
    n1, n8 = _counts(ctx)
    res = {}
    with contextlib.ExitStack() as stack:
        m = stack.enter_context(mounts.elffs(ctx, ctx.path("src"), ctx.path("mnt-r0")))
        n = stack.enter_context(mounts.elffs(ctx, ctx.path("src"), ctx.path("mnt-r1"),
                                             opts=["nommap"]))
        sect = "/big.elf/sections/.big"
        targets = [("source", big, off), ("elffs", m.mnt + sect, 0),
                   ("elffs -o nommap", n.mnt + sect, 0)]
        for r in range(ctx.runs):
            log("random run %d/%d" % (r + 1, ctx.runs))
            for name, path, o in targets:
                drop_caches()
                warm(ctx, big)
                one = _run(ctx, path, o, size, 1, n1, r + 1)
                drop_caches()
                warm(ctx, big)
                eight = _run(ctx, path, o, size, 8, n8, r + 101)
                res.setdefault(name, []).append((one, eight))
    _report(ctx, res)


def _med(runs, which, key):
    return median([r[which][key] for r in runs])


def _report(ctx, res):
    s, e, n = res["source"], res["elffs"], res["elffs -o nommap"]
    for key, label, ident in (("p50_us", "p50", "3a"), ("p99_us", "p99", "3b")):
        add_row(ctx, ident, "random 4K read latency %s, 1 thread, elffs vs source"
                % label, _med(e, 0, key), "us", "source pread", _med(s, 0, key), "(info)", None)
    add_row(ctx, "3t", "random 4K reads, 8 threads, elffs vs source", _med(e, 1, "iops"),
            "reads/s", "source pread", _med(s, 1, "iops"), "(info)", None)
    add_row(ctx, "6c", "random 4K latency p50, -o nommap vs mmap", _med(n, 0, "p50_us"), "us",
            "elffs (mmap)", _med(e, 0, "p50_us"), "(info)", None)
    add_row(ctx, "6d", "random 4K reads 8 threads, -o nommap vs mmap", _med(n, 1, "iops"),
            "reads/s", "elffs (mmap)", _med(e, 1, "iops"), "(info)", None)
    add_lever(ctx, "8-thread random reads", "elffs -o nommap", _med(n, 1, "iops"), "reads/s",
              "elffs", _med(e, 1, "iops"))
