#!/usr/bin/python3
"""SIGTERM and SIGINT end the daemon within STOP_LIMIT seconds (the bound of
elffs(1), SIGNALS) also when its workers cannot finish their calls: the
mount is gone from /proc/self/mountinfo and the daemon has exited with
status 0 by then.

- stopped: SRC/nested is a second elffs whose daemon the test stops
  (SIGSTOP, as test_hung.py does), so it reads none of the requests sent to
  it; four readers through the mount wait in nested/ (three workers in it,
  the stall share, and one request queued). SIGTERM with libfuse's
  multi-threaded loop; SIGINT with -s (its one worker waits). The readers
  then get an error, since the connection is gone.
- read, never answered: the neighbour is an elffs whose SOURCE holds a third,
  stopped one: it reads the mount's requests and answers none while the
  third is stopped, and the mount's workers wait for it in the kernel,
  uninterruptibly once the daemon exits. SIGTERM: the mount is gone within
  the bound, and so are the readers' calls (they fail); the daemon's
  process stays, with a thread in state D, until the third daemon goes on;
  then it ends with status 0.
- debuginfod: a server on loopback (test_debuginfod.py's, in a network
  namespace of the test's own) that trickles 200 bytes a second; a lookup
  fetches from it. SIGTERM: the same bound, no file of that id left in
  DEBUGINFOD_CACHE_PATH (the partial download is there before the signal;
  no negative-cache entry after), and a new mount over the same cache
  fetches the id whole.

The times it took are printed.
"""

import os
import shutil
import signal
import sys
import tempfile
import threading
import time

from elffs_mount import (Checker, Mount, MountError, Nested, Watchdog, copy_fixture,
                         mount_entry, require_fuse, wait_for)

STOP_LIMIT = 2.0  # seconds from the signal to the mount gone and the daemon exited
READERS = 4  # stuck readers: 3 workers in the stopped device (the stall share), 1 queued
HANG_LIMIT = 30.0  # a whole case, before the watchdog aborts the mount
AFTER_CONT = 10.0  # the daemon left by an unanswered request ends this soon after it is


def thread_states(pid):
    """The state letter of each thread of pid (R, S, D, ...)."""
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                out.append(f.read().rsplit(")", 1)[1].split()[0])
        except OSError:
            pass
    return out


class Readers:
    """Threads that each pread 4096 bytes of a file opened before the stop
    (a lookup would wait in the kernel, which takes a directory's lookups
    one at a time; reads of open files reach workers)."""

    def __init__(self, paths):
        self.fds = [os.open(p, os.O_RDONLY) for p in paths]
        self.out = {}
        self.threads = []

    def start(self):
        for i, fd in enumerate(self.fds):
            t = threading.Thread(target=self.read, args=(i, fd), daemon=True)
            t.start()
            self.threads.append(t)

    def read(self, i, fd):
        try:
            self.out[i] = len(os.pread(fd, 4096, 0))
        except OSError as e:
            self.out[i] = e.errno

    def waiting(self):
        return sum(t.is_alive() for t in self.threads)

    def close(self, timeout):
        for t in self.threads:
            t.join(timeout)
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:  # ENOTCONN: the file's mount is gone with its daemon
                pass


def signal_and_time(ck, m, sig, tag, exit_too=True):
    """Send sig to the daemon of Mount m: the mount must leave
    /proc/self/mountinfo within STOP_LIMIT s, and (exit_too) the daemon
    exit with status 0 within STOP_LIMIT s of the signal."""
    # realpath of the mount point would stat it: a call into the mount
    real = os.path.join(os.path.realpath(os.path.dirname(m.path)), os.path.basename(m.path))
    t0 = time.monotonic()
    m.proc.send_signal(sig)
    gone = wait_for(lambda: mount_entry(real, resolve=False) is None, STOP_LIMIT, step=0.005)
    t_gone = time.monotonic() - t0
    ck.ok(gone, f"{tag}: mount still in /proc/self/mountinfo {STOP_LIMIT} s after {sig.name}")
    said = f"mount gone in {t_gone:.3f} s" if gone else f"mount there after {STOP_LIMIT} s"
    if exit_too:
        ended = wait_for(lambda: m.proc.poll() is not None,
                         max(0.0, t0 + STOP_LIMIT - time.monotonic()), step=0.005)
        t_end = time.monotonic() - t0
        ck.ok(ended, f"{tag}: daemon still running {STOP_LIMIT} s after {sig.name}")
        if ended:
            ck.eq(m.proc.returncode, 0, f"{tag}: exit status after {sig.name}")
        said += f", daemon exited in {t_end:.3f} s" if ended else ", daemon running"
    print(f"{tag}: {sig.name}: {said}", flush=True)


