#!/usr/bin/python3
"""-o debuginfod against debuginfod-find, and the mount beside a stalled fetch.

    sudo bench/debuginfod.py ELFFS [N]

Runs in a network namespace of its own (unshare CLONE_NEWNET, loopback
up): Debian's `debuginfod -F` serves N (default 20) executables and their
debug files (prog.c of the fixtures linked N times with distinct build ids,
objcopy --only-keep-debug, strip), none of them in SOURCE. Per id, medians:

- first lookup: a fresh DEBUGINFOD_CACHE_PATH, `open+read` of
  MOUNT/.build-id/<xx>/<rest>.debug (lookup, verification, the view's elf
  read whole) against `debuginfod-find debuginfo ID` (a process per id, as
  a script runs it: its start-up is in its figure);
- cached lookup: a new mount over the warm cache (libdebuginfod's cache hit,
  the verification again) against debuginfod-find on the warm cache;
- a local read (open, 4 KiB pread, close of a section file of a binary of
  SOURCE, and a lookup of its build-id link; -o timeout=0 so that each
  reaches the daemon) while 3 fetches stall on a server that never answers,
  against the same with no fetch.
"""
import ctypes
import http.server
import os
import re
import shutil
import socket
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PROG_C = os.path.join(HERE, "..", "tests", "fixtures", "src", "prog.c")
TOOL_ENV = dict(os.environ, LC_ALL="C", DEBUGINFOD_URLS="")


def netns():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x40000000) != 0:
        sys.exit("unshare(CLONE_NEWNET): " + os.strerror(ctypes.get_errno()))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_served(work, n):
    srv = os.path.join(work, "served")
    os.makedirs(srv)
    obj = os.path.join(work, "prog.o")
    subprocess.run(["gcc", "-g", "-O0", "-c", "-o", obj, PROG_C], check=True)
    ids = []
    for i in range(n):
        bid = "%08x" % (0xd0000000 + i) + "5a" * 16
        full = os.path.join(work, "p%d.full" % i)
        subprocess.run(["gcc", "-g", "-o", full, obj, "-Wl,--build-id=0x" + bid], check=True)
        subprocess.run(["objcopy", "--only-keep-debug", full,
                        os.path.join(srv, "p%d.debug" % i)], check=True)
        subprocess.run(["strip", "-o", os.path.join(srv, "p%d" % i), full], check=True)
        os.unlink(full)
        ids.append(bid)
    return srv, ids


def wait_served(port, bid):
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/buildid/{bid}/debuginfo",
                                        timeout=5) as r:
                r.read()
                return True
        except OSError:
            time.sleep(0.2)
    return False


