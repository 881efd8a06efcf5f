#!/usr/bin/python3
"""The build-id index (issue 13): how fast the first walk indexes a tree and
how much memory it keeps per file, against `find SRC -type f | xargs
readelf -n` over the same tree (what a script that builds such an index
by hand runs).

    sudo bench/buildid.py ELFFS [N] [TREE...]

ELFFS is the daemon (build/fs/elffs). A tree of N generated files (default
100,000: small ELF64 objects with one 20-byte build id each, 1,000 a
directory; tests/fixtures/buildids.py) is made in $ELFFS_BENCH_WORK
(default /tmp/elffs-bench-buildid) and kept; each TREE given (e.g.
/usr/lib/x86_64-linux-gnu) is measured too. For each tree, RUNS times
(ELFFS_BENCH_RUNS, default 3), page cache warm (one untimed find first):
a fresh mount, `ls MOUNT/.build-id` (starts the walk and waits for it),
the walk's own time (user.elffs.walk_ms), the index's bytes
(user.elffs.bytes) and the daemon's RssAnon before and after; then the
readelf pipeline. Medians are printed as a Markdown table.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

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


def rss_anon(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0


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
               "rss": rss_anon(p.pid) - before}
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


def measure(elffs, tree):
    subprocess.run(["find", tree, "-type", "f"], stdout=subprocess.DEVNULL)  # warm
    figs = [one_mount(elffs, tree) for _ in range(RUNS)]
    base = [readelf_pipeline(tree) for _ in range(RUNS)]
    med = {k: statistics.median(f[k] for f in figs) for k in figs[0]}
    med["readelf"] = statistics.median(base)
    return med


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    elffs = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    trees = [make_tree(n)] + sys.argv[3:]
    print("| tree | files read | indexed | ls .build-id (s) | walk (s) | files/s "
          "| index bytes/file | RssAnon bytes/file | preads/file "
          "| find + xargs readelf -n (s) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tree in trees:
        m = measure(elffs, tree)
        ix = max(1, m["indexed"])
        print("| %s | %d | %d | %.2f | %.2f | %.0f | %.0f | %.0f | %.2f | %.2f | %.1fx |" % (
            tree, m["files"], m["indexed"], m["secs"], m["walk"],
            m["files"] / max(m["walk"], 1e-6), m["bytes"] / ix, m["rss"] / ix,
            m["preads"] / max(1, m["files"]), m["readelf"], m["readelf"] / max(m["secs"], 1e-6)),
            flush=True)


if __name__ == "__main__":
    main()
