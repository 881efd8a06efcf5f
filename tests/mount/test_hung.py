#!/usr/bin/python3
"""A mount below SOURCE that stops answering.

SRC/nested is a second elffs mount (of a directory of 12 binaries) whose
daemon the test stops with SIGSTOP. With it stopped, every call of the
mount that does not go into nested/ must answer within STEP_LIMIT seconds:
`ls` and `lstat` of SOURCE's root (which holds the hung mount point),
`info` of binaries elsewhere (their "same build id" lines come from the
build-id index, whose refreshes walk SOURCE, nested/ included), the
.build-id listing, a link of it and its user.elffs.state, and reads of
binaries elsewhere. Then the same again with a dozen readers stuck in
nested/ at once (more than libfuse's 10 workers; reads of files they
opened before the stop, since the kernel takes the lookups of one
directory one at a time): calls into one mount below SOURCE must not take
every worker. The index counts the call it gave up on (user.elffs.stalled)
and the log says so. Once the nested daemon goes on,
the readers get their bytes (or EIO) and nested/ reads right again.
Readers that wait for nested/ behind the stuck ones hold no worker: killed
with SIGKILL, they end at once.

Listings (multi-threaded only): LISTED file systems stopped at once (as
many elffs mounts outside SOURCE, each SIGSTOPped), a file of each
bind-mounted into a directory of SOURCE of its own, and those LISTED
directories listed at once: each listing's probe of that file waits on a
stopped file system, which must count in the same share of the workers as
every other call into one (at most half of them in all such devices), so
that a few unrelated requests made meanwhile (opens and reads of binaries
elsewhere) answer within UNRELATED_LIMIT s (without the share, 28
listings hold every worker in three waves of 3 s and such a request waits
2.5 to 5.8 s). Each listing answers without its stopped file, again at once; then
the LISTED stopped files are looked up at once (the lookup reads the magic
as the listing does): each ENOENT, and the unrelated requests answer as
fast. Each directory lists its file once that file system goes on.

Rounds: multi-threaded (both phases), -s (single-threaded: the first
phase only; there a call into nested/ holds the only worker by design),
and listings.

Safety: the nested daemon is sent SIGCONT in a finally block before any
unmount, and a watchdog continues it and aborts the outer connection if
the whole stopped phase takes longer than HANG_LIMIT seconds, so a hang
fails the test instead of leaving a stopped daemon or a stuck mount.

usage: test_hung.py [multi|single|listings ...]   (default: all)
"""

import contextlib
import errno
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import elf_oracle as oracle
from elffs_mount import Watchdog as SharedWatchdog
from elffs_mount import (Checker, Mount, MountError, Nested, copy_fixture, fixture,
                         require_fuse, wait_for)

STEP_LIMIT = 8.0  # seconds an unrelated call may take with nested/ stopped
HANG_LIMIT = 150.0  # the whole stopped phase, before the watchdog steps in
READERS = 12  # readers stuck in nested/ at once (libfuse: 10 workers by default)
KILLED = 4  # more readers of nested/, killed while they wait
LISTED = 28  # stopped file systems, one listing each at once (more than the 10 workers)
UNRELATED = 5  # unrelated requests made while those listings wait
UNRELATED_LIMIT = 1.5  # seconds each may take (2.5 to 5.8 s without the share)
LISTING_LIMIT = 30.0  # every listing ends (three waves of 3 s without the share: 9 s)
BIDS = {"exec": "4b74a264daf428139bcf220f46c3b2d3235dc7bd"}


def errname(e):
    return errno.errorcode.get(e, str(e))


def read_all(path):
    with open(path, "rb") as f:
        return f.read()


def Watchdog(ck, conn, nested, what, limit=HANG_LIMIT):  # noqa: N802
    """After limit s: continue the nested daemon and abort the outer
    connection (calls stuck on it then fail with ENOTCONN)."""
    return SharedWatchdog(ck, conn, what, limit, before_abort=nested.cont,
                          why="still hung (continuing the nested daemon)")


