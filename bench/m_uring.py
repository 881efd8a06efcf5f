"""uring: FUSE over io_uring against /dev/fuse, on the 1 GiB section.

Bare servers with one file holding the section's bytes (a MAP_SHARED
mapping of the source), all mounted at once and interleaved in each run:

 - `ceiling` (bench/ceiling.c): libfuse 3.14 over /dev/fuse, 2 threads;
 - `ceiling --uring`: the same libfuse server driven from io_uring the way
   the daemon could be (requests from the rings handed to
   fuse_session_process_buf, replies caught by the session's custom writev
   and copied into the ring: READ data memcpy'd from the mapping);
 - `ceiling_uring --transport=dev` (bench/ceiling_uring.c): the kernel
   protocol spoken without libfuse, read/writev on /dev/fuse, one thread
   per CPU: what the transport costs without libfuse's own work;
 - `ceiling_uring --transport=uring --pread`: the same server over io_uring
   (one ring, thread and queue per CPU), READ data pread(2) from the source
   into the ring entry's payload buffer; and `--transport=uring` without
   --pread: the data memcpy'd from the mapping into the payload buffer
   (faulting the mapping in, as writev from it does). The module parameter
   /sys/module/fuse/parameters/enable_uring is set to Y for its mounts only
   and restored at once (a connection keeps io_uring once negotiated);

and elffs (libfuse, /dev/fuse) on the same bytes (`big.elf/sections/.big`).
Each under direct I/O (FOPEN_DIRECT_IO: every read a request) and through
the page cache (keep_cache, read_ahead_kb 1024). Figures, each a median of
the runs, with the source's cached pread in the same run:

 - random 4 KiB reads, p50 of 1 thread, and the rate of 2 threads (one per
   CPU, so both rings work), direct I/O;
 - `dd bs=4k` of the first 128 MiB and `tar cf -` of the file (10 KiB
   reads), direct I/O: small sequential reads. The bare servers have one
   file, so `tar` reads one 1 GiB file, not a tree of small ones;
 - a cold `dd bs=1M` of the whole file, direct I/O and page cache.
"""
import contextlib
import os

import mounts
from benchlib import add_row, drop_caches, log, median, readbench, warm
from m_io import SMALL_BYTES, _dd, _dd4k, _tar, _timed_mbps

ENABLE = "/sys/module/fuse/parameters/enable_uring"
LIBFUSE = "bare libfuse /dev/fuse"
LIBFUSE_URING = "bare libfuse io_uring"
DEV = "bare raw /dev/fuse"
URING = "bare raw io_uring"
URING_MAP = "bare raw io_uring, memcpy from the mapping"
ELFFS = "elffs"
SERVERS = [LIBFUSE, LIBFUSE_URING, DEV, URING, URING_MAP, ELFFS]


@contextlib.contextmanager
def _uring_enabled():
    with open(ENABLE) as f:
        old = f.read().strip()
    with open(ENABLE, "w") as f:
        f.write("Y\n")
    try:
        yield
    finally:
        with open(ENABLE, "w") as f:
            f.write(old + "\n")


