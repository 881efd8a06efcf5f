#!/usr/bin/python3
"""Listings of SOURCE directories classified together (fs/source/probe_batch.c).

A directory's entries are classified by the listing's thread and helper
threads at once, and the answers kept by file identity. What a listing
shows must be what one look at each entry gives:

 - mixed: a directory of 1,500 entries (ELF files, ar and thin archives,
   text files, files of 0 to 7 bytes that begin like the magics, symlinks,
   subdirectories, FIFOs) lists exactly the directories, symlinks and files
   that start with "\\x7fELF", "!<arch>\\n" or "!<thin>\\n", ELF files and
   archives as directories (d_type and lstat), in the source's order;
   the same once more from the kept answers, and again after files changed
   kind in place (an ELF file rewritten as text, text rewritten as ELF, a
   file replaced by rename): the kept answers follow the file's identity.
   Default options and -s.
 - ahead: the look ahead of the walk (fs/source/ahead.c), on a tmpfs
   mounted with strictatime (a file's atime tells whether the daemon read
   it). A listing of the mount's top lets the daemon read at most
   AHEAD_WINDOW entries below it that nobody listed, and some (the look
   ahead works); none of a directory that others may not list (mode
   0700); none with ELFFS_PROBE_AHEAD=0. A walk of the tree then lists
   exactly what one look at each entry gives.
 - kept: what a walk learned is kept. A tree of 6,001 files (600 of them
   ELF headers, the rest text) on a strictatime tmpfs, with the cache of magic answers starting at 64
   tags (ELFFS_PROBE_CACHE_FIRST) so that it grows many times: a first
   walk reads every file, a second one (past the 1 s timeout, so that the
   listings are taken again) reads none.
 - hung: the same directory with one more entry, a regular file
   bind-mounted from a second elffs whose daemon is stopped (SIGSTOP). The
   listing answers without it (the file cannot be read), and its other
   entries are all there; a listing again leaves it out at once. Once the
   second daemon goes on, the file is listed (it is ELF). A watchdog
   continues the stopped daemon and aborts the mount if a listing hangs:
   the test then fails instead of hanging.

usage: test_walk.py [mixed|ahead|kept|hung ...]   (default: all)
"""

import os
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

from elffs_mount import (Checker, Mount, Watchdog, fixture, require_fuse, tmpfs_source,
                         wait_for)

AHEAD_WINDOW = 2048  # fs/source/ahead.h
OLD_ATIME = 1000000000
HANG_LIMIT = 120.0  # seconds a listing may take before the watchdog steps in
ELF_MAGIC = b"\x7fELF"
AR_MAGICS = (b"!<arch>\n", b"!<thin>\n")


def shown(path):
    """How one look at SOURCE entry path shows it: 'd', 'l', 'b' (a binary:
    a directory in the mount), or None (left out)."""
    st = os.lstat(path)
    if stat.S_ISDIR(st.st_mode):
        return "d"
    if stat.S_ISLNK(st.st_mode):
        return "l"
    if not stat.S_ISREG(st.st_mode):
        return None
    with open(path, "rb") as f:
        head = f.read(8)
    return "b" if head[:4] == ELF_MAGIC or head in AR_MAGICS else None


def expected(src):
    """Name -> kind of what the mount must list, in the source's order."""
    out = {}
    for name in os.listdir(src):
        k = shown(os.path.join(src, name))
        if k:
            out[name] = k
    return out


def listed(ck, mnt, tag):
    """Name -> kind of the mount's listing (d_type, checked against lstat)."""
    out = {}
    with os.scandir(mnt) as it:
        for e in it:
            kind = "l" if e.is_symlink() else "d" if e.is_dir(follow_symlinks=False) else "f"
            out[e.name] = kind
    for name, kind in list(out.items())[:400]:  # lstat agrees with d_type
        st = os.lstat(os.path.join(mnt, name))
        got = "l" if stat.S_ISLNK(st.st_mode) else "d" if stat.S_ISDIR(st.st_mode) else "f"
        ck.ok(got == kind, f"{tag}: {name}: d_type {kind}, lstat {got}")
    return out