def timed(ck, tag, steps, parallel=False):
    """Run each (name, fn) in a thread of its own; each must end within
    STEP_LIMIT s (run one after the other, or all at once). The threads
    of the calls that hang are returned (they end once nested/ goes on)."""
    hung, worst = [], 0.0
    results = {}

    def body(name, fn):
        t0 = time.monotonic()
        try:
            fn()
            results[name] = (None, time.monotonic() - t0)
        except Exception as e:  # an OSError, or a failed check inside fn
            results[name] = (e, time.monotonic() - t0)

    def collect(name, t):
        nonlocal worst
        if t.is_alive():
            ck.fail(f"{tag}: {name}: no answer within {STEP_LIMIT:.0f} s")
            hung.append(t)
            return
        err, took = results[name]
        worst = max(worst, took)
        ck.ok(err is None, f"{tag}: {name}: {err!r}")

    threads = []
    for name, fn in steps:
        t = threading.Thread(target=body, args=(name, fn), daemon=True)
        t.start()
        if parallel:
            threads.append((name, t))
            continue
        t.join(STEP_LIMIT)
        collect(name, t)
        parallel = bool(hung)  # once one hangs, the others at once (one wait for all)
    end = time.monotonic() + STEP_LIMIT
    for name, t in threads:
        t.join(max(0.0, end - time.monotonic()))
        collect(name, t)
    print(f"{tag}: {len(steps)} calls, slowest {worst:.2f} s, {len(hung)} hung", flush=True)
    return hung


def unrelated_steps(ck, mnt, tag):
    """The calls that do not go into nested/."""
    want_exec = read_all(fixture("exec"))
    want_pie = read_all(fixture("pie"))
    bid = BIDS["exec"]

    def ls_root():
        names = set(os.listdir(mnt))
        for name in ("exec", "xcopy", "sub", "nested", ".build-id"):
            if name not in names:
                raise AssertionError(f"{name} not listed: {sorted(names)}")

    def lstat_root():
        for name in os.listdir(mnt):
            os.lstat(os.path.join(mnt, name))

    def info(path, same):
        def fn():
            text = read_all(os.path.join(mnt, path, "info")).decode()
            if same and f"same build id: {same}" not in text:
                raise AssertionError(f"no 'same build id: {same}' line in {path}/info")
        return fn

    def buildid_list():
        top = os.path.join(mnt, ".build-id")
        if bid[:2] not in os.listdir(top):
            raise AssertionError(f"{bid[:2]} missing from .build-id")
        if bid[2:] not in os.listdir(os.path.join(top, bid[:2])):
            raise AssertionError(f"{bid[2:]} missing from .build-id/{bid[:2]}")

    def buildid_link():
        target = os.readlink(os.path.join(mnt, ".build-id", bid[:2], bid[2:]))
        if target != "../../exec/elf":
            raise AssertionError(f"link target {target!r}")

    def state():
        os.getxattr(os.path.join(mnt, ".build-id"), "user.elffs.state")
        os.listxattr(os.path.join(mnt, ".build-id"))

    def read(path, want):
        def fn():
            if read_all(os.path.join(mnt, path)) != want:
                raise AssertionError(f"{path}: wrong bytes")
        return fn

    return [("ls of SOURCE's root", ls_root),
            ("lstat of its entries (nested/ too)", lstat_root),
            (".build-id listing", buildid_list),
            ("info of exec", info("exec", "xcopy")),
            ("info of sub/pie", info("sub/pie", None)),
            (".build-id link", buildid_link),
            ("user.elffs.state", state),
            ("read exec/elf", read("exec/elf", want_exec)),
            ("read sub/pie/header", read("sub/pie/header", want_pie[:64])),
            ("read xcopy/elf", read("xcopy/elf", want_exec))]


def check_stalled(mnt):
    n = int(os.getxattr(os.path.join(mnt, ".build-id"), "user.elffs.stalled"))
    if n < 1:
        raise AssertionError(f"{n}, want the index's call into nested/ counted")


def reader_file(mnt, i):
    return os.path.join(mnt, "nested", f"e{i:02d}", "elf", "sections", ".text")


def reader(fd, out, i):
    """A call into nested/: a read of a file opened before the stop (a
    lookup would wait in the kernel, which takes a directory's lookups one
    at a time: a read reaches a worker, as many at once as there are)."""
    try:
        out[i] = ("read", os.pread(fd, 4096, 0))
    except OSError as e:
        out[i] = ("error", e.errno)


def kernel_stack(pid):
    try:
        with open(f"/proc/{pid}/stack") as f:
            return " | ".join(line.split()[-1] for line in f)
    except OSError as e:
        return str(e)