def _mount_all(ctx, stack, big, off, size):
    """{(server, "dio"|"pc"): path of the file}"""
    paths = {}
    exe = os.path.join(ctx.build, "bench", "ceiling_uring")
    src = ["--source=%s" % big, "--offset=%d" % off, "--size=%d" % size]
    for mode, cflag, eopts in (("dio", "--direct-io", ["direct_io=on"]),
                               ("pc", "--keep-cache", [])):
        m = stack.enter_context(mounts.ceiling(ctx, big, off, size, ctx.path("mnt-u%sl" % mode),
                                               ["--mode=mmap", "--threads=2", cflag]))
        paths[(LIBFUSE, mode)] = m
        with _uring_enabled():
            m = stack.enter_context(mounts.ceiling(ctx, big, off, size,
                                                   ctx.path("mnt-u%slu" % mode),
                                                   ["--mode=mmap", "--threads=2", "--uring",
                                                    cflag]))
            os.stat(m.mnt + "/data")
        paths[(LIBFUSE_URING, mode)] = m
        for name, tr, extra in ((DEV, "dev", []), (URING, "uring", ["--pread"]),
                                (URING_MAP, "uring", [])):
            argv = [exe, "--transport=" + tr, cflag] + extra + src
            mnt = ctx.path("mnt-u%s%s%s" % (mode, tr, "p" if extra else ""))
            argv.append(mnt)
            if tr == "uring":
                with _uring_enabled():
                    m = stack.enter_context(mounts.FuseMount(argv, mnt,
                                                             ctx.path("ceiling_uring.log")))
                    os.stat(mnt + "/data")  # INIT and the rings' registration done
            else:
                m = stack.enter_context(mounts.FuseMount(argv, mnt,
                                                         ctx.path("ceiling_uring.log")))
            paths[(name, mode)] = m
        m = stack.enter_context(mounts.elffs(ctx, ctx.path("src"), ctx.path("mnt-u%se" % mode),
                                             opts=eopts))
        paths[(ELFFS, mode)] = m
    out = {}
    for (name, mode), m in paths.items():
        if mode == "pc":
            m.set_readahead_kb(1024)
        out[(name, mode)] = m.mnt + ("/big.elf/sections/.big" if name == ELFFS else "/data")
    return out


def measure(ctx, big, off, size):
    n1 = 1000 if ctx.quick else 3000
    res = {}

    def add(key, v):
        res.setdefault(key, []).append(v)

    with contextlib.ExitStack() as stack:
        paths = _mount_all(ctx, stack, big, off, size)
        for r in range(ctx.runs):
            log("uring run %d/%d" % (r + 1, ctx.runs))
            drop_caches()
            warm(ctx, big)
            add("source p50", readbench(ctx, "rand", big, off, size, 4096, 1, n1,
                                        r + 1)["p50_us"])
            for name in SERVERS:
                p = paths[(name, "dio")]
                add((name, "p50"), readbench(ctx, "rand", p, 0, size, 4096, 1, n1,
                                             r + 1)["p50_us"])
                add((name, "iops2"), readbench(ctx, "rand", p, 0, size, 4096, 2, n1,
                                               r + 101)["iops"])
                add((name, "dd4k"), _timed_mbps(_dd4k(p, size), SMALL_BYTES))
                add((name, "tar"), _timed_mbps(_tar(p, size), size))
                add((name, "dd1m dio"), _timed_mbps(_dd(p, size), size))
            for name in SERVERS:
                drop_caches()
                warm(ctx, big)
                add((name, "dd1m pc"), _timed_mbps(_dd(paths[(name, "pc")], size), size))
    _report(ctx, {k: median(v) for k, v in res.items()})


def _report(ctx, med):
    rows = [("p50", "random 4K p50, 1 thread, direct I/O", "us"),
            ("iops2", "random 4K reads, 2 threads, direct I/O", "reads/s"),
            ("dd4k", "dd bs=4k of the first 128 MiB, direct I/O", "MB/s"),
            ("tar", "tar cf - of the 1 GiB file (10 KiB reads), direct I/O", "MB/s"),
            ("dd1m dio", "dd bs=1M of the 1 GiB file, direct I/O", "MB/s"),
            ("dd1m pc", "cold dd bs=1M of the 1 GiB file, page cache", "MB/s")]
    for i, (key, what, unit) in enumerate(rows):
        base = med[(LIBFUSE, key)]
        for j, name in enumerate((LIBFUSE_URING, DEV, URING, URING_MAP, ELFFS)):
            note = ""
            if name in (URING, URING_MAP):
                note = "%.2f of raw /dev/fuse" % (med[(name, key)] / med[(DEV, key)])
            if key == "p50" and name == ELFFS:
                note = "source cached pread %.2f us" % med["source p50"]
            add_row(ctx, "u%d%s" % (i + 1, "abcde"[j]), "%s, %s" % (what, name),
                    med[(name, key)], unit, LIBFUSE, base, "(info)", None, note=note)
    ctx.series["uring"] = {"%s|%s" % k if isinstance(k, tuple) else k: v
                           for k, v in med.items()}
