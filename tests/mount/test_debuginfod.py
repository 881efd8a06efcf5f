#!/usr/bin/python3
"""-o debuginfod: build ids SOURCE has not, asked of debuginfod servers.

The whole test runs in a network namespace of its own (unshare(2)
CLONE_NEWNET, loopback up): the servers listen on a private loopback and
the daemon, started from here, reaches them there. Files are built here
from the fixtures' prog.c (gcc -g, objcopy --only-keep-debug, strip) and
are not in SOURCE.

- The real server (Debian's `debuginfod -F`, stopped by its PID): the link
  .build-id/<xx>/<rest>.debug is ../.remote/<id>.debug/elf, its bytes are
  the server's file, sections/ equal objcopy --dump-section; the
  executable the same; gdb (debug-file-directory MNT) and eu-addr2line
  (--debuginfo-path=MNT) print the source line of main of the stripped
  binary, and do not without the mount; ls of .build-id/ and <xx>/ lists
  local ids only; an id no server has is ENOENT; user.elffs.debuginfod.*.
- A misbehaving server of the test's own, a fresh DEBUGINFOD_CACHE_PATH
  each time: wrong build id (EIO, one log line naming the server, the
  cached copy removed), a truncated ELF (EIO), a stall past
  DEBUGINFOD_TIMEOUT (ETIMEDOUT), a close mid-transfer (EIO), 500 (EIO), a
  Content-Length over DEBUGINFOD_MAXSIZE (EIO), 404 (ENOENT, asked once
  then answered by libdebuginfod's negative cache); the daemon alive and
  nothing left half-written in the cache after each.
- A verified file rewritten in the cache with another build's bytes of
  the same size, its times put back (only the ctime moves): not shown as
  that id; it is verified again, removed and fetched again, so build-id
  and elf give the id's own bytes (two requests); a change that leaves
  the bytes (only the ctime moves) passes the verification again and is
  not fetched again. A sections/.text of the view held open across the
  rewrite reads EIO.
- 30 ids no server has, looked up on 4 runs (two mounts over one cache):
  30 requests (libdebuginfod's negative cache answers the others).
- The local index wins: an id SOURCE has is never asked of the servers.
- 100 parallel lookups of one id make one request; 8 lookups of stalled
  ids keep at most 3 requests in flight (the stall queue's share of 10
  workers); local lookups and reads answer while fetches stall; inflight
  shows them; a download over 4 MiB logs a progress line.
- 12 ids verified in a cache whose files are on a second elffs mount,
  that mount's daemon then stopped: 12 lookups of them wait in that
  device's share of the workers, and a listing of the root answers.
"""

import ctypes
import errno
import http.server
import os
import re
import select
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from elffs_mount import Checker, Mount, MountError, build_id, require_fuse

CLONE_NEWNET = 0x40000000
TOOL_ENV = dict(os.environ, LC_ALL="C", DEBUGINFOD_URLS="")
TIMEOUT_S = 2  # DEBUGINFOD_TIMEOUT for the fault cases
STOPPED_IDS = 12  # lookups of ids cached on a stopped mount (libfuse: 10 workers)
STOPPED_LIMIT = 8.0  # seconds an unrelated call may take meanwhile


