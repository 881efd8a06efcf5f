#!/usr/bin/python3
"""Listings of SOURCE directories classified together (fs/source/probe.c).

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
 - hung: the same directory with one more entry, a regular file
   bind-mounted from a second elffs whose daemon is stopped (SIGSTOP). The
   listing answers without it (the file cannot be read), and its other
   entries are all there; a listing again leaves it out at once. Once the
   second daemon goes on, the file is listed (it is ELF). A watchdog
   continues the stopped daemon and aborts the mount if a listing hangs:
   the test then fails instead of hanging.

usage: test_walk.py [mixed|hung ...]   (default: both)
"""

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

from elffs_mount import Checker, Mount, Watchdog, fixture, require_fuse, wait_for

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
    what = sys.argv[1:] or ["mixed", "hung"]
    ck = Checker("walk")
    for w in what:
        for args, tag in (([], "multi"), (["-s"], "single")):
            {"mixed": mixed, "hung": hung}[w](ck, args, f"{w} {tag}")
    ck.finish()


if __name__ == "__main__":
    main()
