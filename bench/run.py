#!/usr/bin/python3
"""Run the benchmark suite and print one table (see docs/benchmarks.md).

  run.py --build BUILD_DIR --work WORK_DIR [--runs N] [--quick] [--only G,...]
         [--out DIR] [--elffs-opts OPT,...]

Groups, in order: libelf (5), meta (4), seq (1, 2, 6), rand (3, 6),
memory (7), sweep (the plot's data), io (the I/O policy), passthrough
(`elf` through FUSE passthrough), reqsize (read requests of 1 to 16 MiB),
lsdir (first ls -l of a 1,200-file directory), access (other users
checked against SOURCE under allow_other), go (go/ against Go's
debug/gosym: m_go.py), walk (the first and second find
of /usr/share and of a generated 1,000,000-file tree, cold; not run by
default), watch (-o watch=auto against watch=off: a change's latency, the
second walks and repeated stats, floods of events: m_watch.py; not run by
default), uring (FUSE over io_uring against /dev/fuse; not run by
default) and minidebug (the first read of a 10 MiB MiniDebugInfo view and
of minidebuginfo.debug against xz -dc; not run by default). Needs root (drop_caches, bdi
read_ahead_kb) and /dev/fuse. Exits 1 if a group failed.
"""
import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import inputs  # noqa: E402
import m_access  # noqa: E402
import m_go  # noqa: E402
import m_io  # noqa: E402
import m_libelf  # noqa: E402
import m_memory  # noqa: E402
import m_meta  # noqa: E402
import m_minidebug  # noqa: E402
import m_pt  # noqa: E402
import m_rand  # noqa: E402
import m_seq  # noqa: E402
import m_uring  # noqa: E402
import m_sweep  # noqa: E402
import m_walk  # noqa: E402
import m_watch  # noqa: E402
from benchlib import Ctx, log, save  # noqa: E402
from report import table_text  # noqa: E402

GROUPS = ["libelf", "meta", "seq", "rand", "memory", "sweep", "io", "passthrough", "reqsize",
          "lsdir", "access", "go", "walk", "watch", "uring", "minidebug"]
BIG_MIB = 1024
MEMORY_LIB_BYTES = 400 * 10**6  # with the 1 GiB section: about 1.5 GB served


def group_libelf(ctx):
    path, n = inputs.elf_list(ctx)
    m_libelf.measure(ctx, path, n)


def group_meta(ctx):
    m_meta.walk(ctx)
    obj, last = inputs.many_obj(ctx)
    m_meta.first_lookup(ctx, obj, last)


def group_seq(ctx):
    m_seq.measure(ctx, *inputs.big_elf(ctx, BIG_MIB))


def group_rand(ctx):
    m_rand.measure(ctx, *inputs.big_elf(ctx, BIG_MIB))


def group_io(ctx):
    m_io.measure(ctx, *inputs.big_elf(ctx, BIG_MIB))


def group_passthrough(ctx):
    m_pt.passthrough(ctx, *inputs.big_elf(ctx, BIG_MIB))


def group_reqsize(ctx):
    m_pt.reqsize(ctx, *inputs.big_elf(ctx, BIG_MIB))


def group_uring(ctx):
    m_uring.measure(ctx, *inputs.big_elf(ctx, BIG_MIB))


def group_lsdir(ctx):
    m_meta.ls_dir(ctx)


def group_walk(ctx):
    m_walk.measure(ctx)


def group_watch(ctx):
    m_watch.measure(ctx)


def group_minidebug(ctx):
    m_minidebug.measure(ctx)


def group_go(ctx):
    m_go.measure(ctx)


def group_access(ctx):
    m_access.measure(ctx, *inputs.big_elf(ctx, BIG_MIB))


def group_memory(ctx):
    big, off, size = inputs.big_elf(ctx, BIG_MIB)
    tree, _ = inputs.memory_tree(ctx, big, MEMORY_LIB_BYTES)
    m_memory.measure(ctx, tree)
    m_memory.dontneed_cost(ctx, big, off, size)


def group_sweep(ctx, out):
    big, off, size = inputs.big_elf(ctx, BIG_MIB)
    m_sweep.measure(ctx, big, off, size, os.path.join(out, "throughput.dat"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "out"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=",".join(GROUPS))
    ap.add_argument("--elffs-opts", default="")
    a = ap.parse_args()
    ctx = Ctx(a.build, a.work, a.runs, a.quick, [o for o in a.elffs_opts.split(",") if o])
    os.makedirs(a.out, exist_ok=True)
    failed = []
    t0 = time.monotonic()
    for g in [g for g in a.only.split(",") if g]:
        if g not in GROUPS:
            ap.error("unknown group %s (groups: %s)" % (g, ",".join(GROUPS)))
        log("group %s" % g)
        tg = time.monotonic()
        try:
            if g == "sweep":
                group_sweep(ctx, a.out)
            else:
                globals()["group_" + g](ctx)
        except Exception as e:  # one broken group must not hide the others
            traceback.print_exc()
            failed.append("%s: %s" % (g, e))
        ctx.timings.append((g, time.monotonic() - tg))
    save(ctx, a.out)
    text = table_text(ctx, failed, time.monotonic() - t0)
    with open(os.path.join(a.out, "table.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