def same(ck, got, want, tag):
    """got (mount: d, l, f) against want (source: d, l, b)."""
    mount_kind = {"d": "d", "l": "l", "b": "d"}
    want_m = {n: mount_kind[k] for n, k in want.items()}
    missing = sorted(set(want_m) - set(got))
    extra = sorted(set(got) - set(want_m))
    wrong = sorted(n for n in set(got) & set(want_m) if got[n] != want_m[n])
    ck.ok(not missing and not extra and not wrong,
          f"{tag}: {len(missing)} missing {missing[:5]}, {len(extra)} extra {extra[:5]}, "
          f"{len(wrong)} of another kind {wrong[:5]}")
    print(f"{tag}: {len(got)} listed, {len(want_m)} expected", flush=True)


def fill(d, n=1500):
    """A mixed directory of n entries (about)."""
    exe = open(fixture("exec"), "rb").read()
    obj = open(fixture("names.o"), "rb").read()
    heads = [b"", b"\x7f", b"\x7fE", b"\x7fEL", ELF_MAGIC, b"\x7fELG", b"!<arch>",
             b"!<arch>\n", b"!<thin>\n", b"!<arch>X", b"#!/bin/sh\n"]
    for i in range(n):
        p = os.path.join(d, f"e{i:04d}")
        r = i % 10
        if r in (0, 1):
            with open(p, "wb") as f:
                f.write(exe if r == 0 else obj)
        elif r in (2, 3, 4):
            with open(p, "wb") as f:
                f.write(b"text %d\n" % i * (1 + i % 50))
        elif r == 5:
            with open(p, "wb") as f:
                f.write(heads[i // 10 % len(heads)])
        elif r == 6:
            os.symlink(f"e{(i + 1) % n:04d}", p)
        elif r == 7:
            os.mkdir(p)
        elif r == 8 and i % 30 == 8:
            os.mkfifo(p)
        else:
            with open(p, "wb") as f:
                f.write(b"!<arch>\n" + b"x" * (i % 7))


def change_kinds(d):
    """Files that change kind in place, keeping their names; the new
    content differs in size so that no identity stays the same by chance."""
    exe = open(fixture("exec"), "rb").read()
    for i in range(0, 200, 10):  # ELF rewritten as text (same inode)
        with open(os.path.join(d, f"e{i:04d}"), "r+b") as f:
            f.truncate(0)
            f.write(b"not ELF any more\n")
    for i in range(2, 200, 10):  # text rewritten as ELF
        with open(os.path.join(d, f"e{i:04d}"), "wb") as f:
            f.write(exe)
    for i in range(3, 200, 10):  # replaced by rename with an ELF file
        tmp = os.path.join(d, f".tmp{i}")
        with open(tmp, "wb") as f:
            f.write(exe + b"\0" * i)
        os.rename(tmp, os.path.join(d, f"e{i:04d}"))


def run_listing(ck, fn, tag, conn, before_abort=None):
    """fn() in a thread, under a watchdog; its result or None."""
    res = {}

    def body():
        try:
            res["v"] = fn()
        except OSError as e:
            res["e"] = e

    with Watchdog(ck, conn, tag, HANG_LIMIT, before_abort=before_abort):
        t = threading.Thread(target=body, daemon=True)
        t.start()
        t.join(HANG_LIMIT + 10)
    if "e" in res:
        ck.fail(f"{tag}: {res['e']!r}")
    return res.get("v")


def mixed(ck, args, tag):
    tmp = tempfile.mkdtemp(prefix="elffs-walk-")
    try:
        src = os.path.join(tmp, "src")
        d = os.path.join(src, "d")
        os.makedirs(d)
        fill(d)
        want = expected(d)
        with Mount(ck, src, args + ["-o", "timeout=0.2"]) as m:
            conn = os.minor(os.stat(m.path).st_dev)
            mnt = os.path.join(m.path, "d")
            got = run_listing(ck, lambda: listed(ck, mnt, tag), f"{tag} first", conn)
            same(ck, got or {}, want, f"{tag}: first listing")
            time.sleep(0.3)  # past the snapshot's timeout: the kept answers
            got = run_listing(ck, lambda: listed(ck, mnt, tag), f"{tag} again", conn)
            same(ck, got or {}, want, f"{tag}: listing again")
            names = list(os.listdir(d))
            order = [n for n in os.listdir(mnt)]
            ck.eq(order, [n for n in names if n in want], f"{tag}: the source's order")
            change_kinds(d)
            want = expected(d)
            time.sleep(0.3)
            got = run_listing(ck, lambda: listed(ck, mnt, tag), f"{tag} changed", conn)
            same(ck, got or {}, want, f"{tag}: after files changed kind")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ahead_tree(src):
    """A tree whose files are text but one ELF file: a/ (3,000 files and
    a/sub/ of 500), private/ (mode 0700, 200 files), z/ (10 files)."""
    exe = open(fixture("exec"), "rb").read()
    counts = {"a": 3000, "a/sub": 500, "private": 200, "z": 10}
    for rel, n in counts.items():
        d = os.path.join(src, rel)
        os.makedirs(d, exist_ok=True)
        for i in range(n):
            with open(os.path.join(d, f"t{i:04d}"), "wb") as f:
                f.write(b"a text file %d\n" % i * 4)
    with open(os.path.join(src, "a", "prog"), "wb") as f:
        f.write(exe)
    os.chmod(os.path.join(src, "private"), 0o700)


def old_atimes(src):
    for top, _, files in os.walk(src):
        for name in files:
            p = os.path.join(top, name)
            os.utime(p, (OLD_ATIME, os.stat(p).st_mtime))


def read_files(src):
    """{top directory: files of it and below read since old_atimes}."""
    out = {}
    for top, _, files in os.walk(src):
        key = os.path.relpath(top, src).split(os.sep)[0]
        n = sum(1 for f in files if os.stat(os.path.join(top, f)).st_atime != OLD_ATIME)
        out[key] = out.get(key, 0) + n
    return out


def settled_reads(src, limit=30.0):
    """read_files(src) once it stayed the same for a second."""
    last, since, t0 = None, time.monotonic(), time.monotonic()
    while time.monotonic() - t0 < limit:
        now = read_files(src)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= 1.0:
            break
        time.sleep(0.2)
    return last


def ahead(ck, args, tag):
    with tmpfs_source(ck, tag, "elffs-walk-ahead-") as src:
        if src:
            ahead_in(ck, args, tag, src)


def ahead_in(ck, args, tag, src):
    ahead_tree(src)
    for on in (True, False):
        old_atimes(src)
        if not on:
            os.environ["ELFFS_PROBE_AHEAD"] = "0"
        try:
            with Mount(ck, src, args + ["-o", "buildid=off"]) as m:
                os.listdir(m.path)
                got = settled_reads(src)
                print(f"{tag}: look ahead {'on' if on else 'off'}: files read {got}",
                      flush=True)
                if on:
                    below = got.get("a", 0) + got.get("z", 0)
                    ck.ok(0 < below <= AHEAD_WINDOW,
                          f"{tag}: files read ahead after one listing: {got} "
                          f"(want 1 to {AHEAD_WINDOW})")
                    ck.eq(got.get("private", 0), 0, f"{tag}: files of private/ read ahead")
                else:
                    ck.eq(sum(got.values()), 0, f"{tag}: files read with the look ahead off")
                walk_listed(ck, m.path, expectations(src), f"{tag}: walk")
        finally:
            os.environ.pop("ELFFS_PROBE_AHEAD", None)


def atimes(src):
    """{path: atime in ns} of the regular files below src."""
    return {os.path.join(top, f): os.stat(os.path.join(top, f)).st_atime_ns
            for top, _, files in os.walk(src) for f in files}


def expectations(src):
    """{relative directory: expected(it)} of every directory of src (this
    reads the files: before any atime is taken)."""
    return {os.path.relpath(top, src): expected(top) for top, _, _ in os.walk(src)}


def walk_listed(ck, mnt, want, tag):
    for rel, w in want.items():
        same(ck, listed(ck, os.path.join(mnt, rel), tag), w, f"{tag}, {rel}")


def elf_header(i):
    """A 64-byte ELF64 x86-64 ET_REL header without sections; i makes it
    unique."""
    return (ELF_MAGIC + bytes([2, 1, 1, 0]) + struct.pack("<Q", i) +
            struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, 0, 0, 64, 0, 0, 64, 0, 0))


def kept_tree(src):
    """8 directories of 750 files: 1 in 10 an ELF header, the others text;
    and one whole ELF file."""
    for d in range(8):
        sub = os.path.join(src, f"d{d}")
        os.makedirs(sub)
        for i in range(750):
            with open(os.path.join(sub, f"t{i:03d}"), "wb") as f:
                f.write(elf_header(d * 750 + i) if i % 10 == 0 else b"text %d %d\n" % (d, i))
    shutil.copy(fixture("exec"), os.path.join(src, "d0", "prog"))


def kept(ck, args, tag):
    with tmpfs_source(ck, tag, "elffs-walk-kept-") as src:
        if not src:
            return
        kept_tree(src)
        want = expectations(src)
        before = atimes(src)
        os.environ["ELFFS_PROBE_CACHE_FIRST"] = "64"
        os.environ["ELFFS_PROBE_AHEAD"] = "0"
        try:
            with Mount(ck, src, args + ["-o", "buildid=off"]) as m:
                kept_walks(ck, tag, m.path, src, want, before)
        finally:
            os.environ.pop("ELFFS_PROBE_CACHE_FIRST", None)
            os.environ.pop("ELFFS_PROBE_AHEAD", None)


def kept_walks(ck, tag, mnt, src, want, before):
    walk_listed(ck, mnt, want, f"{tag}: first walk")
    first = atimes(src)
    unread = [p for p in before if first[p] == before[p]]
    ck.eq(unread, [], f"{tag}: files the first walk did not read")
    time.sleep(1.2)  # past the timeout: the listings are taken again
    walk_listed(ck, mnt, want, f"{tag}: second walk")
    # not prog: the daemon reads a whole ELF file's header again when it
    # opens its view
    again = [p for p, t in atimes(src).items()
             if t != first[p] and os.path.basename(p) != "prog"]
    print(f"{tag}: files read: first walk {len(before) - len(unread)}, "
          f"second walk {len(again)}", flush=True)
    ck.eq(len(again), 0, f"{tag}: files the second walk read again ({again[:5]})")


def hung(ck, args, tag):
    tmp = tempfile.mkdtemp(prefix="elffs-walk-hung-")
    src = os.path.join(tmp, "src")
    d = os.path.join(src, "d")
    inner = os.path.join(tmp, "inner")
    nmnt = os.path.join(tmp, "nmnt")
    for p in (d, inner, nmnt):
        os.makedirs(p)
    shutil.copyfile(fixture("exec"), os.path.join(inner, "prog"))
    fill(d, 600)
    want = expected(d)
    target = os.path.join(d, "hung")
    open(target, "wb").close()
    try:
        with Mount(ck, inner, ["-o", "timeout=0.1"], mountpoint=nmnt) as im:
            r = subprocess.run(["mount", "--bind", os.path.join(nmnt, "prog", "elf"), target],
                               capture_output=True, text=True)
            if r.returncode != 0:
                ck.fail(f"{tag}: mount --bind: {r.stderr.strip()}")
                return
            try:
                hung_body(ck, args, tag, im, src, d, want)
            finally:
                subprocess.run(["umount", target], capture_output=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def hung_body(ck, args, tag, im, src, d, want):
    ck.ok(os.stat(os.path.join(d, "hung")).st_dev != os.stat(d).st_dev,
          f"{tag}: hung is a mount point")

    def cont():
        try:
            os.kill(im.proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass

    os.kill(im.proc.pid, signal.SIGSTOP)
    try:
        time.sleep(0.3)  # past the nested mount's timeout
        with Mount(ck, src, args + ["-o", "timeout=0.2"]) as m:
            conn = os.minor(os.stat(m.path).st_dev)
            mnt = os.path.join(m.path, "d")
            for step in ("stopped", "stopped, again"):
                got = run_listing(ck, lambda: listed(ck, mnt, tag), f"{tag} {step}", conn,
                                  before_abort=cont)
                same(ck, got or {}, want, f"{tag}: listing with hung stopped ({step})")
                time.sleep(0.3)
            cont()
            want = dict(want, hung="b")
            ok = wait_for(lambda: "hung" in os.listdir(mnt), 20.0, step=0.3)
            ck.ok(ok, f"{tag}: hung listed once its daemon goes on")
            got = run_listing(ck, lambda: listed(ck, mnt, tag), f"{tag} continued", conn)
            same(ck, got or {}, want, f"{tag}: listing once the daemon goes on")
            log = m.output()
            ck.ok("has not answered" in log, f"{tag}: no log line for hung: {log[-800:]}")
    finally:
        cont()


def main():
    require_fuse()
    what = sys.argv[1:] or ["mixed", "ahead", "kept", "hung"]
    ck = Checker("walk")
    for w in what:
        for args, tag in (([], "multi"), (["-s"], "single")):
            {"mixed": mixed, "ahead": ahead, "kept": kept, "hung": hung}[w](ck, args,
                                                                            f"{w} {tag}")
    ck.finish()


if __name__ == "__main__":
    main()
