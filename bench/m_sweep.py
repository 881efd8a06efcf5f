"""Throughput against request size, for the plot: sequential reads of the
first SWEEP bytes of the section with read sizes from 4 KiB to 1 MiB (what
`dd bs=` varies), cold through elffs and through the ceiling (page cache and
direct_io), cold and warm through elffs with the page cache (the default)
and with -o direct_io=on, and pread of the source."""
import contextlib

import mounts
from benchlib import MIB, drop_caches, log, median, seq_mbps, warm

SIZES_KIB = [4, 16, 64, 256, 1024, 4096]
COLUMNS = ["direct pread", "ceiling cold", "ceiling direct_io cold", "elffs cold",
           "elffs warm", "elffs direct_io cold", "elffs direct_io warm"]


def measure(ctx, big, off, size, datafile):
    span = min(size, (64 if ctx.quick else 128) * MIB)
    data = {(c, k): [] for c in COLUMNS for k in SIZES_KIB}
    with contextlib.ExitStack() as stack:
        c = stack.enter_context(mounts.ceiling(ctx, big, off, size, ctx.path("mnt-s0"),
                                               ["--mode=mmap", "--threads=2"]))
        d = stack.enter_context(mounts.ceiling(ctx, big, off, size, ctx.path("mnt-s1"),
                                               ["--mode=mmap", "--threads=2",
                                                                "--direct-io"]))
        e = stack.enter_context(mounts.elffs(ctx, ctx.path("src"), ctx.path("mnt-s2")))
        sect = e.mnt + "/big.elf/sections/.big"
        dio = stack.enter_context(mounts.elffs(ctx, ctx.path("src"), ctx.path("mnt-s3"),
                                               opts=["direct_io=on"]))
        dsect = dio.mnt + "/big.elf/sections/.big"
        for r in range(ctx.runs):
            log("request-size sweep run %d/%d" % (r + 1, ctx.runs))
            for k in SIZES_KIB:
                bs = k * 1024
                data[("direct pread", k)].append(seq_mbps(ctx, big, off, span, bs))
                for col, path in (("ceiling cold", c.mnt + "/data"),
                                  ("ceiling direct_io cold", d.mnt + "/data"),
                                  ("elffs cold", sect),
                                  ("elffs direct_io cold", dsect)):
                    drop_caches()
                    warm(ctx, big)
                    data[(col, k)].append(seq_mbps(ctx, path, 0, span, bs))
                    if col.startswith("elffs"):
                        data[(col.replace("cold", "warm"), k)].append(
                            seq_mbps(ctx, path, 0, span, bs))
    with open(datafile, "w") as f:
        f.write("# read size (KiB), then MB/s medians of %d runs: %s\n" %
                (ctx.runs, " | ".join(COLUMNS)))
        for k in SIZES_KIB:
            f.write("%d %s\n" % (k, " ".join("%.1f" % median(data[(col, k)])
                                             for col in COLUMNS)))
    ctx.series["sweep"] = {"%s@%dK" % (col, k): median(v) for (col, k), v in data.items()}
