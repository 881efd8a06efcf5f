"""io: the I/O policy of section files (fs/tree/iopolicy.c). What users
run on a 1 GiB section, cold (the mount's page cache dropped, the source's
warm) and warm (the same command again at once), through elffs with
st_blksize 4096 (page cache, `-o iosize=4096`), by default (page
cache, st_blksize 1 MiB), with `-o direct_io=on` (FOPEN_DIRECT_IO), through
the bare FUSE server (page cache with keep_cache, and direct_io), against a
direct pread of the same bytes of the source in the same run:

 - `dd if=FILE of=/dev/null bs=1M` and `cat FILE > /dev/null` (cat's own
   buffer: max(128 KiB, st_blksize)), timed as whole commands;
 - `objcopy --dump-section .big=/dev/null SOURCE /dev/null`: what a user
   does without the mount;
 - direct I/O levers with `dd bs=1M` and `bs=4M` (one request of 1 MiB at a
   time, or four in flight): -s, clone_fd, max_threads=2, max_read=128 KiB;
 - page-cache levers with `dd bs=1M` and `cat`: the request size
   (`-o max_read=`, 128 and 256 KiB against libfuse's 1 MiB) and the
   readahead window (`-o readahead=4096`: four 1 MiB requests in flight);
 - random 4 KiB reads, 1 thread: p50 cold (each read a request) and the
   same offsets again (warm: served by the page cache without a request
   where the mount caches, a request each under direct I/O);
 - small sequential reads, the default against direct I/O: `dd bs=4k` of
   the first 128 MiB and `tar cf - FILE` (10 KiB reads) of the section,
   cold and warm: what direct I/O costs a reader of small pieces (each read
   a request), the reason it is not the default.
Every target is mounted at once and the runs are interleaved.
"""
import contextlib
import subprocess
import time

import mounts
from inputs import BIG_OFFSET as BIG_OFF
from benchlib import (add_lever, add_row, drop_caches, log, median, readbench, seq_mbps,
                      warm)

BLK4K = "elffs page cache, blksize 4096"
DEFAULT = "elffs default (page cache, blksize 1M)"
DIO = "elffs -o direct_io=on"
ELFFS = [
    (BLK4K, {"opts": ["iosize=4096"]}),
    (DEFAULT, {}),
    (DIO, {"opts": ["direct_io=on"]}),
    ("elffs -o direct_io=on,iosize=4096", {"opts": ["direct_io=on", "iosize=4096"]}),
]
# direct I/O levers: request size and threads (dd only)
DIO_LEVERS = [
    ("elffs -o direct_io=on -s (1 thread)", {"opts": ["direct_io=on"], "single": True}),
    ("elffs -o direct_io=on,clone_fd", {"opts": ["direct_io=on", "clone_fd"]}),
    ("elffs -o direct_io=on,max_threads=2", {"opts": ["direct_io=on", "max_threads=2"]}),
    ("elffs -o direct_io=on,max_read=131072", {"opts": ["direct_io=on", "max_read=131072"]}),
]
# page-cache levers: request size and readahead window (dd and cat)
PC_LEVERS = [
    ("elffs -o max_read=131072", {"opts": ["max_read=131072"]}),
    ("elffs -o max_read=262144", {"opts": ["max_read=262144"]}),
    ("elffs -o readahead=4096", {"opts": ["readahead=4096"]}),
]
CEIL_PC = "bare FUSE, page cache (readahead 1M, keep_cache)"
CEIL_DIO = "bare FUSE, direct_io"
CEIL_DIO128 = "bare FUSE, direct_io, max_read=131072"
CEILINGS = [
    (CEIL_PC, ["--mode=mmap", "--threads=2", "--keep-cache"], 1024),
    (CEIL_DIO, ["--mode=mmap", "--threads=2", "--direct-io"], None),
    (CEIL_DIO128, ["--mode=mmap", "--threads=2", "--direct-io", "--max-read=131072",
                    "-o", "max_read=131072"], None),
]


def _timed_mbps(argv, size):
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return size / (time.perf_counter() - t0) / 1e6


def _dd(path, size, bs="1M"):
    return ["dd", "if=" + path, "of=/dev/null", "bs=" + bs]


def _cat(path, size):
    return ["cat", path]


SMALL_BYTES = 128 << 20  # dd bs=4k reads this much