WAITER = ("import os, sys\n"
          "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
          "print('open', flush=True)\n"
          "sys.stdin.readline()\n"
          "os.pread(fd, 4096, 0)\n")


def start_waiters(mnt):
    """Readers of nested/ in processes of their own, with their file open."""
    procs = [subprocess.Popen([sys.executable, "-c", WAITER, reader_file(mnt, READERS + i)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for i in range(KILLED)]
    for p in procs:
        p.stdout.readline()
    return procs


def killed_waiters(ck, tag, procs):
    """Readers that wait for nested/ behind the stuck ones hold no worker:
    killed (SIGKILL), they end at once (the kernel interrupts their
    request, which the daemon answers EINTR)."""
    try:
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        time.sleep(1.0)
        ck.eq(sum(p.poll() is None for p in procs), KILLED,
              f"{tag}: readers of nested/ waiting before the kill")
        for p in procs:
            p.kill()
        wait_for(lambda: all(p.poll() is not None for p in procs), 3.0)
        left = [p.pid for p in procs if p.poll() is None]
        ck.ok(not left, f"{tag}: {len(left)} killed readers of nested/ still there 3 s after "
                        f"SIGKILL; their kernel stacks: {[kernel_stack(pid) for pid in left]}")
    finally:
        for p in procs:
            p.kill()
        # the ones still there end once nested/ goes on (the caller continues it)


def check_readers(ck, tag, out, want):
    errs = {}
    for i in range(READERS):
        got = out.get(i)
        if got is None:
            ck.fail(f"{tag}: reader {i} did not end once nested/ went on")
        elif got[0] == "error":
            errs[errname(got[1])] = errs.get(errname(got[1]), 0) + 1
            ck.ok(got[1] == errno.EIO, f"{tag}: reader {i}: {errname(got[1])}, want bytes or EIO")
        else:
            ck.eq(got[1], want, f"{tag}: reader {i}: nested/e{i:02d}/elf/sections/.text")
    print(f"{tag}: readers in nested/: {READERS - sum(errs.values())} answered right, "
          f"errors {errs or 'none'}", flush=True)


def text_of(path):
    info = oracle.readelf([path])[path]
    s = next(s for s in info.sections if s.name == ".text")
    with open(path, "rb") as f:
        return f.read()[s.off:s.off + s.size][:4096]


def hung_round(ck, tag, args, readers):
    tmp = tempfile.mkdtemp(prefix="elffs-hung-")
    src = os.path.join(tmp, "src")
    inner = os.path.join(tmp, "inner")
    os.makedirs(os.path.join(src, "sub"))
    os.makedirs(os.path.join(src, "nested"))
    os.makedirs(inner)
    copy_fixture("exec", os.path.join(src, "exec"))
    copy_fixture("exec", os.path.join(src, "xcopy"))
    copy_fixture("pie", os.path.join(src, "sub", "pie"))
    for i in range(READERS + KILLED):  # a name each: the kernel looks a name up once
        copy_fixture("pie", os.path.join(inner, f"e{i:02d}"))
    want_pie = read_all(fixture("pie"))
    nested = None
    stuck, fds, procs = [], [], []
    try:
        with Mount(ck, inner, ["-o", "timeout=0.1"],
                   mountpoint=os.path.join(src, "nested")) as im:
            nested = Nested(im)
            with Mount(ck, src, args + ["-o", "timeout=0.2"]) as m:
                mnt = m.path
                conn = os.minor(os.stat(mnt).st_dev)
                try:
                    with Watchdog(ck, conn, nested, tag):
                        # before the stop: the index walked (nested/ too), nodes known
                        stuck += timed(ck, f"{tag} (answering)", unrelated_steps(ck, mnt, tag))
                        ck.eq(read_all(os.path.join(mnt, "nested", "e00", "elf", "header")),
                              want_pie[:64], f"{tag}: nested/e00/elf/header before the stop")
                        if readers:  # their files opened while nested/ answers
                            fds = [os.open(reader_file(mnt, i), os.O_RDONLY)
                                   for i in range(READERS)]
                            procs = start_waiters(mnt)
                        nested.stop()
                        time.sleep(0.6)  # past both mounts' cache timeouts
                        stuck += timed(ck, f"{tag} (nested/ stopped)",
                                       unrelated_steps(ck, mnt, tag))
                        stuck += timed(ck, f"{tag} (user.elffs.stalled)",
                                       [("user.elffs.stalled", lambda: check_stalled(mnt))])
                        out = {}
                        if readers:
                            for i in range(READERS):
                                t = threading.Thread(target=reader, args=(fds[i], out, i),
                                                     daemon=True)
                                t.start()
                                stuck.append(t)
                            time.sleep(1.5)
                            ck.count("readers still waiting",
                                     READERS - len(out))
                            stuck += timed(ck, f"{tag} ({READERS} readers in nested/)",
                                           unrelated_steps(ck, mnt, tag))
                            time.sleep(0.3)
                            stuck += timed(ck, f"{tag} ({READERS} readers, at once)",
                                           unrelated_steps(ck, mnt, tag), parallel=True)
                        if readers:
                            killed_waiters(ck, tag, procs)
                        nested.cont()
                        for t in stuck:
                            t.join(20)
                        ck.ok(not any(t.is_alive() for t in stuck),
                              f"{tag}: calls still stuck 20 s after nested/ went on")
                        if readers:
                            check_readers(ck, tag, out, text_of(fixture("pie")))
                        try:
                            ck.eq(read_all(os.path.join(mnt, "nested", "e05", "elf", "header")),
                                  want_pie[:64], f"{tag}: nested/e05/elf/header once it goes on")
                        except OSError as e:  # ENOTCONN once the watchdog aborted the mount
                            ck.fail(f"{tag}: nested/e05/elf/header once it goes on: {e}")
                        ck.ok("has not answered" in m.output(),
                              f"{tag}: no log line about nested/: {m.output()[-500:]}")
                        ck.ok(m.alive(), f"{tag}: daemon died")
                finally:
                    nested.cont()
                    for t in stuck:
                        t.join(20)
                    for p in procs:
                        p.kill()
                        p.wait()
                    for fd in fds:
                        os.close(fd)
    except MountError as e:
        ck.fail(f"{tag}: {e}")
    finally:
        if nested is not None:
            nested.cont()
        shutil.rmtree(tmp, ignore_errors=True)


class Stopped:
    """LISTED nested elffs mounts outside SOURCE (tmp/nmntII, of directory
    inner), the elf file of each bind-mounted onto SOURCE's dII/stopped;
    stop() and cont() for all of them (SIGCONT is idempotent)."""

    def __init__(self, ck, stack, tmp, src):
        inner = os.path.join(tmp, "inner")
        os.makedirs(inner)
        copy_fixture("exec", os.path.join(inner, "prog"))
        self.nested = []
        stack.callback(self.cont)  # before any unmount (a callback runs first)
        for i in range(LISTED):
            nmnt = os.path.join(tmp, f"nmnt{i:02d}")
            os.makedirs(nmnt)
            im = stack.enter_context(Mount(ck, inner, ["-o", "timeout=0.1"], mountpoint=nmnt))
            self.nested.append(Nested(im))
            target = os.path.join(src, f"d{i:02d}", "stopped")
            subprocess.run(["mount", "--bind", os.path.join(nmnt, "prog", "elf"), target],
                           check=True, capture_output=True)
            stack.callback(subprocess.run, ["umount", target], capture_output=True)
        stack.callback(self.cont)

    def stop(self):
        for n in self.nested:
            n.stop()

    def cont(self):
        for n in self.nested:
            n.cont()


def open_read(path):
    """An unrelated request: the open (a FUSE OPEN whatever the kernel keeps)
    and a read of a file of a binary."""
    with open(path, "rb") as f:
        if not f.read(64):
            raise AssertionError(f"{path}: nothing read")


def timed_threads(calls):
    """Run each fn of calls in a thread of its own at once; (threads, out):
    out[i] is (error or None, seconds) once call i ends."""
    out = {}

    def body(i, fn):
        t0 = time.monotonic()
        try:
            fn()
            out[i] = (None, time.monotonic() - t0)
        except Exception as e:  # an OSError, or a failed check inside fn
            out[i] = (e, time.monotonic() - t0)

    threads = [threading.Thread(target=body, args=(i, fn), daemon=True)
               for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    return threads, out


def unrelated_calls(mnt):
    """UNRELATED opens and reads of files of binaries outside the listed
    directories (each open asks the daemon)."""
    files = ["exec/header", "xcopy/header", "sub/pie/header", "exec/sections/.text",
             "xcopy/sections/.text", "sub/pie/sections/.text", "exec/elf", "xcopy/elf"]
    return [lambda p=os.path.join(mnt, f): open_read(p) for f in files[:UNRELATED]]


def listed_dir(mnt, i):
    return set(os.listdir(os.path.join(mnt, f"d{i:02d}")))


def listed_without(mnt, i):
    """A listing of dII while its file system is stopped: pie, not its
    stopped file (nor the text file)."""
    names = listed_dir(mnt, i)
    if names != {"pie"}:
        raise AssertionError(f"d{i:02d} lists {sorted(names)}, want ['pie']")


def unrelated_alone(mnt):
    """The unrelated requests one after the other, nothing else going on:
    their usual time (median, seconds)."""
    for fn in unrelated_calls(mnt):  # their views made
        fn()
    time.sleep(0.3)  # past the cache timeout: every open below asks the daemon
    took = []
    for fn in unrelated_calls(mnt):
        t0 = time.monotonic()
        fn()
        took.append(time.monotonic() - t0)
    time.sleep(0.3)
    return statistics.median(took)


def crowd(ck, tag, what, mnt, calls):
    """calls at once, and UNRELATED requests 0.3 s later that must each
    answer within UNRELATED_LIMIT s; (out of calls, threads still in a
    call)."""
    cthreads, cout = timed_threads(calls)
    time.sleep(0.3)
    uthreads, uout = timed_threads(unrelated_calls(mnt))
    end = time.monotonic() + LISTING_LIMIT
    for t in uthreads + cthreads:
        t.join(max(0.0, end - time.monotonic()))
    took = []
    for i in range(UNRELATED):
        err, secs = uout.get(i, (None, None))
        if secs is None:
            ck.fail(f"{tag}: unrelated request {i}: no answer within {LISTING_LIMIT:.0f} s "
                    f"while {len(calls)} {what} waited on stopped file systems")
            continue
        took.append(secs)
        ck.ok(err is None, f"{tag}: unrelated request {i}: {err!r}")
        ck.ok(secs < UNRELATED_LIMIT, f"{tag}: unrelated request {i} took {secs:.2f} s while "
                                      f"{len(calls)} {what} waited on stopped file systems "
                                      f"(limit {UNRELATED_LIMIT} s)")
    ctook = sorted(cout[i][1] for i in cout)
    print(f"{tag}: unrelated requests while {len(calls)} {what} wait: median "
          f"{statistics.median(took or [0.0]) * 1000:.1f} ms, slowest "
          f"{max(took or [0.0]) * 1000:.1f} ms ({len(took)} of {UNRELATED} answered); "
          f"the {what}: {len(ctook)} answered, fastest {min(ctook or [0.0]):.2f} s, median "
          f"{statistics.median(ctook or [0.0]):.2f} s, slowest {max(ctook or [0.0]):.2f} s, "
          f"{sum(t >= 2.5 for t in ctook)} waited 2.5 s or more", flush=True)
    return cout, [t for t in uthreads + cthreads if t.is_alive()]


def listings_body(ck, tag, mnt):
    """LISTED listings at once, each with a file of a stopped file system,
    each answering without it."""
    print(f"{tag}: unrelated requests alone: median {unrelated_alone(mnt) * 1000:.1f} ms",
          flush=True)
    out, stuck = crowd(ck, tag, "listings", mnt,
                       [lambda i=i: listed_without(mnt, i) for i in range(LISTED)])
    for i in range(LISTED):
        if i not in out:
            ck.fail(f"{tag}: listing of d{i:02d}: no answer within {LISTING_LIMIT:.0f} s")
        else:
            ck.ok(out[i][0] is None, f"{tag}: listing of d{i:02d}: {out[i][0]!r}")
    return stuck


def lookup_stopped(mnt, i):
    """A lookup of dII/stopped, its file system stopped: not found (as it
    is not listed)."""
    try:
        os.stat(os.path.join(mnt, f"d{i:02d}", "stopped"))
    except FileNotFoundError:
        return
    raise AssertionError(f"d{i:02d}/stopped found while its file system is stopped")


def lookups_body(ck, tag, mnt):
    """The LISTED stopped files looked up at once (one directory each: the
    kernel takes a directory's lookups one at a time): each a call into its
    file system, which must count in the share as a listing's does."""
    time.sleep(0.3)  # past the cache timeout of the listings' entries
    out, stuck = crowd(ck, tag, "lookups", mnt,
                       [lambda i=i: lookup_stopped(mnt, i) for i in range(LISTED)])
    for i in range(LISTED):
        if i not in out:
            ck.fail(f"{tag}: lookup of d{i:02d}/stopped: no answer within "
                    f"{LISTING_LIMIT:.0f} s")
        else:
            ck.ok(out[i][0] is None, f"{tag}: lookup of d{i:02d}/stopped: {out[i][0]!r}")
    return stuck


def listings_again(ck, tag, mnt):
    """The LISTED listings again, at once (their file systems still
    stopped)."""
    t0 = time.monotonic()
    threads, out = timed_threads([lambda i=i: listed_without(mnt, i) for i in range(LISTED)])
    for t in threads:
        t.join(LISTING_LIMIT)
    errs = [(i, out[i][0]) for i in sorted(out) if out[i][0] is not None]
    ck.ok(len(out) == LISTED and not errs,
          f"{tag}: listings again: {LISTED - len(out)} without an answer, errors {errs[:3]}")
    print(f"{tag}: the {LISTED} listings again, at once: {time.monotonic() - t0:.2f} s",
          flush=True)


def listings_round(ck, tag):
    tmp = tempfile.mkdtemp(prefix="elffs-hung-listings-")
    src = os.path.join(tmp, "src")
    os.makedirs(os.path.join(src, "sub"))
    copy_fixture("exec", os.path.join(src, "exec"))
    copy_fixture("exec", os.path.join(src, "xcopy"))
    copy_fixture("pie", os.path.join(src, "sub", "pie"))
    for i in range(LISTED):
        d = os.path.join(src, f"d{i:02d}")
        os.makedirs(d)
        copy_fixture("pie", os.path.join(d, "pie"))
        with open(os.path.join(d, "text"), "w") as f:
            f.write("not ELF\n")
        open(os.path.join(d, "stopped"), "wb").close()
    stuck = []
    try:
        with contextlib.ExitStack() as stack:
            stopped = Stopped(ck, stack, tmp, src)
            stopped.stop()  # before the mount: nothing of them is known
            time.sleep(0.3)  # past the nested mounts' cache timeout
            m = stack.enter_context(Mount(ck, src, ["-o", "timeout=0.2"]))
            stack.callback(stopped.cont)  # before its unmount too
            conn = os.minor(os.stat(m.path).st_dev)
            with SharedWatchdog(ck, conn, tag, HANG_LIMIT, before_abort=stopped.cont,
                                why="still hung (continuing the nested daemons)"):
                stuck = listings_body(ck, tag, m.path)
                listings_again(ck, tag, m.path)
                stuck += lookups_body(ck, tag, m.path)
                stopped.cont()
                for t in stuck:
                    t.join(20)
                ck.ok(not any(t.is_alive() for t in stuck),
                      f"{tag}: calls still stuck 20 s after the file systems went on")
                for i in range(LISTED):
                    ok = wait_for(lambda i=i: "stopped" in listed_dir(m.path, i), 20.0, step=0.3)
                    ck.ok(ok, f"{tag}: d{i:02d}/stopped not listed once its daemon goes on")
                ck.ok("left out of the listing" in m.output(),
                      f"{tag}: no log line about the files left out: {m.output()[-500:]}")
                ck.ok(m.alive(), f"{tag}: daemon died")
    except (MountError, subprocess.CalledProcessError) as e:
        ck.fail(f"{tag}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    require_fuse()
    ck = Checker("hung")
    if os.geteuid() != 0:
        print("SKIP: a FUSE mount inside SOURCE and its SIGSTOP need root here")
        sys.exit(77)
    parts = sys.argv[1:] or ["multi", "single", "listings"]
    for part in parts:
        started = time.monotonic()
        if part == "multi":
            hung_round(ck, "multi-threaded", [], True)
        elif part == "single":
            hung_round(ck, "-s", ["-s"], False)
        else:
            listings_round(ck, "listings")
        print(f"{part}: {time.monotonic() - started:.1f} s", flush=True)
    ck.finish()


if __name__ == "__main__":
    main()