def enter_netns(ck):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        ck.fail(f"unshare(CLONE_NEWNET): {os.strerror(ctypes.get_errno())}")
        return False
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    return True


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build(work, name, bid=None, extra=()):
    """prog.c built as NAME (gcc -g), its debug file and its stripped copy:
    (stripped path, debug path, build id)."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "src",
                       "prog.c")
    full = os.path.join(work, name + ".full")
    cmd = ["gcc", "-g", "-O0", "-o", full, src] + list(extra)
    if bid:
        cmd.append(f"-Wl,--build-id=0x{bid}")
    subprocess.run(cmd, check=True)
    debug = os.path.join(work, name + ".debug")
    stripped = os.path.join(work, name)
    subprocess.run(["objcopy", "--only-keep-debug", full, debug], check=True)
    subprocess.run(["strip", "-o", stripped, full], check=True)
    os.unlink(full)
    return stripped, debug, build_id(stripped)


def link_path(mnt, bid, debug=True):
    return os.path.join(mnt, ".build-id", bid[:2], bid[2:] + (".debug" if debug else ""))


def errno_of(fn, *args):
    try:
        fn(*args)
        return 0
    except OSError as e:
        return e.errno


def read(path):
    with open(path, "rb") as f:
        return f.read()


def xattrs(mnt):
    d = os.path.join(mnt, ".build-id")
    out = {}
    for k in ("requests", "hits", "misses", "errors", "bytes", "inflight"):
        out[k] = int(os.getxattr(d, "user.elffs.debuginfod." + k))
    return out


def cache_leftovers(cache):
    """Files in the client cache that hold bytes (a shown or half-written
    file), and temporaries: what must not stay after a refused fetch."""
    bad = []
    for root, dirs, files in os.walk(cache):
        for f in files:
            p = os.path.join(root, f)
            if root == cache:
                continue  # the client's own settings (cache_clean_interval_s, ...)
            if f.startswith(".") or "tmp" in f or os.path.getsize(p) > 0:
                bad.append(os.path.relpath(p, cache))
    return bad


# ---------------------------------------------------------------- the real server

def start_debuginfod(ck, srvdir, work):
    port = free_port()
    db = os.path.join(work, "debuginfod.sqlite")
    log = open(os.path.join(work, "debuginfod.log"), "w")
    proc = subprocess.Popen(["debuginfod", "-F", "-p", str(port), "-d", db, "-t", "0", "-g", "0",
                             srvdir], stdout=log, stderr=subprocess.STDOUT)
    return proc, port, log


def wait_served(port, bid, what, limit=60):
    url = f"http://127.0.0.1:{port}/buildid/{bid}/{what}"
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    r.read()
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def section_table(path):
    out = subprocess.run(["readelf", "-SW", path], stdout=subprocess.PIPE, text=True,
                         stderr=subprocess.DEVNULL, env=TOOL_ENV).stdout
    rows = []
    for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)",
                         out, re.M):
        rows.append((m.group(1), m.group(2), int(m.group(3), 16)))
    return rows


def check_sections(ck, view, served, work):
    # objcopy writes the symbol and section name tables anew: it dumps none of them
    rows = [(n, t, s) for n, t, s in section_table(served)
            if t != "NOBITS" and s > 0 and n not in (".symtab", ".strtab", ".shstrtab")]
    args = []
    outs = {}
    for i, (name, _, _) in enumerate(rows):
        outs[name] = os.path.join(work, f"dump{i}")
        args += ["--dump-section", f"{name}={outs[name]}"]
    subprocess.run(["objcopy"] + args + [served, os.path.join(work, "dump.out")], check=True)
    for name, _, _ in rows:
        ck.eq(read(os.path.join(view, "sections", name)), read(outs[name]),
              f"sections/{name} of the fetched view against objcopy --dump-section")
    ck.ok(len(rows) >= 5, f"sections compared: {len(rows)}")
    print(f"sections compared with objcopy: {len(rows)}")


def gdb_line(prog, ddir):
    p = subprocess.run(["gdb", "-batch", "-nx", "-iex", "set debuginfod enabled off", "-iex",
                        f"set debug-file-directory {ddir}", "-ex", "info line main", prog],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=TOOL_ENV,
                       timeout=120)
    return p.stdout.decode(errors="replace")


def addr2line(prog, ddir):
    p = subprocess.run(["eu-addr2line", f"--debuginfo-path={ddir}", "-e", prog, "main"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=TOOL_ENV,
                       timeout=60)
    return p.stdout.decode(errors="replace")


def check_real_server(ck, work, srcdir):
    srvdir = os.path.join(work, "served")
    os.mkdir(srvdir)
    prog, debug, bid = build(srvdir, "prog")
    proc, port, log = start_debuginfod(ck, srvdir, work)
    try:
        if not wait_served(port, bid, "debuginfo"):
            ck.fail(f"debuginfod did not serve {bid} within 60 s: "
                    f"{open(os.path.join(work, 'debuginfod.log')).read()[-2000:]}")
            return
        cache = os.path.join(work, "cache-real")
        os.environ["DEBUGINFOD_CACHE_PATH"] = cache
        with Mount(ck, srcdir, ["-o", f"debuginfod=http://127.0.0.1:{port}"]) as m:
            mnt = m.path
            lp = link_path(mnt, bid)
            ck.eq(os.readlink(lp), f"../.remote/{bid}.debug/elf", "link of a remote debug file")
            ck.eq(read(lp), read(debug), "the fetched debug file's elf, byte for byte")
            ck.eq(read(link_path(mnt, bid, False)), read(prog), "the fetched executable's elf")
            view = os.path.join(mnt, ".build-id", ".remote", bid + ".debug")
            for entry in ("info", "symbols", "header", "build-id", "sections", "segments"):
                ck.ok(os.path.exists(os.path.join(view, entry)), f"remote view has {entry}")
            ck.ok(bid in read(os.path.join(view, "build-id")).decode(errors="replace"),
                  "the view's build-id names the id")
            check_sections(ck, view, debug, work)
            out = gdb_line(prog, mnt)
            ck.ok(re.search(r'Line \d+ of ".*prog.c" starts at address', out),
                  f"gdb with debug-file-directory {mnt}: no line of main: {out[-300:]}")
            print("gdb:", out.strip().splitlines()[-1] if out.strip() else "(nothing)")
            out = addr2line(prog, mnt)
            ck.ok(re.search(r"prog\.c:\d+", out), f"eu-addr2line through the mount: {out[-300:]}")
            print("eu-addr2line:", out.strip())
            ck.ok(bid[:2] not in os.listdir(os.path.join(mnt, ".build-id")) or
                  bid[2:] + ".debug" not in os.listdir(os.path.join(mnt, ".build-id", bid[:2])),
                  "ls lists local ids only")
            if os.path.isdir(os.path.join(mnt, ".build-id", bid[:2])):
                ck.ok(bid[2:] + ".debug" not in os.listdir(os.path.join(mnt, ".build-id",
                                                                        bid[:2])),
                      "<xx>/ lists local ids only")
            ck.eq(os.listdir(os.path.join(mnt, ".build-id", ".remote")), [],
                  ".remote lists nothing")
            absent = "ff" * 20
            ck.eq(errno_of(os.stat, link_path(mnt, absent)), errno.ENOENT,
                  "an id no server has")
            x = xattrs(mnt)
            # hits: the debug file, the executable (and what gdb asks for besides)
            ck.ok(x["hits"] >= 2 and x["misses"] >= 1 and x["errors"] == 0 and
                  x["requests"] == x["hits"] + x["misses"] and
                  x["bytes"] >= os.path.getsize(debug) + os.path.getsize(prog) and
                  x["inflight"] == 0, f"user.elffs.debuginfod.*: {x}")
            print("xattrs after the real server:", x)
        empty = tempfile.mkdtemp(prefix="elffs-nodebug-")
        try:
            out = gdb_line(prog, empty)
            ck.ok(not re.search(r'Line \d+ of ".*prog.c"', out),
                  f"gdb found the line of main without the mount: {out[-200:]}")
            out = addr2line(prog, empty)
            ck.ok(not re.search(r"prog\.c:\d+", out),
                  f"eu-addr2line found the line without the mount: {out[-200:]}")
        finally:
            os.rmdir(empty)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


# ------------------------------------------------------------ the misbehaving server

def closed_by_peer(conn):
    """Whether the other end of conn has closed it (read without waiting)."""
    try:
        return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


class Faulty:
    """An HTTP server that answers /buildid/<id>/<what> as told per id:
    ("file", path, delay), ("stall",), ("close", path), ("status", code),
    ("oversize", path). Counts requests per id, and the most ids with
    requests under way at once (a client's retries of one id count once).

    A request is under way from its arrival until its client closes the
    connection or its answer is sent. The handler of a stalled request
    sees the close only when its thread next runs, which on a loaded
    machine can be after the client's next request has arrived (CI once
    counted 4 with 3 fetches). So each arrival first looks at the other
    connections under way. A worker of elffs ends its libdebuginfod
    client (which closes its connections) before it takes the next id, so
    the close of the last fetch is seen there. (A stall share of 4 shows
    4 here, and 3 shows 3, also beside four CPU hogs.)"""

    def __init__(self):
        self.plan = {}
        self.hits = {}
        self.live = {}  # requests under way: connection -> id
        self.max_inflight = 0  # the most ids under way at once
        self.lock = threading.Lock()
        self.stop_stalls = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.serve(self)

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def count(self, bid):
        with self.lock:
            return self.hits.get(bid, 0)

    def serve(self, h):
        m = re.match(r"/buildid/([0-9a-f]+)/(debuginfo|executable)$", h.path)
        bid = m.group(1) if m else ""
        with self.lock:
            self.hits[bid] = self.hits.get(bid, 0) + 1
            for conn in [c for c in self.live if closed_by_peer(c)]:
                del self.live[conn]
            self.live[h.connection] = bid
            self.max_inflight = max(self.max_inflight, len(set(self.live.values())))
        try:
            self.answer(h, self.plan.get(bid, ("status", 404)))
        except OSError:
            pass
        finally:
            with self.lock:
                self.live.pop(h.connection, None)

    def answer(self, h, plan):
        kind = plan[0]
        if kind == "status":
            h.send_response(plan[1])
            h.send_header("Content-Length", "0")
            h.end_headers()
        elif kind == "stall":  # no answer, until the client gives up
            end = time.monotonic() + TIMEOUT_S * 20
            while not self.stop_stalls.is_set() and time.monotonic() < end:
                r, _, _ = select.select([h.connection], [], [], 0.05)
                if r and closed_by_peer(h.connection):
                    break
            h.close_connection = True
        elif kind in ("file", "close", "oversize"):
            data = read(plan[1])
            if len(plan) > 2 and plan[2]:
                time.sleep(plan[2])
            h.send_response(200)
            h.send_header("Content-Type", "application/octet-stream")
            size = len(data) * 50 if kind == "oversize" else len(data)
            h.send_header("Content-Length", str(size))
            h.send_header("X-Debuginfod-Size", str(size))
            h.end_headers()
            if kind == "close":
                h.wfile.write(data[:len(data) // 2])
                h.wfile.flush()
                h.close_connection = True
                h.connection.shutdown(socket.SHUT_RDWR)
                return
            if kind == "oversize":
                h.wfile.write(data)
                h.close_connection = True
                return
            step = 1 << 20 if len(plan) > 3 else len(data)
            for i in range(0, len(data), step):
                h.wfile.write(data[i:i + step])
                if len(plan) > 3:
                    time.sleep(plan[3])

    def close(self):
        self.stop_stalls.set()
        self.httpd.shutdown()


def fresh_cache(work, name):
    cache = os.path.join(work, "cache-" + name)
    os.environ["DEBUGINFOD_CACHE_PATH"] = cache
    return cache


def fault_case(ck, work, srcdir, fs, name, bid, want, log_word=None, asks=None):
    """Two lookups of bid on a fresh mount and cache: errno want each time,
    a log line with log_word, and asks requests in all (None: not counted)."""
    cache = fresh_cache(work, name)
    before = fs.count(bid)
    with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()}"]) as m:
        t0 = time.monotonic()
        got = errno_of(os.stat, link_path(m.path, bid))
        took = time.monotonic() - t0
        ck.eq(errno.errorcode.get(got, got), errno.errorcode[want], f"{name}: errno of the lookup")
        ck.ok(m.alive(), f"{name}: daemon alive")
        ck.ok(took < TIMEOUT_S * 6, f"{name}: answered in {took:.1f} s")
        ck.eq(cache_leftovers(cache), [], f"{name}: nothing left in the cache")
        x = xattrs(m.path)
        if want == errno.ENOENT:
            ck.ok(x["misses"] == 1 and x["errors"] == 0, f"{name}: xattrs {x}")
        else:
            ck.ok(x["errors"] == 1 and x["hits"] == 0, f"{name}: xattrs {x}")
        ck.ok(fs.count(bid) - before >= 1, f"{name}: the server was asked")
        print(f"{name}: {errno.errorcode.get(got, got)} in {took:.2f} s, xattrs {x}")
        again = errno_of(os.stat, link_path(m.path, bid))
        ck.eq(errno.errorcode.get(again, again), errno.errorcode[want], f"{name}: asked again")
        out = m.output()
    if asks is not None:
        ck.eq(fs.count(bid) - before, asks, f"{name}: requests for two lookups")
    if log_word:
        lines = [ln for ln in out.splitlines() if bid in ln and log_word in ln]
        ck.ok(lines and (fs.url() in lines[0] or "refused" not in log_word),
              f"{name}: a log line naming the server: {out[-600:]}")
        print(f"{name}: log: {lines[:1]}")


def check_faults(ck, work, srcdir):
    fsrv = os.path.join(work, "faulty")
    os.mkdir(fsrv)
    good_prog, good_debug, good_bid = build(fsrv, "good")
    ids = {k: ("%02x" % i) * 20 for i, k in enumerate(
        ["wrong", "stall", "close", "s500", "over", "trunc", "gone", "slow", "exe"], start=0x31)}
    truncated = os.path.join(fsrv, "trunc.debug")
    with open(truncated, "wb") as f:
        f.write(read(good_debug)[:len(read(good_debug)) * 2 // 3])
    fs = Faulty()
    fs.plan = {
        ids["wrong"]: ("file", good_debug),
        ids["stall"]: ("stall",),
        ids["close"]: ("close", good_debug),
        ids["s500"]: ("status", 500),
        ids["over"]: ("oversize", good_debug),
        ids["trunc"]: ("file", truncated),
        good_bid: ("file", good_debug, 1.0),
    }
    os.environ["DEBUGINFOD_TIMEOUT"] = str(TIMEOUT_S)
    os.environ["DEBUGINFOD_MAXSIZE"] = str(os.path.getsize(good_debug) * 10)
    try:
        # a refused file: not asked again (DBGD_BAD_RETRY_S)
        fault_case(ck, work, srcdir, fs, "wrong build id", ids["wrong"], errno.EIO, "refused", 1)
        fault_case(ck, work, srcdir, fs, "truncated ELF", ids["trunc"], errno.EIO, "refused", 1)
        fault_case(ck, work, srcdir, fs, "stall", ids["stall"], errno.ETIMEDOUT, "in time")
        # a failed server: its negative-cache entry removed, asked again
        fault_case(ck, work, srcdir, fs, "close mid-transfer", ids["close"], errno.EIO, "failed",
                   2)
        fault_case(ck, work, srcdir, fs, "500", ids["s500"], errno.EIO, "failed", 2)
        fault_case(ck, work, srcdir, fs, "over MAXSIZE", ids["over"], errno.EIO, "failed")
        # no server has it: asked once, then libdebuginfod's negative cache answers
        fault_case(ck, work, srcdir, fs, "404", ids["gone"], errno.ENOENT, None, 1)
        check_cache_change(ck, work, srcdir, fs)
        check_absent_ids(ck, work, srcdir, fs)
        check_local_wins(ck, work, srcdir, fs)
        check_concurrency(ck, work, srcdir, fs, good_bid, ids)
        check_stopped_cache(ck, work, srcdir, fs)
        check_progress(ck, work, srcdir, fs)
    finally:
        fs.close()
        for k in ("DEBUGINFOD_TIMEOUT", "DEBUGINFOD_MAXSIZE"):
            os.environ.pop(k, None)


def rewrite_kept_times(path, data):
    """Write data over path in place and put its atime and mtime back (as
    cp -p and rsync --inplace do): only the ctime moves."""
    st = os.stat(path)
    with open(path, "r+b") as f:
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def check_cache_change(ck, work, srcdir, fs):
    """A verified executable of id X, rewritten in the cache with the bytes
    of Y (another build of prog.c: the same size), is verified again before
    it is shown: it fails, is removed and fetched again (elffs(1), ACROSS
    MACHINES), so .remote/X/build-id names X and elf is X's bytes. A
    sections/.text of X's view opened before the rewrite reads EIO (the
    file of a remote view is reached by no path of SOURCE: a change of its
    ctime alone is never taken for a rename)."""
    fsrv = os.path.join(work, "faulty")
    x, _, xid = build(fsrv, "cx", bid="c0" * 20)
    y, _, yid = build(fsrv, "cy", bid="c1" * 20)
    if not ck.eq(os.path.getsize(x), os.path.getsize(y), "two builds of the same size"):
        return
    fs.plan[xid] = ("file", x)
    cache = fresh_cache(work, "changed")
    cached = os.path.join(cache, xid, "executable")
    # timeout=0: every access looks at the cached file again
    with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()},timeout=0"]) as m:
        view = os.path.join(m.path, ".build-id", ".remote", xid)
        ck.ok(read(link_path(m.path, xid, False)) == read(x), "X fetched")
        ck.ok(xid in read(os.path.join(view, "build-id")).decode(), "X's build-id")
        ck.eq(fs.count(xid), 1, "X asked once")
        # the bytes unchanged, the ctime moved: verified again, not fetched again
        rewrite_kept_times(cached, read(x))
        ck.ok(read(os.path.join(view, "elf")) == read(x), "X after a ctime change")
        ck.eq(fs.count(xid), 1, "a file that passes the verification again is not fetched")
        # a reader of the view, opened before the rewrite (no byte read yet)
        held = os.open(os.path.join(view, "sections", ".text"), os.O_RDONLY)
        rewrite_kept_times(cached, read(y))
        got = errno_of(os.pread, held, 1 << 20, 0)
        os.close(held)
        ck.eq(errno.errorcode.get(got, got), "EIO", "a held sections/.text after the rewrite")
        bid = read(os.path.join(view, "build-id")).decode(errors="replace")
        ck.ok(yid not in bid and xid in bid, f"X's build-id after the rewrite: {bid!r}")
        ck.ok(read(os.path.join(view, "elf")) == read(x), "X's elf after the rewrite")
        ck.ok(read(link_path(m.path, xid, False)) == read(x), "X's link after the rewrite")
        ck.eq(fs.count(xid), 2, "the rewritten file fetched again")
        ck.ok(read(cached) == read(x), "the cache holds X again")
        out = m.output()
    ck.ok(re.search(r"debuginfod: %s executable: the cached file changed" % xid, out),
          f"a log line for the rewritten file: {out[-500:]}")
    print(f"a cached file rewritten with another build's bytes: fetched again "
          f"({fs.count(xid)} requests)")
    # within the cache timeout no lookup looks at the cache: the read alone
    # sees the rewrite, by the file's ctime
    fresh_cache(work, "changed-held")
    with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()},timeout=600"]) as m:
        view = os.path.join(m.path, ".build-id", ".remote", xid)
        held = os.open(os.path.join(view, "sections", ".text"), os.O_RDONLY)
        cached = os.path.join(os.environ["DEBUGINFOD_CACHE_PATH"], xid, "executable")
        rewrite_kept_times(cached, read(y))
        got = errno_of(os.pread, held, 1 << 20, 0)
        os.close(held)
        ck.eq(errno.errorcode.get(got, got), "EIO", "a held sections/.text after the rewrite "
              "(timeout=600)")


def check_absent_ids(ck, work, srcdir, fs):
    """A debugger that looks up 30 ids no server has, on two runs and then
    on a new mount over the same cache: 30 requests in all."""
    absent = ["%08x" % (0xa0000000 + i) + "00" * 16 for i in range(30)]
    fresh_cache(work, "absent")
    for _ in range(2):
        with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()}"]) as m:
            for run in range(2):
                errs = {errno_of(os.stat, link_path(m.path, b)) for b in absent}
                ck.eq(errs, {errno.ENOENT}, f"absent ids, run {run}")
    asked = sum(fs.count(b) for b in absent)
    ck.eq(asked, 30, "30 absent ids looked up on 4 runs: one request each")
    print(f"30 absent ids, 4 runs over one cache: {asked} requests")


def check_local_wins(ck, work, srcdir, fs):
    local = os.path.join(srcdir, "local.debug")
    bid = build_id(local)
    fs.plan[bid] = ("file", local)
    fresh_cache(work, "local")
    with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()}"]) as m:
        ck.eq(os.readlink(link_path(m.path, bid)), "../../local.debug/elf",
              "an id SOURCE has links to SOURCE's file")
        ck.eq(fs.count(bid), 0, "an id SOURCE has is not asked of the servers")
        ck.eq(xattrs(m.path)["requests"], 0, "no request for a local id")


def check_concurrency(ck, work, srcdir, fs, good_bid, ids):
    cache = fresh_cache(work, "parallel")
    with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()}"]) as m:
        results = []
        lp = link_path(m.path, good_bid)

        def look():
            results.append(errno_of(lambda: read(lp)))

        threads = [threading.Thread(target=look) for _ in range(100)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ck.eq(results.count(0), 100, f"100 parallel lookups of one id: {set(results)}")
        ck.eq(fs.count(good_bid), 1, "100 parallel lookups of one id: one request")
        print(f"100 parallel lookups: {fs.count(good_bid)} request(s)")
        ck.ok(os.path.isfile(os.path.join(cache, good_bid, "debuginfo")), "cached once")

        # 8 stalled ids at once: at most 3 workers wait on servers; the mount answers meanwhile
        stalled = ["%02x" % (0x60 + i) * 20 for i in range(8)]
        for s in stalled:
            fs.plan[s] = ("stall",)
        fs.max_inflight = 0
        errs = []

        def look_stalled(s):
            errs.append(errno_of(os.stat, link_path(m.path, s)))

        ts = [threading.Thread(target=look_stalled, args=(s,)) for s in stalled]
        for t in ts:
            t.start()
        end = time.monotonic() + 10
        while sum(fs.count(s) for s in stalled) == 0 and time.monotonic() < end:
            time.sleep(0.05)
        inflight = xattrs(m.path)["inflight"]
        local_bin = os.path.join(m.path, "local.debug")
        text = read(os.path.join(local_bin, "info"))
        local_link = os.readlink(link_path(m.path, build_id(os.path.join(srcdir, "local.debug"))))
        still = sum(t.is_alive() for t in ts)
        ck.ok(len(text) > 0 and local_link == "../../local.debug/elf",
              "local lookups and reads answer while fetches stall")
        ck.ok(still > 0, f"the fetches still stalled when the local reads answered ({still})")
        ck.ok(1 <= inflight <= 3, f"user.elffs.debuginfod.inflight while stalled: {inflight}")
        for t in ts:
            t.join()
        ck.ok(fs.max_inflight <= 3, f"requests in flight at once: {fs.max_inflight} (at most 3)")
        ck.ok(all(e == errno.ETIMEDOUT for e in errs), f"stalled lookups: {errs}")
        print(f"8 stalled ids: at most {fs.max_inflight} requests at once, local reads answered "
              f"with {still} still waiting")
        ck.ok(m.alive(), "daemon alive after the stalls")


def with_build_id(data, old, new):
    """The bytes of an ELF file data with its build id old (hex) made new."""
    o, n = bytes.fromhex(old), bytes.fromhex(new)
    assert data.count(o) == 1 and len(o) == len(n)
    return data.replace(o, n)


def check_stopped_cache(ck, work, srcdir, fs):
    """Verified ids whose cached files are on a file system that stops
    answering: lookups of them (which look at the cached file again) take
    the workers of that device's share only, and the mount answers
    meanwhile. The cache holds 12 executables as links <id> ->
    NESTED/z<i>/sections, where NESTED is a second elffs mount (-o
    timeout=0,watch=off: every lookup reaches its daemon) and z<i> an ELF file whose
    section `executable` is the executable of id <i>: libdebuginfod finds
    each in its cache (no request), the daemon verifies it there. Then the
    nested daemon is stopped (SIGSTOP), 12 lookups of the ids start, and
    a listing of the mount's root must answer within STOPPED_LIMIT s."""
    fsrv = os.path.join(work, "faulty")
    x, _, xid = build(fsrv, "sc", bid="d0" * 20)
    data = read(x)
    nested_src = os.path.join(work, "stopped-src")
    os.mkdir(nested_src)
    ids = ["%02x" % (0xd1 + i) * 20 for i in range(STOPPED_IDS)]
    for i, bid in enumerate(ids):
        exe = os.path.join(fsrv, f"sc{i}")
        with open(exe, "wb") as f:
            f.write(with_build_id(data, xid, bid))
        subprocess.run(["objcopy", "--add-section", f"executable={exe}", x,
                        os.path.join(nested_src, f"z{i}")], check=True)
    cache = fresh_cache(work, "stopped")
    os.mkdir(cache)
    # watch=off: every lookup reaches the nested daemon (watched, its
    # kernel would keep the entries)
    with Mount(ck, nested_src, ["-o", "timeout=0,watch=off"]) as nested:
        for i, bid in enumerate(ids):
            os.symlink(os.path.join(nested.path, f"z{i}", "sections"), os.path.join(cache, bid))
        stopped = False
        try:
            with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()},timeout=0"]) as m:
                remote = os.path.join(m.path, ".build-id", ".remote")
                got = [errno_of(os.stat, os.path.join(remote, bid)) for bid in ids]
                x = xattrs(m.path)
                if not ck.ok(got == [0] * len(ids) and x["hits"] == len(ids),
                             f"ids verified on the nested mount: {got}, xattrs {x}"):
                    return
                os.kill(nested.proc.pid, signal.SIGSTOP)
                stopped = True
                errs = []
                ts = [threading.Thread(target=lambda p: errs.append(errno_of(os.stat, p)),
                                       args=(os.path.join(remote, bid),), daemon=True)
                      for bid in ids]
                for t in ts:
                    t.start()
                time.sleep(1)  # time for the lookups to reach the stopped mount
                listed = []
                lister = threading.Thread(target=lambda: listed.append(os.listdir(m.path)),
                                          daemon=True)
                t0 = time.monotonic()
                lister.start()
                lister.join(STOPPED_LIMIT)
                took = time.monotonic() - t0
                still = sum(t.is_alive() for t in ts)
                os.kill(nested.proc.pid, signal.SIGCONT)
                stopped = False
                lister.join(60)
                for t in ts:
                    t.join(60)
                ck.ok(took < STOPPED_LIMIT and listed,
                      f"a listing of the root with the cache's mount stopped: {took:.1f} s")
                ck.ok(still > 0, f"lookups of the ids waited on the stopped mount ({still})")
                ck.eq(errs, [0] * len(ids), "lookups of the ids once it goes on")
                ck.ok(m.alive(), "daemon alive after the stopped cache")
                print(f"cache on a stopped mount: the root listed in {took:.2f} s with {still} "
                      f"lookups waiting")
        finally:
            if stopped:
                os.kill(nested.proc.pid, signal.SIGCONT)


