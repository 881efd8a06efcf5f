"""Go's tables (group go): go/ against Go's own debug/gosym on one binary.

The binary: ELFFS_BENCH_GO_BINARY, else the go tool's own `compile`
(`go env GOTOOLDIR`), a real Go program wherever there is a go tool. The
other side: the Go oracle of the tests (tests/fixtures/go/oracle: Go's
debug/gosym, built here by the machine's go tool), whose `funcs` and
`lookup` print what go/functions and bench/gobench.c (pfelf) print, so
both outputs are compared byte for byte in every run.

  go1  100,000 pcs (inside functions, a fixed pseudo-random draw) looked
       up by gobench (pfelf_go_pc_lookup) and by the oracle (PCToLine):
       CPU time of each process (user + sys: the machine is shared), open
       and table load included, median of the runs; go1m the same with the
       file read into memory first (pfelf_open_memory), as debug/gosym
       holds the table
  go2  cat go/functions on a fresh mount (the index made at its lookup,
       then every line): the daemon's and cat's CPU time, against the
       oracle's funcs (the same bytes but for ^X)
  go3  what the view adds: the daemon's RssAnon (one worker, -s) after
       cat go/functions of the binary less before it, once the same was
       done for a copy of it (the worker's reply buffer grown), against the
       function table and records pfelf keeps (24 bytes a function)
  go4  go/debug: its size, and the daemon's CPU time of its first stat
       (made then: the kernel needs its size), with the wall time
"""
import os
import random
import resource
import shutil
import subprocess
import time

import mounts
from benchlib import add_row, log, median, proc_status, run

LOOKUPS = 100_000
HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE_SRC = os.path.join(HERE, "..", "tests", "fixtures", "go", "oracle")


def _go_env(ctx):
    env = dict(os.environ, GOCACHE=ctx.path("go-cache"), GOPATH=ctx.path("go-path"),
               GOPROXY="off", GOFLAGS="-mod=mod", GOTOOLCHAIN="local", CGO_ENABLED="0")
    return env


def binary(ctx):
    """The binary measured, hard-linked (or copied) into a SOURCE of its own."""
    path = os.environ.get("ELFFS_BENCH_GO_BINARY")
    if not path:
        tooldir = run(["go", "env", "GOTOOLDIR"], env=_go_env(ctx)).strip()
        path = os.path.join(tooldir, "compile")
    src = ctx.path("go-src")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    dst = os.path.join(src, os.path.basename(path))
    try:
        os.link(path, dst)
    except OSError:
        shutil.copy2(path, dst)
    shutil.copy2(path, dst + "-copy")  # another file: warms the daemon for go3
    return src, os.path.basename(path)


def oracle(ctx):
    out = ctx.path("go-oracle")
    run(["go", "build", "-trimpath", "-buildvcs=false", "-o", out, "."], cwd=ORACLE_SRC,
        env=_go_env(ctx))
    return out


