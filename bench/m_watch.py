"""watch: the kernel's caches kept while SOURCE is watched (docs/benchmarks.md,
"Kernel caches kept while watched"): `-o watch=auto` with a very long
watched timeout against `-o watch=off` with the default 1 s timeout, every
pair in the same run.

 - Latency (w1*): a change of SOURCE made by this process, then polled for
   through the mount with ordinary calls (a stat of the name and a listing
   of its directory, a read of the file's `elf` view, a stat of its mode)
   every 0.5 ms until it shows; the kernel's caches warmed first (the
   names, attributes and bytes looked at just before the change), so that
   invalidation is measured, not a first lookup. Kinds: a new file, a
   deleted one, a rename to another directory, a rewrite in place, the same
   with its times put back (os.utime), a chmod. Under load: a `find` of
   another tree of the mount in a loop and `flood files` making 1,000
   files a second beside SOURCE. p50 and p99 of 200 trials a kind with
   watch (quick: 50), 25 without (quick: 5); a change not seen within 5 s
   is a miss (counted, and taken as 5 s).
 - Walks (w2*): the first find of a fresh mount, cold (drop_caches 3), then
   the second find 1.1 s later (past the 1 s timeout), of /usr/share
   (ELFFS_BENCH_SHARE) and of the walk group's generated tree (1,000,000
   files; quick 100,000), against the source's warm find, on a private
   mount (as root) and with allow_other (walked by nobody, against
   nobody's find of the source: listings stay per caller there).
 - Stats (w3*): lstat of the 10,000 deepest paths under /usr/lib
   (ELFFS_BENCH_STAT_TREE; directories, symlinks and ELF files, which the
   mount shows), once, then again 2 s later, timed; against the same on
   the source.
 - Flood (w4*): `flood files` (as fast as it can) and `flood rename` (a tree
   of 100,000 files renamed file by file, and back) beside a mount of a
   generated tree of 100,000 files on the same file system: the daemon's
   CPU (utime + stime of /proc/PID/stat) over 5 s of an idle mount, and the
   second find of the tree (1.1 s after a first) with its CPU, under that
   load, watch=auto against watch=off.

The watch options are WATCH_OPTS (ELFFS_BENCH_WATCH_OPTS=a,b overrides);
`-o watch=off` is OFF_OPTS, or no option at all when the daemon has no
watch mode. A daemon that rejects the watch options has its watch=off side
measured and the group fails saying so.
"""
import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import inputs
import m_walk
import mounts
from benchlib import add_row, kv, log, median, proc_status

WATCH_OPTS = ["watch=auto", "watch_timeout=86400"]
OFF_OPTS = ["watch=off"]
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
POLL = 0.0005
DEADLINE = 5.0
GAP = 1.1  # past the 1 s timeout
KINDS = ["create", "delete", "rename", "rewrite", "rewrite-times", "chmod"]
KIND_WHAT = {"create": "a new file", "delete": "a deleted file",
             "rename": "a file renamed to another directory",
             "rewrite": "a rewrite in place",
             "rewrite-times": "a rewrite in place, its times put back",
             "chmod": "a chmod"}
STAT_TREE = "/usr/lib"
STAT_PATHS = 10000
FLOOD_FILES = 100000
HERE = os.path.dirname(os.path.abspath(__file__))


# ------------------------------------------------------------------ modes

def _try_mount(ctx, opts):
    """None when a mount with opts comes up, else why not; and its log."""
    src = ctx.path("watch-probe")
    os.makedirs(src, exist_ok=True)
    try:
        with mounts.elffs(ctx, src, ctx.path("mnt-wp"), opts=opts) as m:
            os.listdir(m.mnt)
            time.sleep(0.2)
            return None, m.log_text()
    except RuntimeError as e:
        return str(e), ""


def modes(ctx):
    """[(name, opts)] for watch=off and, if the daemon takes it, watch=auto;
    and why watch=auto is missing (None when it is there)."""
    env = os.environ.get("ELFFS_BENCH_WATCH_OPTS")
    watch = [o for o in env.split(",") if o] if env else WATCH_OPTS
    off_err, _ = _try_mount(ctx, OFF_OPTS)
    off = OFF_OPTS if off_err is None else []
    err, text = _try_mount(ctx, watch)
    if err is not None:
        why = ("the daemon rejects -o %s (%s): it has no watch mode; only watch=off "
               "(%s) is measured" % (",".join(watch), err.split(": ")[-2][-200:]
                                     if ": " in err else err,
                                     ",".join(off) or "no option"))
        log("watch: " + why)
        return [("off", off)], why
    for line in text.splitlines():
        if "watch" in line:
            log("watch: the daemon says: " + line.strip())
    return [("off", off), ("auto", watch)], None


