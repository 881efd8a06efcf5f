#!/usr/bin/python3
"""Node memory: what the daemon spends on each entry the
kernel holds, its peak over a big walk, and what it gives back once the
kernel forgets.

The tree is made here: COPIES directories, each holding a copy of every
fixture of the MANIFEST (but core and xnum.o), plus one xnum.o (66,008
sections) at the top; the two foreign libcs make most entries (their
symbol/ files), as libraries do in /usr/lib. The walk is `find` then
`find -ls` in two steps:

1. a listing of every directory (scandir, no stat: the kernel looks up
   only the directories): the views of the binaries are parsed and their
   name tables made;
2. an lstat of every entry: the kernel now holds a node of the daemon for
   each. What RssAnon grew by in this step, divided by the entries the
   kernel still held at its end, is the cost of an entry the kernel holds:
   at most PER_ENTRY_MAX bytes (release builds).

The daemon's VmHWM over the whole walk is at most PEAK_MAX. Then the
kernel's caches are dropped (echo 2 > /proc/sys/vm/drop_caches): the kernel
forgets the nodes (an entry stat'ed again has a new inode number) and the
daemon's RssAnon falls back near what it was before the walk.

Entries the kernel dropped during step 2 (another process dropping the
caches, memory pressure) are found by their inode number and not counted;
when the caches were dropped during the walk (/proc/vmstat drop_slab) or
fewer than KEPT_MIN of the entries stayed, the walk is made again on a new
mount (ATTEMPTS in all): such a walk can only look worse than it is. The
figures also show what the views take (step 1), printed, not checked: the
binary cache's memory budget bounds that. Under AddressSanitizer the walk
and the inode numbers are checked, not the memory figures (the sanitizer's
allocator keeps freed memory in quarantine and adds redzones).
"""

import os
import shutil
import sys
import tempfile
import time

from elffs_mount import Checker, Mount, MountError, drop_caches, fixtures_dir, require_fuse

KiB = 1024
MiB = 1024 * KiB
PER_ENTRY_MAX = 100
PEAK_MAX = 160 * MiB
COPIES = 48
COPIES_SANITIZED = 6
KEPT_MIN = 0.9
RENUMBERED_MIN = 0.9
ATTEMPTS = 3
KEPT_SAMPLE = 7  # one entry in KEPT_SAMPLE is stat'ed again to see that it stayed
DROP_SAMPLE = 50
# RssAnon after the forgets may exceed the start by this much (threads'
# buffers grown by the walk, malloc's arenas), plus RETURN_SHARE of the growth.
RETURN_SLACK = 8 * MiB
RETURN_SHARE = 0.10


def sanitized():
    return os.environ.get("ELFFS_SANITIZE", "none") not in ("", "none")


def templates():
    with open(os.path.join(fixtures_dir(), "MANIFEST")) as f:
        names = [ln.split()[0] for ln in f if ln.strip()]
    return [n for n in names if n not in ("core", "xnum.o")]


def make_tree(root, copies):
    src = fixtures_dir()
    for i in range(copies):
        d = os.path.join(root, f"d{i:03d}")
        os.mkdir(d)
        for name in templates():
            shutil.copyfile(os.path.join(src, name), os.path.join(d, name))
    shutil.copyfile(os.path.join(src, "xnum.o"), os.path.join(root, "xnum.o"))


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for ln in f:
            k, _, v = ln.partition(":")
            if k in ("RssAnon", "RssFile", "VmHWM"):
                out[k] = int(v.split()[0]) * KiB
    return out


def drops():
    """How many times the kernel's slab caches were dropped since boot."""
    try:
        with open("/proc/vmstat") as f:
            for ln in f:
                if ln.startswith("drop_slab "):
                    return int(ln.split()[1])
    except OSError:
        pass
    return None


def listing(top):
    """Every path below top, as `find` sees them (d_type, no stat)."""
    out, stack = [], [top]
    while stack:
        with os.scandir(stack.pop()) as it:
            for e in it:
                out.append(e.path)
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
    return out


def warm_up(mnt):
    """One copy walked and forgotten: the worker threads and their buffers
    exist before the start is taken."""
    for p in listing(os.path.join(mnt, "d000")):
        os.lstat(p)
    drop_caches(2, settle=1.5)


def walk(mnt, pid):
    """The two steps; their figures, or None when the kernel dropped too
    many entries meanwhile."""
    warm_up(mnt)
    fig = {"start": status(pid)["RssAnon"], "drops": drops()}
    t = time.monotonic()
    paths = listing(mnt)
    fig["listed"] = status(pid)["RssAnon"]
    fig["list_s"] = time.monotonic() - t
    t = time.monotonic()
    inos = [os.lstat(p).st_ino for p in paths]
    st = status(pid)
    fig["stat_s"] = time.monotonic() - t
    fig.update(held=st["RssAnon"], hwm=st["VmHWM"], file=st["RssFile"])
    sample = list(zip(paths, inos))[::KEPT_SAMPLE]
    stayed = sum(1 for p, i in sample if os.lstat(p).st_ino == i)
    fig["drops"] = None if fig["drops"] is None else drops() - fig["drops"]
    fig.update(paths=paths, inos=inos, kept=len(paths) * stayed / max(1, len(sample)))
    return fig


