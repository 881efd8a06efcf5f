#!/usr/bin/python3
"""The build-id index: how fast the first walk indexes a tree and
how much memory it keeps per file, against `find SRC -type f | xargs
readelf -n` over the same tree (what a script that builds such an index
by hand runs) and against debuginfod's own scanner (`debuginfod -F`, when
installed: scripts/bench buildid installs Debian's debuginfod).

    sudo bench/buildid.py ELFFS [N] [TREE...]

ELFFS is the daemon (build/fs/elffs). A tree of N generated files (default
100,000: small ELF64 objects with one 20-byte build id each, 1,000 a
directory; tests/fixtures/buildids.py) is made in $ELFFS_BENCH_WORK
(default /tmp/elffs-bench-buildid) and kept; each TREE given (e.g.
/usr/lib/x86_64-linux-gnu) is measured too. For each tree, RUNS times
(ELFFS_BENCH_RUNS, default 3), page cache warm (one untimed find first):
a fresh mount, `ls MOUNT/.build-id` (starts the walk and waits for it),
the walk's own time (user.elffs.walk_ms), the index's bytes
(user.elffs.bytes), the daemon's RssAnon before and after and its peak
RSS (VmHWM); then the readelf pipeline; then `debuginfod -F -d DB -t 0 -g 0
TREE` with a fresh SQLite database in a temporary directory: the time from
its start until its /metrics say the first traversal is done and no file
is waiting for or being scanned (and that of an empty tree: its
start-up), its peak RSS (VmHWM) and the size of its database. Medians are printed as Markdown tables.
"""
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fixtures"))
import buildids  # noqa: E402

RUNS = int(os.environ.get("ELFFS_BENCH_RUNS", "3"))
WORK = os.environ.get("ELFFS_BENCH_WORK", "/tmp/elffs-bench-buildid")