class Mount:
    def __init__(self, elffs, src, opts):
        self.path = tempfile.mkdtemp(prefix="elffs-bench-mnt-")
        self.proc = subprocess.Popen([elffs, "-f", "-o", opts, src, self.path],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while not os.path.ismount(self.path):
            if time.monotonic() > end or self.proc.poll() is not None:
                sys.exit("elffs did not mount")
            time.sleep(0.02)

    def close(self):
        subprocess.run(["fusermount3", "-u", self.path])
        self.proc.wait()
        os.rmdir(self.path)


def link(mnt, bid):
    return os.path.join(mnt, ".build-id", bid[:2], bid[2:] + ".debug")


def time_read(path):
    t = time.perf_counter()
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass
    return time.perf_counter() - t


def time_find(bid):
    t = time.perf_counter()
    subprocess.run(["debuginfod-find", "debuginfo", bid], stdout=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - t


def lookups(elffs, src, ids, url, work):
    first, cached, f_first, f_cached = [], [], [], []
    cache = os.path.join(work, "cache-mount")
    os.environ["DEBUGINFOD_CACHE_PATH"] = cache
    m = Mount(elffs, src, "debuginfod=" + url)
    try:
        first = [time_read(link(m.path, b)) for b in ids]
    finally:
        m.close()
    m = Mount(elffs, src, "debuginfod=" + url)
    try:
        cached = [time_read(link(m.path, b)) for b in ids]
    finally:
        m.close()
    os.environ["DEBUGINFOD_CACHE_PATH"] = os.path.join(work, "cache-find")
    os.environ["DEBUGINFOD_URLS"] = url
    f_first = [time_find(b) for b in ids]
    f_cached = [time_find(b) for b in ids]
    return first, cached, f_first, f_cached


class Staller:
    """Accepts and never answers, until the client goes."""

    def __init__(self):
        class H(socketserver.BaseRequestHandler):
            def handle(self):
                while self.request.recv(4096):
                    pass

        class S(socketserver.ThreadingMixIn, socketserver.TCPServer):
            daemon_threads = True

        self.srv = S(("127.0.0.1", 0), H)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.srv.server_address[1]


def local_reads(mnt, n=400):
    sec = os.path.join(mnt, "local", "sections", ".text")
    lk = os.path.join(mnt, ".build-id", "ab", "cdef0123456789abcdef0123456789abcdef01")
    out = []
    for _ in range(n):
        t = time.perf_counter()
        os.readlink(lk)
        fd = os.open(sec, os.O_RDONLY)
        os.pread(fd, 4096, 0)
        os.close(fd)
        out.append(time.perf_counter() - t)
    return out


def stalled(elffs, src, work):
    st = Staller()
    os.environ["DEBUGINFOD_CACHE_PATH"] = os.path.join(work, "cache-stall")
    os.environ["DEBUGINFOD_TIMEOUT"] = "5"
    os.environ["DEBUGINFOD_RETRY_LIMIT"] = "0"
    m = Mount(elffs, src, "debuginfod=%s,timeout=0" % st.url)
    ts = []
    try:
        quiet = local_reads(m.path)
        ts = [threading.Thread(target=lambda b=b: os.path.exists(link(m.path, b)))
              for b in ("%02x" % (0x70 + i) * 20 for i in range(3))]
        for t in ts:
            t.start()
        time.sleep(0.5)
        busy = local_reads(m.path)
        inflight = int(os.getxattr(os.path.join(m.path, ".build-id"),
                                   "user.elffs.debuginfod.inflight"))
    finally:
        for t in ts:  # they end at DEBUGINFOD_TIMEOUT
            t.join()
        st.srv.shutdown()
        st.srv.server_close()
        m.close()
    return quiet, busy, inflight


def ms(v):
    return "%.2f ms" % (statistics.median(v) * 1000)


def us(v):
    return "%.0f us" % (statistics.median(v) * 1e6)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    elffs = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    netns()
    work = tempfile.mkdtemp(prefix="elffs-bench-dbgd-")
    proc = None
    try:
        srv, ids = make_served(work, n)
        src = os.path.join(work, "src")
        os.makedirs(os.path.join(src))
        full = os.path.join(src, "local")
        subprocess.run(["gcc", "-g", "-o", full, PROG_C,
                        "-Wl,--build-id=0xabcdef0123456789abcdef0123456789abcdef01"], check=True)
        port = free_port()
        proc = subprocess.Popen(["debuginfod", "-F", "-p", str(port), "-d",
                                 os.path.join(work, "db.sqlite"), "-t", "0", "-g", "0", srv],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for b in ids:
            if not wait_served(port, b):
                sys.exit("debuginfod did not serve " + b)
        url = "http://127.0.0.1:%d" % port
        first, cached, f_first, f_cached = lookups(elffs, src, ids, url, work)
        os.environ.pop("DEBUGINFOD_URLS", None)
        quiet, busy, inflight = stalled(elffs, src, work)
        print(f"{n} ids, debug files of {os.path.getsize(os.path.join(srv, 'p0.debug'))} bytes\n")
        print("| row | what | elffs -o debuginfod | debuginfod-find |")
        print("| --- | --- | --- | --- |")
        print(f"| 23a | first lookup and read of a debug file (fresh cache) | {ms(first)} | "
              f"{ms(f_first)} |")
        print(f"| 23b | the same from the warm cache (a new mount) | {ms(cached)} | "
              f"{ms(f_cached)} |")
        print()
        print("| row | what | no fetch | 3 fetches stalled |")
        print("| --- | --- | --- | --- |")
        print(f"| 23c | local readlink + open/pread 4 KiB/close (p50 of 400) | {us(quiet)} | "
              f"{us(busy)} (inflight {inflight}) |")
        print(f"| 23d | the same, p99 | {statistics.quantiles(quiet, n=100)[98] * 1e6:.0f} us |"
              f" {statistics.quantiles(busy, n=100)[98] * 1e6:.0f} us |")
    finally:
        if proc:
            proc.terminate()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