def _watch_line(m, words=("watch",)):
    """The mount's last log line that holds one of words, "" when none."""
    lines = [ln.strip() for ln in m.log_text().splitlines() if any(w in ln for w in words)]
    return lines[-1][-200:] if lines else ""


# ---------------------------------------------------------------- helpers

@contextlib.contextmanager
def _background(argv, logname):
    """A load that runs until the block ends (its own process group, ended
    by its id)."""
    with open(logname, "a") as f:
        p = subprocess.Popen(argv, stdout=f, stderr=f, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        yield p
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
        p.wait()


def _flood(ctx, *args):
    """bench/flood in the background; its output after the block ends."""
    out = ctx.path("watch-flood-%d.out" % os.getpid())
    if os.path.exists(out):
        os.unlink(out)
    return _background([os.path.join(ctx.build, "bench", "flood")] + [str(a) for a in args],
                       out), out


def _flood_result(out):
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    got = kv(text) if text.strip() else {}
    if "rate" not in got:
        raise RuntimeError("flood failed: %s" % text.strip()[-300:])
    return got


def _cpu(pid):
    """Seconds of CPU of process pid so far (utime + stime, all threads)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def _open_dirs(ctx):
    """The work directory searchable by nobody (allow_other rows)."""
    os.chmod(ctx.work, os.stat(ctx.work).st_mode | 0o011)


# ---------------------------------------------------------------- latency

def _write(path, i, excl=True):
    flags = os.O_WRONLY | (os.O_CREAT | os.O_EXCL if excl else 0)
    fd = os.open(path, flags, 0o644)
    try:
        os.pwrite(fd, m_walk.elf_header(i), 0)
    finally:
        os.close(fd)


def _exists(path):
    try:
        os.lstat(path)
        return True
    except FileNotFoundError:
        return False


def _listed(d, name):
    try:
        return name in os.listdir(d)
    except OSError:
        return False


def _elf_tag(path):
    """Bytes 8-16 of a file's elf view (elf_header's tag), None on error."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.pread(fd, 16, 0)[8:16]
    except OSError:
        return None
    finally:
        os.close(fd)


def _tag(i):
    return m_walk.elf_header(i)[8:16]


class _Trials:
    """The trials on one mount: S the source, M the mount. Every trial has
    files of its own, made before the mount (a miss spoils no other)."""

    def __init__(self, src, mnt, n):
        self.S, self.M = src, mnt
        for d in ("c", "d", "r", "r2", "e", "t", "m"):
            os.makedirs(os.path.join(src, d), exist_ok=True)
        for i in range(n):
            for d in ("d", "r", "e", "t", "m"):
                _write(os.path.join(src, d, "%s%d" % (d, i)), i)

    def s(self, *p):
        return os.path.join(self.S, *p)

    def m(self, *p):
        return os.path.join(self.M, *p)

    def create(self, i):
        name = "c%d" % i

        def warm():
            os.listdir(self.m("c"))
            _exists(self.m("c", name))

        return (warm, lambda: _write(self.s("c", name), i),
                lambda: _exists(self.m("c", name)) and _listed(self.m("c"), name))

    def delete(self, i):
        name = "d%d" % i

        def warm():
            os.listdir(self.m("d"))
            os.lstat(self.m("d", name))

        return (warm, lambda: os.unlink(self.s("d", name)),
                lambda: not _exists(self.m("d", name)) and not _listed(self.m("d"), name))

    def rename(self, i):
        name = "r%d" % i

        def warm():
            os.listdir(self.m("r"))
            os.listdir(self.m("r2"))
            os.lstat(self.m("r", name))
            _exists(self.m("r2", name))

        def seen():
            return (not _exists(self.m("r", name)) and _exists(self.m("r2", name)) and
                    _listed(self.m("r2"), name) and not _listed(self.m("r"), name))

        return (warm, lambda: os.rename(self.s("r", name), self.s("r2", name)), seen)

    def _rewrite(self, d, i, times):
        src, elf = self.s(d, "%s%d" % (d, i)), self.m(d, "%s%d" % (d, i), "elf")

        def warm():
            os.lstat(os.path.dirname(elf))
            os.lstat(elf)
            if _elf_tag(elf) != _tag(i):
                raise RuntimeError("%s does not show its bytes" % elf)

        def change():
            st = os.lstat(src)
            _write(src, i + (1 << 40), excl=False)
            if times:
                os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))

        return warm, change, lambda: _elf_tag(elf) == _tag(i + (1 << 40))

    def rewrite(self, i):
        return self._rewrite("e", i, False)

    def rewrite_times(self, i):
        return self._rewrite("t", i, True)

    def chmod(self, i):
        path = self.m("m", "m%d" % i)

        def seen():
            try:
                return not os.lstat(path).st_mode & stat.S_IROTH
            except OSError:
                return False

        return (lambda: os.lstat(path), lambda: os.chmod(self.s("m", "m%d" % i), 0o640), seen)

    def run(self, kind, i):
        """Seconds from the change to the first poll that shows it (None: a miss)."""
        warm, change, seen = getattr(self, kind.replace("-", "_"))(i)
        warm()
        if seen():
            raise RuntimeError("%s trial %d: shown before the change" % (kind, i))
        change()
        t0 = time.perf_counter()
        while True:
            ok = seen()
            t = time.perf_counter() - t0
            if ok:
                return t
            if t > DEADLINE:
                return None
            time.sleep(POLL)