def stuck_readers(ck, tag, readers):
    """Start the readers; they must wait (their calls do not end)."""
    readers.start()
    time.sleep(1.5)
    ck.eq(readers.waiting(), len(readers.fds), f"{tag}: readers waiting before the signal")


def stopped_case(ck, tag, args, sig):
    """A stopped neighbour that has read none of the requests."""
    tmp = tempfile.mkdtemp(prefix="elffs-stop-")
    src, inner = os.path.join(tmp, "src"), os.path.join(tmp, "inner")
    os.makedirs(os.path.join(src, "nested"))
    os.makedirs(inner)
    for i in range(READERS):  # a name each: the kernel looks a name up once
        copy_fixture("pie", os.path.join(inner, f"e{i}"))
    nested = readers = None
    try:
        with Mount(ck, inner, ["-o", "timeout=0.1"],
                   mountpoint=os.path.join(src, "nested")) as im:
            nested = Nested(im)
            with Mount(ck, src, args + ["-o", "timeout=0.2"], check_exit=False) as m:
                conn = os.minor(os.stat(m.path).st_dev)
                with Watchdog(ck, conn, tag, HANG_LIMIT, before_abort=nested.cont):
                    readers = Readers([os.path.join(m.path, "nested", f"e{i}", "elf", "sections",
                                                    ".text") for i in range(READERS)])
                    nested.stop()
                    time.sleep(0.6)  # past both mounts' timeouts
                    stuck_readers(ck, tag, readers)
                    signal_and_time(ck, m, sig, tag)
                    wait_for(lambda: readers.waiting() == 0, STOP_LIMIT)
                    ck.eq(readers.waiting(), 0, f"{tag}: readers still waiting once the "
                                                f"daemon is gone")
                    print(f"{tag}: readers got {sorted(readers.out.values())}", flush=True)
                    nested.cont()
                    readers.close(20)
    except MountError as e:
        ck.fail(f"{tag}: {e}")
    finally:
        if nested:
            nested.cont()
        shutil.rmtree(tmp, ignore_errors=True)


def unanswered_case(ck, tag):
    """A neighbour that has read the requests and answers none: an elffs
    (passthrough off, so that it serves the reads of its elf files itself)
    whose SOURCE holds a third elffs, stopped."""
    tmp = tempfile.mkdtemp(prefix="elffs-stop-")
    src, mid, inner = (os.path.join(tmp, d) for d in ("src", "mid", "inner"))
    os.makedirs(os.path.join(src, "nested"))
    os.makedirs(os.path.join(mid, "deep"))
    os.makedirs(inner)
    for i in range(READERS):
        copy_fixture("pie", os.path.join(inner, f"e{i}"))
    deep = readers = None
    try:
        with Mount(ck, inner, ["-o", "timeout=0.1"], mountpoint=os.path.join(mid, "deep")) as dm, \
             Mount(ck, mid, ["-o", "timeout=0.1,passthrough=off"],
                   mountpoint=os.path.join(src, "nested")) as nm:
            deep = Nested(dm)
            with Mount(ck, src, ["-o", "timeout=0.2"], check_exit=False) as m:
                conn = os.minor(os.stat(m.path).st_dev)
                with Watchdog(ck, conn, tag, HANG_LIMIT, before_abort=deep.cont):
                    # SRC/nested/deep/eN/elf is the middle daemon's view of the
                    # third one's eN/elf: an ELF file, a directory here
                    readers = Readers([os.path.join(m.path, "nested", "deep", f"e{i}", "elf",
                                                    "elf", "sections", ".text")
                                       for i in range(READERS)])
                    deep.stop()
                    time.sleep(0.6)
                    stuck_readers(ck, tag, readers)
                    t0 = time.monotonic()
                    signal_and_time(ck, m, signal.SIGTERM, tag, exit_too=False)
                    wait_for(lambda: readers.waiting() == 0, t0 + STOP_LIMIT - time.monotonic())
                    ck.eq(readers.waiting(), 0, f"{tag}: readers still waiting {STOP_LIMIT} s "
                                                f"after the signal")
                    print(f"{tag}: readers got {sorted(readers.out.values())}", flush=True)
                    states = thread_states(m.proc.pid)
                    ck.ok(m.alive() and "D" in states,
                          f"{tag}: the daemon's process with a thread in D state while the "
                          f"request is unanswered: alive {m.alive()}, states {states}")
                    print(f"{tag}: left while the request is unanswered: threads {states}",
                          flush=True)
                    t0 = time.monotonic()
                    deep.cont()
                    ended = wait_for(lambda: m.proc.poll() is not None, AFTER_CONT)
                    ck.ok(ended, f"{tag}: daemon still running {AFTER_CONT} s after its "
                                 f"request was answered")
                    if ended:
                        ck.eq(m.proc.returncode, 0, f"{tag}: exit status")
                        print(f"{tag}: daemon exited {time.monotonic() - t0:.3f} s after the "
                              f"third daemon went on", flush=True)
                    readers.close(20)
                    ck.ok(nm.alive(), f"{tag}: the middle daemon died")
    except MountError as e:
        ck.fail(f"{tag}: {e}")
    finally:
        if deep:
            deep.cont()
        shutil.rmtree(tmp, ignore_errors=True)