def make_tree(n):
    root = os.path.join(WORK, "gen-%d" % n)
    if os.path.isfile(os.path.join(root, "DONE")):
        return root
    os.makedirs(root, exist_ok=True)
    for i in range(n):
        d = os.path.join(root, "d%03d" % (i // 1000))
        if i % 1000 == 0:
            os.makedirs(d, exist_ok=True)
        ident = i.to_bytes(4, "big") + bytes(16)
        with open(os.path.join(d, "f%05d.o" % i), "wb") as f:
            f.write(buildids.note_elf(buildids.note(ident)))
    open(os.path.join(root, "DONE"), "w").close()
    return root


def status(pid, key):
    """A size of /proc/PID/status (RssAnon, VmHWM) in bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def rss_anon(pid):
    return status(pid, "RssAnon")


def xattr(path, name):
    return int(os.getxattr(path, "user.elffs." + name))


def one_mount(elffs, tree):
    mnt = tempfile.mkdtemp(prefix="elffs-bench-mnt-")
    p = subprocess.Popen([elffs, "-f", tree, mnt], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        while not os.path.ismount(mnt):
            time.sleep(0.01)
        os.listdir(mnt)
        before = rss_anon(p.pid)
        t0 = time.perf_counter()
        os.listdir(os.path.join(mnt, ".build-id"))
        secs = time.perf_counter() - t0
        top = os.path.join(mnt, ".build-id")
        fig = {"secs": secs, "walk": xattr(top, "walk_ms") / 1000.0,
               "files": xattr(top, "files"), "indexed": xattr(top, "indexed"),
               "bytes": xattr(top, "bytes"), "preads": xattr(top, "preads"),
               "rss": rss_anon(p.pid) - before, "hwm": status(p.pid, "VmHWM")}
    finally:
        subprocess.run(["fusermount3", "-u", mnt])
        p.wait()
        os.rmdir(mnt)
    return fig


def readelf_pipeline(tree):
    t0 = time.perf_counter()
    subprocess.run("find %s -type f -print0 | xargs -0 -n 500 readelf -n >/dev/null 2>&1"
                   % tree, shell=True, env=dict(os.environ, LC_ALL="C"))
    return time.perf_counter() - t0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def metrics(port):
    """debuginfod's /metrics as {name{labels}: value}, or None."""
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def scan_done(m):
    """The first traversal done, no file waiting for or in a scan (a tree
    without files never gets a scan queue metric)."""
    return (m is not None and m.get('thread_work_total{role="traverse"}', 0) >= 1
            and m.get('thread_work_pending{role="scan"}', 0) == 0
            and m.get('thread_busy{role="scan"}', 0) == 0
            and m.get('thread_busy{role="traverse"}', 1) == 0)


def debuginfod_scan(tree):
    """One scan of tree by debuginfod -F with a fresh database."""
    work = tempfile.mkdtemp(prefix="elffs-bench-debuginfod-")
    db = os.path.join(work, "db.sqlite")
    port = free_port()
    t0 = time.perf_counter()
    p = subprocess.Popen(["debuginfod", "-F", "-d", db, "-p", str(port), "-t", "0", "-g", "0",
                          tree], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        m = None
        while not scan_done(m):
            if p.poll() is not None:
                raise RuntimeError("debuginfod exited with status %d" % p.returncode)
            time.sleep(0.02)
            m = metrics(port)
        secs = time.perf_counter() - t0
        fig = {"secs": secs, "hwm": status(p.pid, "VmHWM"),
               "files": m.get('scanned_files_total{source="file"}', 0),
               "exec": m.get('found_executable_total{source="files"}', 0),
               "debug": m.get('found_debuginfo_total{source="files"}', 0),
               "db": sum(os.path.getsize(os.path.join(work, f)) for f in os.listdir(work))}
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        shutil.rmtree(work)
    return fig


def measure(elffs, tree):
    subprocess.run(["find", tree, "-type", "f"], stdout=subprocess.DEVNULL)  # warm
    figs = [one_mount(elffs, tree) for _ in range(RUNS)]
    base = [readelf_pipeline(tree) for _ in range(RUNS)]
    med = {k: statistics.median(f[k] for f in figs) for k in figs[0]}
    med["readelf"] = statistics.median(base)
    if shutil.which("debuginfod"):
        dd = [debuginfod_scan(tree) for _ in range(RUNS)]
        med["dd"] = {k: statistics.median(f[k] for f in dd) for k in dd[0]}
    return med


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    elffs = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    trees = [make_tree(n)] + sys.argv[3:]
    results = []
    print("| tree | files read | indexed | ls .build-id (s) | walk (s) | files/s "
          "| index bytes/file | RssAnon bytes/file | preads/file "
          "| find + xargs readelf -n (s) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tree in trees:
        m = measure(elffs, tree)
        results.append((tree, m))
        ix = max(1, m["indexed"])
        print("| %s | %d | %d | %.2f | %.2f | %.0f | %.0f | %.0f | %.2f | %.2f | %.1fx |" % (
            tree, m["files"], m["indexed"], m["secs"], m["walk"],
            m["files"] / max(m["walk"], 1e-6), m["bytes"] / ix, m["rss"] / ix,
            m["preads"] / max(1, m["files"]), m["readelf"], m["readelf"] / max(m["secs"], 1e-6)),
            flush=True)
    if not shutil.which("debuginfod"):
        print("\ndebuginfod is not installed: no comparison with its scanner")
        return
    empty = tempfile.mkdtemp(prefix="elffs-bench-empty-")
    try:  # its start-up: an empty tree until the same metrics say done
        start = statistics.median(debuginfod_scan(empty)["secs"] for _ in range(RUNS))
    finally:
        os.rmdir(empty)
    print("\ndebuginfod -F's start-up (an empty tree): %.2f s" % start)
    print("\n| tree | elffs files/s | debuginfod -F files/s | time ratio "
          "| time ratio less its start-up "
          "| elffs peak RSS (MB) | debuginfod peak RSS (MB) | RSS ratio "
          "| debuginfod files scanned | its database bytes/file |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for tree, m in results:
        d = m["dd"]
        secs = max(m["secs"], 1e-6)
        print("| %s | %.0f | %.0f | %.1fx | %.1fx | %.1f | %.1f | %.1fx | %d | %.0f |" % (
            tree, m["files"] / secs, d["files"] / max(d["secs"], 1e-6), d["secs"] / secs,
            max(d["secs"] - start, 0) / secs, m["hwm"] / 1e6, d["hwm"] / 1e6,
            d["hwm"] / max(m["hwm"], 1), d["files"], d["db"] / max(1, d["files"])), flush=True)


if __name__ == "__main__":
    main()