def _latency_mode(ctx, opts, n, load_tree):
    src = ctx.path("watch-lat")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    trials = _Trials(src, ctx.path("mnt-wl"), n)
    churn = ctx.path("watch-churn")
    shutil.rmtree(churn, ignore_errors=True)
    os.makedirs(churn)
    got = {k: [] for k in KINDS}
    try:
        with mounts.elffs(ctx, src, ctx.path("mnt-wl"), opts=opts) as m, \
                mounts.elffs(ctx, load_tree, ctx.path("mnt-wload"), opts=opts) as ml:
            walker = ["sh", "-c", "while :; do find %s -printf '%%y %%s %%m %%i\\n' "
                      ">/dev/null; done" % ml.mnt]
            flood, out = _flood(ctx, "files", churn, 86400, 1000, 1000)
            with _background(walker, ctx.path("watch-walker.log")), flood:
                time.sleep(1)
                for i in range(n):
                    for k in KINDS:
                        got[k].append(trials.run(k, i))
            rate = _flood_result(out)["rate"]
            line = _watch_line(m)
    finally:
        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(churn, ignore_errors=True)
    return got, rate, line


def _lat_stats(times):
    miss = sum(t is None for t in times)
    t = [DEADLINE if x is None else x for x in times]
    return _pct(t, 0.5) * 1e3, _pct(t, 0.99) * 1e3, max(t) * 1e3, miss


def latency(ctx, mlist, load_tree):
    res = {}
    for name, opts in mlist:
        n = (50 if ctx.quick else 200) if name == "auto" else (5 if ctx.quick else 25)
        log("watch latency, watch=%s: %d trials of each kind" % (name, n))
        res[name] = _latency_mode(ctx, opts, n, load_tree)
    off = res["off"][0]
    for k in KINDS:
        o50, o99, omax, omiss = _lat_stats(off[k])
        if "auto" not in res:
            add_row(ctx, "w1-" + k, "%s visible through the mount, watch=off p99" %
                    KIND_WHAT[k], o99, "ms", "-", None, "(info)", None,
                    note="p50 %.1f ms, max %.0f ms, %d trials, %d missed" %
                    (o50, omax, len(off[k]), omiss))
            continue
        auto = res["auto"][0][k]
        a50, a99, amax, amiss = _lat_stats(auto)
        add_row(ctx, "w1-" + k, "%s visible through the mount, watch=auto p99" %
                KIND_WHAT[k], a99, "ms", "watch=off (1 s timeout) p99", o99,
                "<= 50 ms", a99 <= 50 and amiss == 0,
                note="p50 %.2f ms against %.0f ms; max %.0f ms against %.0f; %d and %d "
                "trials, %d and %d not seen within %.0f s" %
                (a50, o50, amax, omax, len(auto), len(off[k]), amiss, omiss, DEADLINE))
    log("watch latency: flood files beside SOURCE at %s files/s" %
        ", ".join("%.0f (%s)" % (res[n][1], n) for n in res))


