"""Shared plumbing of the benchmark suite: tools, mounts, caches, results.

Every figure is the median of `ctx.runs` runs and is reported with a
baseline measured in the same run on the same bytes (see run.py).
"""
import json
import os
import statistics
import subprocess
import sys
import time

MIB = 1 << 20
GIB = 1 << 30


class Ctx:
    """What every measurement needs: where the tools and the work files are."""

    def __init__(self, build, work, runs, quick, elffs_opts):
        self.build = os.path.abspath(build)
        self.work = os.path.abspath(work)
        self.runs = runs
        self.quick = quick
        self.elffs_opts = elffs_opts  # extra "-o" options for every elffs mount
        self.elffs = os.path.join(self.build, "fs", "elffs")
        self.readbench = os.path.join(self.build, "bench", "readbench")
        self.ceiling = os.path.join(self.build, "bench", "ceiling")
        self.elfcmp = os.path.join(self.build, "bench", "elfcmp")
        self.treeceiling = os.path.join(self.build, "bench", "treeceiling")
        self.rows = []     # result rows, in order
        self.levers = []   # lever rows
        self.series = {}   # plot data
        self.timings = []  # (group, seconds)
        os.makedirs(self.work, exist_ok=True)

    def path(self, *parts):
        return os.path.join(self.work, *parts)


def log(msg):
    sys.stderr.write("== %s\n" % msg)
    sys.stderr.flush()


def kv(text):
    """Parse the last "k=v k=v" line of a tool's output into a dict of floats."""
    out = {}
    for line in text.strip().splitlines()[-1:]:
        for tok in line.split():
            k, _, v = tok.partition("=")
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def run(argv, **kw):
    res = subprocess.run(argv, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(argv), res.returncode,
                                                   res.stderr.strip()[-2000:]))
    return res.stdout


def readbench(ctx, *args):
    return kv(run([ctx.readbench] + [str(a) for a in args]))


def seq_mbps(ctx, path, off, length, bs=MIB):
    return readbench(ctx, "seq", path, off, length, bs)["mbps"]


def drop_caches():
    """Drop the whole page cache (clean pages not mapped by a process)."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("1\n")


def resident_pct(ctx, path):
    return readbench(ctx, "resident", path)["resident_pct"]


def warm(ctx, path):
    """Read a file whole so that its pages are in the page cache."""
    readbench(ctx, "seq", path, 0, os.path.getsize(path), 4 * MIB)


def median(values):
    return statistics.median(values)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def proc_status(pid):
    """The Vm*/Rss* lines of /proc/PID/status, in KiB."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k.startswith(("Vm", "Rss")):
                out[k] = int(v.split()[0])
    return out


def add_row(ctx, ident, what, value, unit, base_what, base_value, target, ok,
            ratio=None, note=""):
    """One line of the result table. ratio defaults to value / base_value."""
    if ratio is None and base_value:
        ratio = value / base_value
    ctx.rows.append({"id": ident, "what": what, "value": value, "unit": unit,
                     "baseline": base_what, "base_value": base_value,
                     "ratio": ratio, "target": target, "ok": ok, "note": note})
    log("%s %s: %.4g %s (baseline %s %.4g, ratio %s) %s" % (
        ident, what, value, unit, base_what, base_value or 0,
        "-" if ratio is None else "%.3f" % ratio, target))


def add_lever(ctx, lever, config, value, unit, base_config, base_value, note=""):
    ctx.levers.append({"lever": lever, "config": config, "value": value, "unit": unit,
                       "base_config": base_config, "base_value": base_value,
                       "ratio": value / base_value if base_value else None, "note": note})
    log("lever %s: %s %.4g %s vs %s %.4g" % (lever, config, value, unit, base_config,
                                              base_value or 0))


def save(ctx, outdir):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"rows": ctx.rows, "levers": ctx.levers, "series": ctx.series,
                   "runs": ctx.runs, "quick": ctx.quick}, f, indent=1)
