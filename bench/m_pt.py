"""passthrough and reqsize: the `elf` of the 1 GiB-section file through FUSE
passthrough (fs/ops/passthrough.c), and read requests above 1 MiB.

passthrough: `dd bs=1M` of big.elf/elf by default (passthrough, as root),
with -o passthrough=off (the daemon's path), and of the source file itself,
in the same run, interleaved (each first in turn: the first cold read
after a while is the slowest here, the VM's host cache), cold (the whole page cache dropped: the
source's pages too) and warm (the same command again at once). Then the
page cache each leaves: /proc/meminfo Cached after the page cache was
dropped and the file read once, in bytes per byte of the file (1: the
source's pages only; 2: the source's and the mount's); the same for the
1 GiB section by default.

reqsize: /proc/sys/fs/fuse/max_pages_limit raised to 4096 pages (16 MiB;
put back after), then one mount per request size, `-o max_read=` 1, 2, 4,
8 and 16 MiB, both paths: the page cache (`-o readahead=` the same size,
so that the kernel's readahead asks that much at once) and
`-o direct_io=on`; `dd bs=16M` of the 1 GiB section, the mount's page
cache dropped and the source's warm (as the io group), against the
direct pread of the same bytes in the same run.
"""
import contextlib
import os
import subprocess
import time

import mounts
from benchlib import GIB, MIB, add_lever, add_row, drop_caches, log, median, seq_mbps, warm

LIMIT = "/proc/sys/fs/fuse/max_pages_limit"
SIZES = [1, 2, 4, 8, 16]  # MiB


def _timed_mbps(argv, size):
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return size / (time.perf_counter() - t0) / 1e6


def _dd(path, bs="1M"):
    return ["dd", "if=" + path, "of=/dev/null", "bs=" + bs]


def _cached_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Cached:"):
                return int(line.split()[1]) * 1024
    return 0


def _held(argv):
    """Page cache a read of argv leaves, from a dropped cache."""
    drop_caches()
    before = _cached_bytes()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return _cached_bytes() - before


def passthrough(ctx, big, off, size):
    src_dir = ctx.path("src")
    fsize = os.path.getsize(big)
    res = {}
    with contextlib.ExitStack() as stack:
        pt = stack.enter_context(mounts.elffs(ctx, src_dir, ctx.path("mnt-pt0")))
        off_m = stack.enter_context(mounts.elffs(ctx, src_dir, ctx.path("mnt-pt1"),
                                                 opts=["passthrough=off"]))
        paths = {"source": big, "passthrough": pt.mnt + "/big.elf/elf",
                 "passthrough=off": off_m.mnt + "/big.elf/elf"}
        sec = pt.mnt + "/big.elf/sections/.big"
        for r in range(ctx.runs):
            log("passthrough run %d/%d" % (r + 1, ctx.runs))
            items = list(paths.items())
            for name, p in items[r % 3:] + items[:r % 3]:  # each first in turn
                drop_caches()
                res.setdefault((name, "cold"), []).append(_timed_mbps(_dd(p), fsize))
                res.setdefault((name, "warm"), []).append(_timed_mbps(_dd(p), fsize))
                # the daemon's path with the source's pages warm (the io group's cold)
                drop_caches()
                warm(ctx, big)
                res.setdefault((name, "mount cold"), []).append(_timed_mbps(_dd(p), fsize))
        for name, p in paths.items():
            res[(name, "held")] = [_held(_dd(p)) / fsize]
        res[("section", "held")] = [_held(_dd(sec)) / size]
    med = {k: median(v) for k, v in res.items()}
    src = med[("source", "cold")]
    ident = iter("abcdefghijklmnopqrstuvwxyz")
    for name in ("passthrough", "passthrough=off"):
        add_row(ctx, "15" + next(ident), "cold dd bs=1M of big.elf/elf (1 GiB), %s" % name,
                med[(name, "cold")], "MB/s", "cold dd of the source", src, ">= 0.80",
                med[(name, "cold")] / src >= 0.8)
        add_row(ctx, "15" + next(ident), "warm dd bs=1M of big.elf/elf, %s" % name,
                med[(name, "warm")], "MB/s", "warm dd of the source", med[("source", "warm")],
                "(info)", None)
        add_row(ctx, "15" + next(ident), "dd of big.elf/elf, source warm, mount cold, %s" % name,
                med[(name, "mount cold")], "MB/s", "warm dd of the source",
                med[("source", "warm")], "(info)", None)
    add_row(ctx, "15" + next(ident), "cold elf: passthrough against the daemon's path",
            med[("passthrough", "cold")], "MB/s", "passthrough=off",
            med[("passthrough=off", "cold")], "(info)", None)
    for name, what in (("passthrough", "big.elf/elf, passthrough"),
                       ("passthrough=off", "big.elf/elf, passthrough=off"),
                       ("section", "sections/.big (1 GiB), default")):
        add_row(ctx, "15" + next(ident), "page cache held after one read of %s" % what,
                med[(name, "held")], "x file", "the file once", 1.0,
                "<= 1.2" if name == "passthrough" else "(info)",
                med[(name, "held")] <= 1.2 if name == "passthrough" else None)
    ctx.series["passthrough"] = {"%s|%s" % k: v for k, v in med.items()}


def _read_limit():
    with open(LIMIT) as f:
        return int(f.read())


def _write_limit(v):
    with open(LIMIT, "w") as f:
        f.write("%d\n" % v)


def reqsize(ctx, big, off, size):
    if not os.path.exists(LIMIT):
        log("reqsize: no %s (Linux 6.13+): left out" % LIMIT)
        return
    old = _read_limit()
    res = {}
    try:
        _write_limit(max(SIZES) * MIB // 4096)
        with contextlib.ExitStack() as stack:
            paths = {}
            for i, mib in enumerate(SIZES):
                for path_kind, extra in (("page cache", ["readahead=%d" % (mib * 1024)]),
                                         ("direct I/O", ["direct_io=on"])):
                    m = stack.enter_context(mounts.elffs(
                        ctx, ctx.path("src"), ctx.path("mnt-rq%d%s" % (i, path_kind[0])),
                        opts=["max_read=%d" % (mib * MIB)] + extra))
                    paths[(path_kind, mib)] = m.mnt + "/big.elf/sections/.big"
            for r in range(ctx.runs):
                log("reqsize run %d/%d" % (r + 1, ctx.runs))
                for key, p in paths.items():
                    drop_caches()
                    warm(ctx, big)
                    res.setdefault("direct", []).append(seq_mbps(ctx, big, off, size))
                    res.setdefault(key, []).append(_timed_mbps(_dd(p, "16M"), size))
    finally:
        _write_limit(old)
    direct = median(res["direct"])
    for path_kind in ("page cache", "direct I/O"):
        base = median(res[(path_kind, 1)])
        for mib in SIZES:
            v = median(res[(path_kind, mib)])
            add_lever(ctx, "request size, %s, cold dd bs=16M of the 1 GiB section" % path_kind,
                      "max_read=%d MiB" % mib, v, "MB/s", "max_read=1 MiB", base,
                      note="%.2f of direct pread" % (v / direct))
    ctx.series["reqsize"] = {"direct": direct,
                             "med": {"%s|%d" % k: median(v) for k, v in res.items()
                                     if isinstance(k, tuple)}}