# ------------------------------------------------------------------ walks

def _walk_mode(ctx, tree, opts, cold):
    """(first walk, second walk GAP s later, daemon's log line); as root on
    a private mount (cold: caches dropped first), or as nobody with
    allow_other (opts hold it)."""
    user = NOBODY if "allow_other" in opts else ()
    if cold:
        m_walk.drop_all()
    with mounts.elffs(ctx, tree, ctx.path("mnt-ww"), opts=opts) as m:
        first = m_walk.find_walk(m.mnt, user=user)[0]
        time.sleep(GAP)
        second = m_walk.find_walk(m.mnt, user=user)[0]
        return first, second, _watch_line(m)


def _walk_tree(ctx, tree, ident, label, mlist):
    runs = 1 if ctx.quick else ctx.runs
    got = {}
    lines = set()
    for r in range(runs):
        log("watch walks of %s, run %d/%d" % (label, r + 1, runs))
        m_walk.drop_all()
        m_walk.find_walk(tree)
        got.setdefault("src", []).append(m_walk.find_walk(tree)[0])
        got.setdefault("src-nobody", []).append(m_walk.find_walk(tree, user=NOBODY)[0])
        order = mlist if r % 2 == 0 else mlist[::-1]
        for name, opts in order:
            f, s, line = _walk_mode(ctx, tree, opts, cold=True)
            got.setdefault(name, []).append((f, s))
            lines.add(line)
        for name, opts in order:
            f, s, _ = _walk_mode(ctx, tree, opts + ["allow_other"], cold=False)
            got.setdefault(name + "-ao", []).append(s)
    for line in sorted(lines):
        if line:
            log("watch walks: the daemon said: " + line)
    src, src_nb = median(got["src"]), median(got["src-nobody"])
    off_f, off_s = (median([t[i] for t in got["off"]]) for i in (0, 1))
    off_ao = median(got["off-ao"])
    note = "%d runs" % runs
    if "auto" in got:
        auto_f, auto_s = (median([t[i] for t in got["auto"]]) for i in (0, 1))
        auto_ao = median(got["auto-ao"])
        add_row(ctx, ident + "a", "first find of %s, fresh mount, cold, watch=auto" % label,
                auto_f, "s", "watch=off", off_f, "<= 1.1 (no slower)", auto_f / off_f <= 1.1,
                note=note)
        add_row(ctx, ident + "b", "second find of %s %.1f s later, watch=auto" % (label, GAP),
                auto_s, "s", "source's warm find", src, "<= 1.3", auto_s / src <= 1.3,
                note="watch=off %.3g s (%.2fx)" % (off_s, off_s / src))
        add_row(ctx, ident + "d", "the same with allow_other, walked by nobody, watch=auto",
                auto_ao, "s", "nobody's warm find of the source", src_nb, "(info)", None,
                note="watch=off %.3g s (%.2fx)" % (off_ao, off_ao / src_nb))
    add_row(ctx, ident + "c", "second find of %s %.1f s later, watch=off" % (label, GAP),
            off_s, "s", "source's warm find", src, "(info)", None,
            note="first find %.3g s" % off_f)
    add_row(ctx, ident + "e", "the same with allow_other, walked by nobody, watch=off",
            off_ao, "s", "nobody's warm find of the source", src_nb, "(info)", None)


def walks(ctx, mlist):
    _open_dirs(ctx)
    share = m_walk.share_tree()
    _walk_tree(ctx, share, "w2s", share, mlist)
    with m_walk.generated(ctx, "watch-gen") as (top, files):
        _walk_tree(ctx, top, "w2g", "a generated tree of %d files" % files, mlist)


# ------------------------------------------------------------------ stats

STAT_SCRIPT = r"""
import os, sys, time
top, paths = sys.argv[1], [l.rstrip("\n") for l in open(sys.argv[2])]
def once():
    bad = 0
    t0 = time.perf_counter()
    for p in paths:
        try:
            os.lstat(top + "/" + p)
        except OSError:
            bad += 1
    return time.perf_counter() - t0, bad
once()
time.sleep(float(sys.argv[3]))
secs, bad = once()
print("secs=%.6f errors=%d" % (secs, bad))
"""