def report(fig):
    n, kept = len(fig["paths"]), fig["kept"]
    per_entry = (fig["held"] - fig["listed"]) / max(1.0, kept)
    overall = (fig["held"] - fig["start"]) / max(1, n)
    print(f"{n} entries ({kept:.0f} held at the end; caches dropped {fig['drops']} times "
          f"by others): listing {fig['list_s']:.1f} s, lstat {fig['stat_s']:.1f} s; RssAnon "
          f"{fig['start'] / MiB:.1f} -> {fig['listed'] / MiB:.1f} (views) -> "
          f"{fig['held'] / MiB:.1f} MiB (nodes): {per_entry:.1f} bytes per entry held, "
          f"{overall:.1f} with the views; VmHWM {fig['hwm'] / MiB:.1f} MiB, RssFile "
          f"{fig['file'] / MiB:.1f} MiB", flush=True)
    return per_entry


def check_forgets(ck, pid, fig):
    drop_caches(3, settle=1.5)
    after = status(pid)["RssAnon"]
    sample = list(zip(fig["paths"], fig["inos"]))[::DROP_SAMPLE]
    renumbered = sum(1 for p, i in sample if os.lstat(p).st_ino != i)
    growth = fig["held"] - fig["start"]
    print(f"after the forgets: RssAnon {after / MiB:.1f} MiB (start {fig['start'] / MiB:.1f}, "
          f"held {fig['held'] / MiB:.1f}); {renumbered} of {len(sample)} entries renumbered",
          flush=True)
    ck.ok(renumbered >= RENUMBERED_MIN * len(sample),
          f"only {renumbered} of {len(sample)} entries got a new inode number after the "
          f"kernel dropped its caches: nodes not freed")
    if not sanitized():
        slack = RETURN_SLACK + RETURN_SHARE * growth
        ck.ok(after - fig["start"] <= slack,
              f"RssAnon {after} after the forgets, {after - fig['start']} above the start "
              f"{fig['start']} (at most {slack:.0f}; it was {fig['held']} with the nodes)")


def check_walk(ck, fig, want_min):
    n = len(fig["paths"])
    ck.ok(n >= want_min, f"the walk saw {n} entries, want at least {want_min}")
    ck.eq(len(set(fig["inos"])), n, "distinct inode numbers among the entries held")
    per_entry = report(fig)
    if sanitized():
        print("sanitized build: memory figures not checked", flush=True)
        return
    ck.ok(per_entry <= PER_ENTRY_MAX,
          f"{per_entry:.1f} bytes of RssAnon per entry the kernel holds, at most {PER_ENTRY_MAX}")
    ck.ok(fig["hwm"] <= PEAK_MAX,
          f"peak RSS (VmHWM) {fig['hwm'] / MiB:.1f} MiB over the walk, at most "
          f"{PEAK_MAX / MiB:.0f}")


def disturbed(fig):
    """Whether the kernel dropped entries while the walk was measured: what
    was dropped during the listing is parsed again during the lstat (its
    views then count as nodes), what was dropped during the lstat is not
    held. Both only make the figures worse, never better."""
    return bool(fig["drops"]) or fig["kept"] < KEPT_MIN * len(fig["paths"])


def run(ck, root, want_min):
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with Mount(ck, root) as m:
                fig = walk(m.path, m.proc.pid)
                if disturbed(fig) and attempt < ATTEMPTS:
                    report(fig)
                    print(f"attempt {attempt}: the kernel dropped entries during the walk; "
                          f"again", flush=True)
                    continue
                if disturbed(fig):
                    print("the kernel dropped entries during every attempt: the figures "
                          "below are worse than the daemon's", flush=True)
                check_walk(ck, fig, want_min)
                check_forgets(ck, m.proc.pid, fig)
                ck.ok(m.alive(), "daemon died")
                return
        except MountError as e:
            ck.fail(str(e))
            return


def main():
    require_fuse()
    ck = Checker("nodemem")
    copies = COPIES_SANITIZED if sanitized() else COPIES
    root = tempfile.mkdtemp(prefix="elffs-nodemem-")
    try:
        t = time.monotonic()
        make_tree(root, copies)
        print(f"tree: {copies} copies of {len(templates())} fixtures and xnum.o "
              f"({time.monotonic() - t:.1f} s)", flush=True)
        run(ck, root, want_min=66000 + copies * 6000)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
