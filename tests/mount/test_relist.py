#!/usr/bin/python3
"""Listings with attributes (fs/ops/ops_dir.c, readdirplus): which entries
of a listing come with their node, and what a walk then asks.

The tree: a directory of 1,200 symlinks and 1,200 text files (far more than
one listing buffer), and binaries from the fixtures, among them a libc
whose symbol/ directory lists thousands of files, and an ar archive of
ELF objects (members/ holds ELF members, a kind of its own). The mount runs with -d so
that the requests it gets can be counted (libfuse's log, one
"opcode: LOOKUP" line per LOOKUP).

 - a listing alone (scandir, no stat) makes nodes for the first buffer of
   a SOURCE directory only, and none in a binary's directories: listed
   again, those entries still have no inode number (d_ino 0xffffffff, the
   number of an entry without a node). This guards the memory a listing
   costs (the kernel's own READDIRPLUS_AUTO policy made as many);
 - a walk as find does it (a directory listed whole, then each entry
   lstat'ed), then the same walk past the timeout: the second walk
   gets every entry's attributes with the listings and sends at most one
   LOOKUP a directory and a few more (each one revalidates what the kernel
   holds: without attributes in the listing, every entry past a
   directory's first buffer costs one; an entry the kernel forgot
   meanwhile, under memory pressure, costs one too and is counted; the
   two walks are taken again when another test run on the same kernel
   dropped its caches in between: /proc/vmstat's drop_slab); it
   sees what the first one saw, and its listings give the inode number
   of every entry (d_ino). The first walk's LOOKUPs are counted
   too: at least one an entry (so the log is read right);
 - one binary replaced by rename with another, one rewritten in place:
   the same walk again past the timeout sees what a fresh mount of the
   source sees (sizes and kinds of every entry: the attributes a listing
   gives are those of the binary's current view, not of the one the
   kernel held). And a handle of a binary's directory opened before the
   rewrite, listed again from its start after it: each name it still
   lists has the size a fresh mount gives (the attributes come from the
   binary's current view, not the handle's), or is gone where the fresh
   mount has no such name.
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

from elffs_mount import Checker, Mount, cache_drops, fixture, require_fuse, run_mounted

UNKNOWN_INO = 0xFFFFFFFF  # d_ino of an entry without a node (ops_dir.c)
LINKS = 1200
TIMEOUT_S = 3  # -o timeout: a walk on a loaded machine stays inside it
# LOOKUPs the second walk may send besides one per directory and one per
# entry the kernel forgot meanwhile (it has a new inode number then): not
# one per entry.
LOOKUPS_SLACK = 20


def make_tree(src):
    flat = os.path.join(src, "flat")
    os.makedirs(flat)
    for i in range(LINKS):
        os.symlink("nowhere", os.path.join(flat, "link%04d" % i))
        with open(os.path.join(flat, "text%04d" % i), "w") as f:
            f.write("not ELF\n")
    bins = os.path.join(src, "bins")
    os.makedirs(bins)
    for name in ("armhf-libc.so.6", "pie", "many.o", "libshared.so"):
        shutil.copy(fixture(name), os.path.join(bins, name))
    subprocess.run(["ar", "rc", os.path.join(bins, "objs.a")] +
                   [fixture(n) for n in ("many.o", "names.o", "comdat.o")], check=True)
    solo = os.path.join(src, "solo")  # listed alone before any walk
    os.makedirs(solo)
    shutil.copy(fixture("armhf-libc.so.6"), os.path.join(solo, "libc.so.6"))


def listing(path):
    """(name, d_ino) of each entry, from one scandir (no stat)."""
    with os.scandir(path) as it:
        return [(e.name, e.inode()) for e in it]


def walk(top, dinos=None):
    """What find -printf '%y %s %m %i' sees: relative path -> (ino, size,
    mode), each directory listed whole before its entries are lstat'ed;
    the d_ino each listing gave into dinos."""
    out, stack = {}, [top]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            listed = [(e.path, e.inode()) for e in it]
        for p, dino in listed:
            st = os.lstat(p)
            rel = os.path.relpath(p, top)
            out[rel] = (st.st_ino, st.st_size, stat.S_IFMT(st.st_mode))
            if dinos is not None:
                dinos[rel] = dino
            if stat.S_ISDIR(st.st_mode):
                stack.append(p)
    return out


def shapes(w):
    """path -> (size, kind) of a walk."""
    return {p: v[1:] for p, v in w.items()}


def differing(a, b):
    """The paths whose values differ between a and b, or are in one only."""
    return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))


class Requests:
    """The LOOKUPs the daemon's -d log shows from a mark on (the log read
    with pread: the daemon writes at the file's offset, which a seek in
    this process would move)."""

    def __init__(self, m):
        self.fd = m.log.fileno()
        self.mark = 0

    def start(self):
        self.mark = os.fstat(self.fd).st_size

    def lookups(self):
        size = os.fstat(self.fd).st_size
        return os.pread(self.fd, size - self.mark, self.mark).count(b"opcode: LOOKUP")


def check_listing_alone(ck, mnt):
    flat = os.path.join(mnt, "flat")
    listing(flat)
    again = listing(flat)
    unknown = sum(1 for _, ino in again if ino == UNKNOWN_INO)
    ck.eq(len(again), LINKS, "flat/ lists its symlinks, not its text files")
    ck.ok(0 < LINKS - unknown < LINKS // 2,
          f"a listing alone makes nodes for its first buffer only: {LINKS - unknown} of "
          f"{LINKS} entries of flat/ have a node")
    for sub in ("symbol", "sections"):
        d = os.path.join(mnt, "solo", "libc.so.6", sub)
        listing(d)
        again = listing(d)
        known = [n for n, ino in again if ino != UNKNOWN_INO]
        ck.ok(len(again) > (1000 if sub == "symbol" else 10) and not known,
              f"a listing alone makes no node in solo/libc.so.6/{sub}: {len(known)} of "
              f"{len(again)} entries have one ({known[:3]})")
    print(f"listing alone: {LINKS - unknown} of {LINKS} entries of flat/ got a node", flush=True)


def walk_twice(ck, m, req):
    """The first walk, then the second past the timeout: (first, second,
    its d_ino of each entry, its LOOKUPs). Taken again (three times at
    most) when someone dropped the kernel's caches in between (another
    test run on this kernel): every entry is forgotten then."""
    for attempt in range(3):
        req.start()
        drops = cache_drops()
        first = walk(m.path)
        first_lookups = req.lookups()
        # 300: the first buffer of each SOURCE directory comes with
        # attributes (about 200 entries of flat/ in glibc's 32 KiB getdents
        # buffer, a few in the others); the first try's walk is the first
        ck.ok(attempt > 0 or first_lookups >= len(first) - 300,
              f"the first walk sent {first_lookups} LOOKUPs for {len(first)} entries (one an "
              f"entry but the first buffer of each SOURCE directory)")
        time.sleep(TIMEOUT_S + 0.3)  # past the entry and attribute timeout
        req.start()
        dinos = {}
        second = walk(m.path, dinos)
        lookups = req.lookups()
        if cache_drops() == drops:
            break
        print(f"the kernel's caches were dropped between the walks (drop_slab "
              f"{drops} to {cache_drops()}): walked again", flush=True)
    return first, second, dinos, lookups


def check_walks(ck, m, req, src):
    first, second, dinos, lookups = walk_twice(ck, m, req)
    dirs = sum(1 for v in second.values() if stat.S_ISDIR(v[2]))
    renumbered = {p for p, v in second.items() if p in first and first[p][0] != v[0]}
    forgot = len(renumbered)
    counts = {}
    for name in ("overflows", "remounts", "events"):  # an overflow or a remount
        try:  # invalidates every entry (elffs(1), Watching)
            counts[name] = os.getxattr(os.path.join(m.path, ".build-id"),
                                       "user.elffs.watch_" + name).decode()
        except OSError:
            counts[name] = "-"
    print(f"second walk: {len(second)} entries in {dirs} directories, {lookups} LOOKUPs, "
          f"{forgot} entries the kernel forgot, watch {counts}", flush=True)
    ck.ok(len(second) > LINKS + 3000, f"the walk saw {len(second)} entries")
    ck.ok(forgot < len(second) // 10, f"the kernel forgot {forgot} entries between the walks")
    differ = differing(shapes(first), shapes(second))
    ck.ok(not differ, f"the second walk sees what the first saw (size, kind): {len(differ)} "
          f"entries differ, {differ[:6]}")
    odd = sorted(p for p, v in second.items() if dinos[p] != v[0] and p not in renumbered)
    ck.ok(not odd, f"in the second walk each listing gives the inode number of every entry "
          f"the kernel held (d_ino), the members of an archive too: {len(odd)} without, "
          f"{odd[:6]}")
    most = dirs + forgot + LOOKUPS_SLACK
    ck.ok(lookups <= most,
          f"the second walk sent {lookups} LOOKUPs for {len(second)} entries (at most {most}: "
          f"listings give the attributes of what the kernel holds)")

    bins = os.path.join(src, "bins")
    held = os.open(os.path.join(m.path, "bins", "pie", "sections"), os.O_RDONLY | os.O_DIRECTORY)
    try:
        old_names = [n for n, _ in listing(held)]
        tmp = os.path.join(src, "new.tmp")
        shutil.copy(fixture("s390x-libc.so.6"), tmp)
        os.rename(tmp, os.path.join(bins, "armhf-libc.so.6"))  # a new file, by rename
        shutil.copyfile(fixture("libshared.so"), os.path.join(bins, "pie"))  # in place
        time.sleep(TIMEOUT_S + 0.3)
        # from its start, on the same handle: CPython's scandir of a
        # descriptor rewinds it when done (rewinddir), so this lists from 0
        again = [n for n, _ in listing(held)]
        sizes = {}
        for n in again:
            try:
                sizes[n] = os.lstat(os.path.join(m.path, "bins", "pie", "sections", n)).st_size
            except FileNotFoundError:
                sizes[n] = None
    finally:
        os.close(held)
    changed = walk(m.path)
    with Mount(ck, src) as fresh:
        want = walk(fresh.path)
    fresh_sizes = {n: want[p][1] if p in want else None
                   for n in again for p in [os.path.join("bins", "pie", "sections", n)]}
    ck.eq(again, old_names, "a handle opened before the rewrite lists what it listed")
    ck.eq(sizes, fresh_sizes, "its names, stat'ed after it listed them again, have the sizes "
          "a fresh mount gives (or are gone)")
    ck.ok(sizes != {n: None for n in again}, "some of its names are there after the rewrite")
    differ = differing(shapes(changed), shapes(want))
    ck.ok(not differ, f"after a rename and an in-place rewrite, the walk sees what a fresh "
          f"mount sees (size and kind of every entry): {len(differ)} differ, {differ[:6]}")
    ck.ok(differing(shapes(changed), shapes(first)), "the changes show in the walk")


def main():
    require_fuse()
    ck = Checker("relist")
    work = tempfile.mkdtemp(prefix="elffs-relist-")
    src = os.path.join(work, "src")

    def body(m):
        req = Requests(m)
        check_listing_alone(ck, m.path)
        check_walks(ck, m, req, src)

    try:
        make_tree(src)
        # watch=off: what a listing gives past the timeout is the subject
        # here (watched, the kernel keeps entries and listings for a day)
        run_mounted(ck, src, ["-d", "-o", f"timeout={TIMEOUT_S},watch=off"], body)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