def _deep_paths(tree, n):
    """The n deepest entries under tree the mount shows too (directories,
    symlinks, ELF files), relative, deepest first."""
    ents = []
    for root, dirs, files in os.walk(tree):
        for name in dirs + files:
            p = os.path.join(root, name)
            ents.append((p.count("/"), os.path.relpath(p, tree), p))
    ents.sort(key=lambda e: (-e[0], e[1]))
    out = []
    for _, rel, p in ents:
        if os.path.islink(p) or os.path.isdir(p) or inputs.is_elf(p):
            out.append(rel)
            if len(out) == n:
                break
    return out


def _stat_run(top, paths_file, user=()):
    res = subprocess.run(list(user) + [sys.executable, "-c", STAT_SCRIPT, top, paths_file,
                                       "2"], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("stat script failed: %s" % res.stderr[-500:])
    got = kv(res.stdout)
    return got["secs"], int(got["errors"])


def stats(ctx, mlist):
    _open_dirs(ctx)
    tree = os.environ.get("ELFFS_BENCH_STAT_TREE") or STAT_TREE
    paths = _deep_paths(tree, STAT_PATHS)
    depth = sum(p.count("/") + 1 for p in paths) / len(paths)
    pf = ctx.path("watch-paths")
    with open(pf, "w") as f:
        f.write("".join(p + "\n" for p in paths))
    os.chmod(pf, 0o644)
    got, errs = {}, {}
    runs = 1 if ctx.quick else ctx.runs
    for r in range(runs):
        log("watch stats of %d paths under %s, run %d/%d" % (len(paths), tree, r + 1, runs))
        for who, user in (("root", ()), ("nobody", NOBODY)):
            s, e = _stat_run(tree, pf, user)
            got.setdefault(("src", who), []).append(s)
            errs[("src", who)] = e
            for name, opts in (mlist if r % 2 == 0 else mlist[::-1]):
                o = opts + (["allow_other"] if user else [])
                with mounts.elffs(ctx, tree, ctx.path("mnt-ws"), opts=o) as m:
                    s, e = _stat_run(m.mnt, pf, user)
                got.setdefault((name, who), []).append(s)
                errs[(name, who)] = e
    for who, ident, how in (("root", "w3", "private mount"),
                            ("nobody", "w3n", "allow_other, by nobody")):
        src = median(got[("src", who)])
        what = "%d lstats of the deepest paths under %s (mean depth %.1f) repeated %s, %s" % (
            len(paths), tree, depth, "after 2 s", how)
        off = median(got[("off", who)])
        note = "errors: source %d, watch=off %d" % (errs[("src", who)], errs[("off", who)])
        if ("auto", who) in got:
            auto = median(got[("auto", who)])
            add_row(ctx, ident + "a", what + ", watch=auto", auto, "s", "the same on the source",
                    src, "<= 1.3" if who == "root" else "(info)",
                    auto / src <= 1.3 if who == "root" else None,
                    note=note + ", watch=auto %d; watch=off %.3g s (%.2fx)" % (
                        errs[("auto", who)], off, off / src))
        add_row(ctx, ident + "b", what + ", watch=off", off, "s", "the same on the source", src,
                "(info)", None, note=note)


# ------------------------------------------------------------------ flood

def _idle_cpu(pid, secs):
    c0 = _cpu(pid)
    time.sleep(secs)
    return (_cpu(pid) - c0) / secs * 100


def _counters(mnt):
    """(watch_events, watch_overflows) of the mount (xattrs of .build-id;
    0 where the daemon has none)."""
    out = []
    for k in ("watch_events", "watch_overflows"):
        try:
            out.append(int(os.getxattr(os.path.join(mnt, ".build-id"), "user.elffs." + k)))
        except (OSError, ValueError):
            out.append(0)
    return out


def _flood_mode(ctx, tree, opts, loads):
    """{load: (idle CPU %, walk s, walk CPU s, load rate, RssAnon KiB,
    events read, overflows)}."""
    out = {}
    with mounts.elffs(ctx, tree, ctx.path("mnt-wf"), opts=opts) as m:
        m_walk.find_walk(m.mnt)
        for load, args in loads:
            time.sleep(GAP)
            bg, res = _flood(ctx, *args) if args else (contextlib.nullcontext(), None)
            with bg:
                ev0, ov0 = _counters(m.mnt)
                time.sleep(1 if args else 0)
                idle = _idle_cpu(m.pid, 2 if ctx.quick else 5)
                c0 = _cpu(m.pid)
                walk = m_walk.find_walk(m.mnt)[0]
                wcpu = _cpu(m.pid) - c0
                rss = proc_status(m.pid).get("RssAnon", 0)
                ev1, ov1 = _counters(m.mnt)
            rate = _flood_result(res)["rate"] if res else 0
            out[load] = (idle, walk, wcpu, rate, rss, ev1 - ev0, ov1 - ov0)
        said = _watch_line(m, ("overflow", "watch"))
        if said:
            log("watch flood: the daemon said: " + said)
    return out


def flood(ctx, mlist):
    runs = 1 if ctx.quick else max(3, ctx.runs // 2)
    fl = ctx.path("watch-flood")
    files = 20000 if ctx.quick else FLOOD_FILES
    loads = [("quiet", None), ("files", ["files", fl + "/files", 86400]),
             ("rename", ["rename", fl + "/tree", files, 86400])]
    got = {}
    with m_walk.generated(ctx, "watch-ftree", files) as (top, n):
        try:
            shutil.rmtree(fl, ignore_errors=True)
            os.makedirs(fl + "/files")
            os.makedirs(fl + "/tree")
            with _flood(ctx, "rename", fl + "/tree", files, 0)[0] as p:
                p.wait()  # the tree to rename, made once
            for r in range(runs):
                log("watch flood, run %d/%d" % (r + 1, runs))
                for name, opts in (mlist if r % 2 == 0 else mlist[::-1]):
                    for load, v in _flood_mode(ctx, top, opts, loads).items():
                        got.setdefault((name, load), []).append(v)
        finally:
            shutil.rmtree(fl, ignore_errors=True)
    med = lambda key, i: median([v[i] for v in got[key]])  # noqa: E731
    for load, ident, what in (("files", "w4f", "flood files (create, write, close, unlink) "
                               "as fast as it can"),
                              ("rename", "w4r", "a tree of %d files renamed file by file, "
                               "and back, as fast as it can" % files)):
        rate = median([v[3] for k in got if k[1] == load for v in got[k]])
        for name in [n for n, _ in mlist]:
            suffix = ", watch=%s" % name
            add_row(ctx, "%sc%s" % (ident, "" if name == "auto" else "o"),
                    "daemon's CPU, idle mount of %d files, beside %s (%.0f a second)%s" %
                    (n, what, rate, suffix), med((name, load), 0), "% of a core",
                    "the same, no load", med((name, "quiet"), 0), "(info)", None,
                    ratio=None, note="%.2f us of CPU an operation; RssAnon %d KiB; "
                    "%d events read, %d overflows, over the idle time and the walk" % (
                        med((name, load), 0) / 100 / rate * 1e6, med((name, load), 4),
                        med((name, load), 5), med((name, load), 6)))
            add_row(ctx, "%sw%s" % (ident, "" if name == "auto" else "o"),
                    "second find of the mount under that load%s" % suffix,
                    med((name, load), 1), "s", "the same, no load", med((name, "quiet"), 1),
                    "(info)", None, note="daemon's CPU %.2f s against %.2f s" % (
                        med((name, load), 2), med((name, "quiet"), 2)))
        if ("auto", load) in got:
            a, o = med(("auto", load), 1), med(("off", load), 1)
            add_row(ctx, ident + "x", "second find under that load, watch=auto", a, "s",
                    "watch=off under the same load", o, "(info: bounded)", None)


# ------------------------------------------------------------------ group

PARTS = ("latency", "stats", "flood", "walks")


def measure(ctx):
    """The group; ELFFS_BENCH_WATCH_PARTS=a,b (of PARTS) runs those parts only."""
    parts = [p for p in os.environ.get("ELFFS_BENCH_WATCH_PARTS", ",".join(PARTS)).split(",") if p]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise RuntimeError(f"ELFFS_BENCH_WATCH_PARTS: unknown {unknown} (of {', '.join(PARTS)})")
    mlist, why = modes(ctx)
    if "latency" in parts:
        load = ctx.path("watch-load")
        shutil.rmtree(load, ignore_errors=True)
        m_walk.generate(load, 2000 if ctx.quick else 10000)
        try:
            latency(ctx, mlist, load)
        finally:
            shutil.rmtree(load, ignore_errors=True)
    if "stats" in parts:
        stats(ctx, mlist)
    if "flood" in parts:
        flood(ctx, mlist)
    if "walks" in parts:
        walks(ctx, mlist)
    if why:
        raise RuntimeError(why)