def check_progress(ck, work, srcdir, fs):
    big, _, bid = build(os.path.join(work, "faulty"), "big",
                        bid="b16b16b16b16b16b16b16b16b16b16b16b16b16b")
    # a 6 MiB executable: a file of that size with its build id (the stripped binary padded)
    padded = os.path.join(work, "faulty", "big.padded")
    subprocess.run(["objcopy", "--add-section", f".pad={os.path.join(work, 'pad.bin')}",
                    "--set-section-flags", ".pad=readonly", big, padded], check=True)
    fs.plan[bid] = ("file", padded, 0, 0.3)
    fresh_cache(work, "progress")
    os.environ["DEBUGINFOD_MAXSIZE"] = str(64 << 20)
    os.environ["DEBUGINFOD_TIMEOUT"] = "10"
    with Mount(ck, srcdir, ["-o", f"debuginfod={fs.url()}"]) as m:
        data = read(link_path(m.path, bid, debug=False))
        ck.eq(data, read(padded), "a 6 MiB executable fetched whole")
        out = m.output()
    ck.ok(re.search(r"debuginfod: %s executable: \d+ of \d+ KiB from " % bid, out),
          f"a progress line for a download over 4 MiB: {out[-500:]}")


def main():
    require_fuse()
    ck = Checker("debuginfod")
    for tool in ("debuginfod", "gdb", "eu-addr2line", "objcopy", "strip", "gcc", "ip"):
        if shutil.which(tool) is None:
            ck.fail(f"{tool} is not installed (scripts/test installs it)")
    out = subprocess.run([os.environ["ELFFS"], "-h"], stdout=subprocess.PIPE, text=True).stdout
    if "not in this build" in out:
        ck.fail("elffs was built without libdebuginfod (scripts/test installs libdebuginfod-dev)")
    if ck.failures or not enter_netns(ck):
        return ck.finish()
    work = tempfile.mkdtemp(prefix="elffs-debuginfod-")
    try:
        with open(os.path.join(work, "pad.bin"), "wb") as f:
            f.write(os.urandom(6 << 20))
        srcdir = os.path.join(work, "src")
        os.mkdir(srcdir)
        # SOURCE: one local debug file (another build id than every served one)
        _, local_debug, _ = build(work, "local", bid="abcdef0123456789abcdef0123456789abcdef01")
        shutil.copy(local_debug, os.path.join(srcdir, "local.debug"))
        check_real_server(ck, work, srcdir)
        check_faults(ck, work, srcdir)
    except MountError as e:
        ck.fail(str(e))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