def _dd4k(path, size):
    return ["dd", "if=" + path, "of=/dev/null", "bs=4k", "count=%d" % (SMALL_BYTES // 4096)]


def _tar(path, size):
    return ["sh", "-c", 'tar cf - "$0" | cat > /dev/null', path]


def _cold_warm(ctx, big, argv, size, out, res):
    drop_caches()
    warm(ctx, big)
    # the baseline beside every target: the machine's load drifts
    res.setdefault("direct pread", []).append(seq_mbps(ctx, big, BIG_OFF, size))
    out.setdefault("cold", []).append(_timed_mbps(argv, size))
    out.setdefault("warm", []).append(_timed_mbps(argv, size))


def _seq(ctx, stack, big, off, size):
    src_dir = ctx.path("src")
    paths = {}
    for i, (name, kw) in enumerate(ELFFS + DIO_LEVERS + PC_LEVERS):
        m = stack.enter_context(mounts.elffs(ctx, src_dir, ctx.path("mnt-io%d" % i), **kw))
        paths[name] = m.mnt + "/big.elf/sections/.big"
    for i, (name, args, ra) in enumerate(CEILINGS):
        m = stack.enter_context(mounts.ceiling(ctx, big, off, size, ctx.path("mnt-ioc%d" % i),
                                               args))
        if ra:
            m.set_readahead_kb(ra)
        paths[name] = m.mnt + "/data"
    res = {}
    objcopy = ["objcopy", "--dump-section", ".big=/dev/null", big, "/dev/null"]
    dd_src = ["dd", "if=" + big, "of=/dev/null", "bs=1M", "iflag=skip_bytes,count_bytes",
              "skip=%d" % off, "count=%d" % size]
    for r in range(ctx.runs):
        log("io run %d/%d" % (r + 1, ctx.runs))
        drop_caches()
        warm(ctx, big)
        res.setdefault("dd of the source", []).append(_timed_mbps(dd_src, size))
        res.setdefault("objcopy", []).append(_timed_mbps(objcopy, size))
        for name, _ in ELFFS + PC_LEVERS:
            _cold_warm(ctx, big, _dd(paths[name], size), size,
                       res.setdefault(("dd", name), {}), res)
            _cold_warm(ctx, big, _cat(paths[name], size), size,
                       res.setdefault(("cat", name), {}), res)
        for name, _, _ in CEILINGS:
            _cold_warm(ctx, big, _dd(paths[name], size), size,
                       res.setdefault(("dd", name), {}), res)
        for name, _ in [(DIO, None)] + DIO_LEVERS:
            _cold_warm(ctx, big, _dd(paths[name], size, "4M"), size,
                       res.setdefault(("dd4", name), {}), res)
        for name, _ in DIO_LEVERS:
            _cold_warm(ctx, big, _dd(paths[name], size), size,
                       res.setdefault(("dd", name), {}), res)
        for name in (DEFAULT, DIO):
            _cold_warm(ctx, big, _dd4k(paths[name], size), min(size, SMALL_BYTES),
                       res.setdefault(("dd4k", name), {}), res)
            _cold_warm(ctx, big, _tar(paths[name], size), size,
                       res.setdefault(("tar", name), {}), res)
    return res, paths


def _rand(ctx, big, off, size, paths):
    """p50 of 1-thread random 4 KiB reads: cold, then the same offsets again."""
    n = 1000 if ctx.quick else 3000
    res = {}
    for r in range(ctx.runs):
        for name, path, o in [("source", big, off)] + [(nm, paths[nm], 0)
                                                       for nm in (BLK4K, DEFAULT, DIO)]:
            drop_caches()
            warm(ctx, big)
            cold = readbench(ctx, "rand", path, o, size, 4096, 1, n, r + 1)["p50_us"]
            again = readbench(ctx, "rand", path, o, size, 4096, 1, n, r + 1)["p50_us"]
            res.setdefault(name, {}).setdefault("cold", []).append(cold)
            res[name].setdefault("warm", []).append(again)
    return {k: {w: median(v) for w, v in d.items()} for k, d in res.items()}


def measure(ctx, big, off, size):
    with contextlib.ExitStack() as stack:
        res, paths = _seq(ctx, stack, big, off, size)
        rnd = _rand(ctx, big, off, size, paths)
    _report(ctx, res, rnd)


def _report(ctx, res, rnd):
    direct = median(res["direct pread"])
    med = {k: {w: median(v) for w, v in d.items()} for k, d in res.items()
           if isinstance(k, tuple)}
    ident = iter("abcdefghijklmnopqrstuvwxyz")
    for tool, goal_cold in (("dd", 0.40), ("cat", 0.35)):
        for name in (BLK4K, DEFAULT, DIO):
            c, w = med[(tool, name)]["cold"], med[(tool, name)]["warm"]
            k = next(ident)
            add_row(ctx, "14" + k, "cold %s of the 1 GiB section, %s" % (
                "dd bs=1M" if tool == "dd" else "cat", name), c, "MB/s", "direct pread",
                direct, ">= %.2f" % goal_cold, c / direct >= goal_cold)
            add_row(ctx, "14" + k + "w", "warm %s, %s" % (tool, name), w, "MB/s",
                    "direct pread", direct, ">= 0.50", w / direct >= 0.5)
    for name in (CEIL_PC, CEIL_DIO, CEIL_DIO128):
        add_row(ctx, "14" + next(ident), "cold / warm dd bs=1M, %s" % name,
                med[("dd", name)]["cold"], "MB/s", "direct pread", direct, "(info)", None,
                note="warm %.0f MB/s, %.2f of direct" % (med[("dd", name)]["warm"],
                                                         med[("dd", name)]["warm"] / direct))
    add_row(ctx, "14" + next(ident), "dd bs=1M of the same bytes of the source (tool baseline)",
            median(res["dd of the source"]), "MB/s", "direct pread", direct, "(info)", None)
    c = med[("cat", DEFAULT)]["cold"]
    add_row(ctx, "14" + next(ident), "objcopy --dump-section .big of the source (no mount)",
            median(res["objcopy"]), "MB/s", "cold cat through elffs (default)", c, "(info)",
            None, ratio=median(res["objcopy"]) / c)
    base = rnd[BLK4K]["cold"]
    for name in (DEFAULT, DIO):
        add_row(ctx, "14" + next(ident), "random 4K p50, 1 thread, cold, %s" % name,
                rnd[name]["cold"], "us", BLK4K, base, "<= 1.2x", rnd[name]["cold"] <= 1.2 * base)
    for name in (BLK4K, DEFAULT, DIO):
        add_row(ctx, "14" + next(ident), "random 4K p50, the same offsets again, %s" % name,
                rnd[name]["warm"], "us", "source pread (cached)", rnd["source"]["warm"],
                "(info: a cache hit is ~source)", None)
    for tool, what in (("dd4k", "dd bs=4k of the first 128 MiB"),
                       ("tar", "tar cf - of the section (10 KiB reads)")):
        for w in ("cold", "warm"):
            add_row(ctx, "14s" + next(ident), "%s %s, %s" % (w, what, DIO),
                    med[(tool, DIO)][w], "MB/s", DEFAULT, med[(tool, DEFAULT)][w],
                    "(info: small reads)", None,
                    note="%.2f of direct" % (med[(tool, DIO)][w] / direct))
    for name, _ in DIO_LEVERS:
        add_lever(ctx, "direct I/O, cold dd bs=1M", name, med[("dd", name)]["cold"], "MB/s",
                  DIO, med[("dd", DIO)]["cold"])
    for name, _ in [(DIO, None)] + DIO_LEVERS:
        add_lever(ctx, "direct I/O, cold dd bs=4M (4 requests in flight)", name,
                  med[("dd4", name)]["cold"], "MB/s", "direct pread", direct)
    for tool in ("dd", "cat"):
        for name, _ in PC_LEVERS:
            for w in ("cold", "warm"):
                add_lever(ctx, "page cache, %s %s" % (tool, w), name, med[(tool, name)][w],
                          "MB/s", DEFAULT, med[(tool, DEFAULT)][w],
                          note="%.2f of direct" % (med[(tool, name)][w] / direct))
    for tool in ("dd", "cat"):
        add_lever(ctx, "st_blksize (%s, cold)" % tool, DEFAULT, med[(tool, DEFAULT)]["cold"],
                  "MB/s", BLK4K, med[(tool, BLK4K)]["cold"])
        add_lever(ctx, "st_blksize (%s, warm)" % tool, DEFAULT, med[(tool, DEFAULT)]["warm"],
                  "MB/s", BLK4K, med[(tool, BLK4K)]["warm"])
        add_lever(ctx, "st_blksize under direct I/O (%s, cold)" % tool, DIO,
                  med[(tool, DIO)]["cold"], "MB/s", "elffs -o direct_io=on,iosize=4096",
                  med[(tool, "elffs -o direct_io=on,iosize=4096")]["cold"])
    ctx.series["io"] = {"direct": direct, "med": {"%s|%s" % k: v for k, v in med.items()},
                        "rand": rnd, "objcopy": median(res["objcopy"])}
