"""access: what checking other users against SOURCE costs (fs/source/access.c).

The same mount twice in one run: without allow_other, read by its owner
(root: no check), and with allow_other, read by nobody (every lookup,
getattr, opendir, open and getxattr checked against SOURCE with nobody's
credentials). Rows: the first `ls -l` of a directory of binaries on a fresh
mount, the same `ls -l` again (attributes cached for the timeout: nothing
to check), `ls -lR`-like stats of every binary's directory (inner lookups,
each checked), and the random 4 KiB read p50 of an open file (reads are
not checked: the control)."""
import contextlib
import os
import shutil
import subprocess
import tempfile
import time

import inputs
import mounts
from benchlib import add_row, drop_caches, kv, log, median, run, warm

LS_DIR = "/usr/lib/x86_64-linux-gnu"
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _timed(argv):
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True)
    return time.perf_counter() - t0


def _walk_script(mnt, names):
    # stat every binary's directory and list its sections/: inner lookups
    return ["python3", "-c", "import os,sys\n"
            "for n in sys.argv[2:]:\n"
            "    p = os.path.join(sys.argv[1], n)\n"
            "    os.listdir(p)\n"
            "    os.stat(os.path.join(p, 'sections'))\n", mnt] + names


def measure(ctx, big, off, size):
    tree = os.environ.get("ELFFS_BENCH_LSDIR") or LS_DIR
    names = sorted(n for n in os.listdir(tree)
                   if inputs.is_elf(os.path.join(tree, n)))[:300]
    top = tempfile.mkdtemp(prefix="elffs-bench-access-")
    os.chmod(top, 0o755)
    bigdir = os.path.join(top, "bigsrc")
    os.mkdir(bigdir)
    os.chmod(bigdir, 0o755)
    os.link(big, os.path.join(bigdir, "big.elf")) if os.stat(big).st_dev == os.stat(
        bigdir).st_dev else shutil.copyfile(big, os.path.join(bigdir, "big.elf"))
    os.chmod(os.path.join(bigdir, "big.elf"), 0o644)
    res = {}
    try:
        for r in range(ctx.runs):
            log("access run %d/%d" % (r + 1, ctx.runs))
            for name, opts, prefix in (("owner", [], []), ("other", ["allow_other"], NOBODY)):
                m1 = os.path.join(top, "m1-" + name)
                m2 = os.path.join(top, "m2-" + name)
                for d in (m1, m2):
                    os.makedirs(d, exist_ok=True)
                    os.chmod(d, 0o755)
                with contextlib.ExitStack() as st:
                    m = st.enter_context(mounts.elffs(ctx, tree, m1, opts=opts))
                    first = _timed(prefix + ["ls", "-l", m.mnt])
                    again = _timed(prefix + ["ls", "-l", m.mnt])
                    walk = _timed(prefix + _walk_script(m.mnt, names))
                    b = st.enter_context(mounts.elffs(ctx, bigdir, m2, opts=opts))
                    drop_caches()
                    warm(ctx, big)
                    out = kv(run(prefix + [ctx.readbench, "rand", b.mnt + "/big.elf/sections/.big",
                                           "0", str(size), "4096", "1", "3000", str(r + 1)]))
                res.setdefault(name, []).append((first, again, walk, out["p50_us"]))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    o, x = res["owner"], res["other"]
    med = lambda runs, i: median([t[i] for t in runs])  # noqa: E731
    for i, ident, what, unit in (
            (0, "20a", "first ls -l of %s on a fresh mount" % tree, "s"),
            (1, "20b", "the same ls -l again (cached attributes)", "s"),
            (2, "20c", "list and stat sections/ of %d binaries" % len(names), "s"),
            (3, "20d", "random 4K read p50 of an open section", "us")):
        add_row(ctx, ident, what + ": nobody with allow_other vs the owner without",
                med(x, i), unit, "owner, no allow_other", med(o, i), "(info)", None)