def cache_files(cache, bid):
    """The files of id bid in the client cache (partial or whole downloads,
    negative-cache entries)."""
    found = []
    for root, _, files in os.walk(os.path.join(cache, bid)):
        found += [os.path.relpath(os.path.join(root, f), cache) for f in files]
    return sorted(found)


def debuginfod_case(ck, work):
    import test_debuginfod as dbgd  # its servers and helpers, without its main

    class Trickle(dbgd.Faulty):
        """The misbehaving server, and ("trickle", path, bytes a second):
        the whole length announced, then the bytes a tenth of the rate
        every 0.1 s, until the client goes away or close()."""

        def answer(self, h, plan):
            if plan[0] != "trickle":
                return super().answer(h, plan)
            data = dbgd.read(plan[1])
            h.send_response(200)
            h.send_header("Content-Type", "application/octet-stream")
            h.send_header("Content-Length", str(len(data)))
            h.send_header("X-Debuginfod-Size", str(len(data)))
            h.end_headers()
            step = max(1, plan[2] // 10)
            for i in range(0, len(data), step):
                if self.stop_stalls.is_set():
                    break
                h.wfile.write(data[i:i + step])
                h.wfile.flush()
                time.sleep(0.1)
            h.close_connection = True

    tag = "debuginfod"
    if not dbgd.enter_netns(ck):
        return
    srcdir = os.path.join(work, "src")
    os.mkdir(srcdir)
    _, debug, bid = dbgd.build(work, "prog")
    fs = Trickle()
    fs.plan[bid] = ("trickle", debug, 200)
    cache = dbgd.fresh_cache(work, "stop")
    for k in ("DEBUGINFOD_TIMEOUT", "DEBUGINFOD_MAXTIME", "DEBUGINFOD_MAXSIZE"):
        os.environ.pop(k, None)
    lookup = {}

    def look():
        lookup["errno"] = dbgd.errno_of(os.stat, dbgd.link_path(m.path, bid))

    try:
        with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()}"], check_exit=False) as m:
            conn = os.minor(os.stat(m.path).st_dev)
            with Watchdog(ck, conn, tag, HANG_LIMIT, before_abort=fs.stop_stalls.set):
                t = threading.Thread(target=look, daemon=True)
                t.start()
                ck.ok(wait_for(lambda: cache_files(cache, bid), 10),
                      f"{tag}: no partial download in the cache")
                time.sleep(1.0)
                partial = cache_files(cache, bid)
                ck.ok(t.is_alive() and partial,
                      f"{tag}: the lookup still fetching before the signal ({partial})")
                print(f"{tag}: in the cache while fetching: {partial} "
                      f"({[os.path.getsize(os.path.join(cache, p)) for p in partial]} bytes of "
                      f"{os.path.getsize(debug)})", flush=True)
                signal_and_time(ck, m, signal.SIGTERM, tag)
                t.join(STOP_LIMIT)
                ck.ok(not t.is_alive(), f"{tag}: the lookup still waiting")
                print(f"{tag}: the lookup got {lookup}", flush=True)
                ck.eq(cache_files(cache, bid), [], f"{tag}: files of the id left in the cache")
        fs.plan[bid] = ("file", debug)
        with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()}"]) as m:
            ck.eq(dbgd.read(dbgd.link_path(m.path, bid)), dbgd.read(debug),
                  f"{tag}: the id fetched whole on the next mount over that cache")
    except MountError as e:
        ck.fail(f"{tag}: {e}")
    finally:
        fs.close()


def main():
    require_fuse()
    ck = Checker("shutdown-stuck")
    if os.geteuid() != 0:
        print("SKIP: FUSE mounts inside SOURCE, their SIGSTOP and a network namespace need "
              "root here")
        sys.exit(77)
    parts = sys.argv[1:] or ["stopped", "single", "unanswered", "debuginfod"]
    for part in parts:
        if part == "stopped":
            stopped_case(ck, "stopped neighbour", [], signal.SIGTERM)
        elif part == "single":
            stopped_case(ck, "stopped neighbour, -s", ["-s"], signal.SIGINT)
        elif part == "unanswered":
            unanswered_case(ck, "request read, never answered")
        elif part == "debuginfod":
            work = tempfile.mkdtemp(prefix="elffs-stop-dbgd-")
            try:
                debuginfod_case(ck, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