def _timed(argv, stdin=None):
    """(stdout, CPU seconds, wall seconds) of argv."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(argv), p.stderr.decode()[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu, wall


def _pcs(funcs_text):
    """LOOKUPS pcs inside functions (a fixed draw), as hex lines."""
    spans = []
    for line in funcs_text.splitlines():
        e, n = line.split(b"\t", 2)[:2]
        e, n = int(e, 16), int(n, 16)
        if n > e:
            spans.append((e, n))
    rnd = random.Random(33)
    out = []
    for _ in range(LOOKUPS):
        e, n = rnd.choice(spans)
        out.append("%x\n" % rnd.randrange(e, n))
    return "".join(out).encode()


def _daemon_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _lookups(ctx, gobench, orc, path):
    funcs, _, _ = _timed([gobench, "funcs", path])
    pcs = _pcs(funcs)
    cpu = {"lookup": [], "lookup-mem": [], "gosym": []}
    for _ in range(ctx.runs):
        out_g, c, _ = _timed([orc, "lookup", path, path], pcs)
        cpu["gosym"].append(c)
        for mode in ("lookup", "lookup-mem"):
            out_p, c, _ = _timed([gobench, mode, path], pcs)
            if out_p != out_g:
                raise RuntimeError("gobench %s and the oracle differ on %s" % (mode, path))
            cpu[mode].append(c)
    nfunc = funcs.count(b"\n")
    g = median(cpu["gosym"])
    for ident, mode, how in (("go1", "lookup", "the file (pfelf_open)"),
                             ("go1m", "lookup-mem", "the file read into memory first")):
        p = median(cpu[mode])
        add_row(ctx, ident, "100,000 pc lookups, %d functions, pfelf from %s (CPU)" %
                (nfunc, how), p, "s", "debug/gosym (the table in memory)", g, "faster", p < g,
                note="gobench %s %s and the oracle's PCToLine, the same answers" %
                (mode, os.path.basename(path)))
    return funcs


def _functions(ctx, orc, src, name, funcs):
    mnt = ctx.path("mnt-go")
    path = os.path.join(src, name)
    cpus, walls, theirs, twalls, adds = [], [], [], [], []
    for _ in range(ctx.runs):
        with mounts.elffs(ctx, src, mnt, single=True) as m:  # one worker: one reply buffer
            cat = lambda n: _timed(["cat", os.path.join(mnt, n, "go", "functions")])
            cat(name + "-copy")  # the same done once: the worker's buffer grown
            before, c0 = proc_status(m.pid), _daemon_cpu(m.pid)
            out, cpu, wall = cat(name)  # the parse, the tables, the index, every line
            cpus.append(cpu + _daemon_cpu(m.pid) - c0)
            adds.append(proc_status(m.pid).get("RssAnon", 0) - before.get("RssAnon", 0))
        walls.append(wall)
        _, gcpu, gwall = _timed([orc, "funcs", path, path])
        theirs.append(gcpu)
        twalls.append(gwall)
        if out.count(b"\n") != funcs.count(b"\n"):
            raise RuntimeError("go/functions has %d lines, pfelf %d" %
                               (out.count(b"\n"), funcs.count(b"\n")))
    nfunc = funcs.count(b"\n")
    c, g = median(cpus), median(theirs)
    add_row(ctx, "go2", "cat go/functions (first), %d functions (CPU)" % nfunc, c, "s",
            "oracle funcs (debug/gosym)", g, "faster", c < g,
            note="daemon and cat; wall %.3g s against %.3g s" % (median(walls), median(twalls)))
    table = 24 * (nfunc + 1) / 1024.0
    add_row(ctx, "go3", "RssAnon added by a Go binary's go/functions", median(adds), "KiB",
            "function table and records", table, "a few MiB", median(adds) < 4096,
            note="-s, after the same of a copy: its parse, Go tables, text index, readers")
    return c


def _debug(ctx, src, name, functions_cpu):
    mnt = ctx.path("mnt-go")
    sizes, walls, cpus = [], [], []
    for _ in range(ctx.runs):
        with mounts.elffs(ctx, src, mnt) as m:
            os.listdir(os.path.join(mnt, name, "go"))
            c0, t0 = _daemon_cpu(m.pid), time.perf_counter()
            size = os.stat(os.path.join(mnt, name, "go", "debug")).st_size
            walls.append(time.perf_counter() - t0)
            cpus.append(_daemon_cpu(m.pid) - c0)
            sizes.append(size)
    add_row(ctx, "go4", "go/debug made (first stat): %.1f MB, daemon CPU" % (median(sizes) / 1e6),
            median(cpus), "s", "cat go/functions (go2)", functions_cpu, "-", True,
            note="size %d bytes, wall %.3g s" % (median(sizes), median(walls)))


def measure(ctx):
    gobench = os.path.join(ctx.build, "bench", "gobench")
    src, name = binary(ctx)
    orc = oracle(ctx)
    log("go: %s" % os.path.join(src, name))
    funcs = _lookups(ctx, gobench, orc, os.path.join(src, name))
    _debug(ctx, src, name, _functions(ctx, orc, src, name, funcs))
