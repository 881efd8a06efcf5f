"""Measurement 5: pfelf against elfutils libelf in one process (bench/elfcmp),
over every ELF file of /usr/lib/x86_64-linux-gnu: open, every section
header with its name, find ".text" by name, close. One untimed pass of
each warms the page cache; then the median of ctx.runs passes of each,
alternating which library goes first. The same with pfelf's pread backend
(PFELF_OPEN_NOMMAP) is a lever: what mapping each file costs."""
from benchlib import add_lever, add_row, kv, log, run


def measure(ctx, elflist, nfiles):
    run([ctx.elfcmp, elflist, "1"])  # warm-up: every file in the page cache
    log("pfelf vs libelf over %d files" % nfiles)
    res = kv(run([ctx.elfcmp, elflist, str(ctx.runs)]))
    add_row(ctx, "5", "open + all section headers + find .text, pfelf vs libelf",
            res["median_pfelf"] * 1e3, "ms", "libelf", res["median_libelf"] * 1e3,
            ">= 2x faster", res["speedup"] >= 2, ratio=res["speedup"],
            note="%d files, %d sections; ratio = libelf time / pfelf time" %
            (res["files"], res["sections"]))
    nom = kv(run([ctx.elfcmp, "--nommap", elflist, str(ctx.runs)]))
    add_lever(ctx, "pfelf backend (open+headers+lookup)", "pfelf PFELF_OPEN_NOMMAP (pread)",
              nom["median_pfelf"] * 1e3, "ms", "libelf", nom["median_libelf"] * 1e3,
              note="speedup over libelf %.2fx" % nom["speedup"])
