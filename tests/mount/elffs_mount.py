"""Shared helpers of the elffs mount tests: skip-or-fail logic, a result
checker, and a context manager that runs the real elffs daemon on a
temporary mount point through the kernel's FUSE.

Exit codes of every test: 0 success, 1 failure, 77 skip (meson's code).
A skip happens only when the machine has no usable /dev/fuse, and becomes a
failure when ELFFS_REQUIRE_FUSE=1.

ELFFS_TEST_MOUNT_OPTS (comma-separated -o options, e.g.
"passthrough=off,max_read=16777216") runs every mount of the suite in that
mode (scripts/test's ELFFS_TEST_MODES): mode_args() puts them before a
test's own options, and elffs takes the last of a repeated option, so a test
that names an option itself keeps its value.
"""

import contextlib
import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

SKIP = 77
LIVE_TIMEOUT = 10.0
# A line of the daemon's output with one of these is a failure at unmount
# (a sanitized build: AddressSanitizer, LeakSanitizer, UBSan).
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def _on_signal(signum, frame):
    # meson kills timed-out tests with SIGTERM: unwind so that every
    # `finally` unmounts and no daemon is left behind.
    raise KeyboardInterrupt(f"signal {signum}")


signal.signal(signal.SIGTERM, _on_signal)


def require_env(name):
    value = os.environ.get(name)
    if not value:
        print(f"FAIL: environment variable {name} is not set")
        sys.exit(1)
    return value


def elffs_path():
    path = require_env("ELFFS")
    if not os.access(path, os.X_OK):
        print(f"FAIL: ELFFS={path} is not an executable")
        sys.exit(1)
    return path


def fixtures_dir():
    path = require_env("ELFFS_FIXTURES")
    if not os.path.isfile(os.path.join(path, "MANIFEST")):
        print(f"FAIL: no MANIFEST in ELFFS_FIXTURES={path}")
        sys.exit(1)
    return path


def fixture(name):
    path = os.path.join(fixtures_dir(), name)
    if not os.path.isfile(path):
        print(f"FAIL: fixture {path} is missing")
        sys.exit(1)
    return path


def copy_fixture(name, dst):
    """Fixture name copied to dst, executable (0755)."""
    shutil.copyfile(fixture(name), dst)
    os.chmod(dst, 0o755)


def mode_options():
    """ELFFS_TEST_MOUNT_OPTS as one -o value ("" when unset)."""
    opts = os.environ.get("ELFFS_TEST_MOUNT_OPTS", "")
    return ",".join(o.strip() for o in opts.split(",") if o.strip())


def mode_args():
    """The daemon arguments of the test mode: ["-o", OPTS], or [] in the
    default mode. Placed before a test's own options (the last of a repeated
    option wins: fs/options.c)."""
    opts = mode_options()
    return ["-o", opts] if opts else []


def mode_option(name):
    """The value the test mode gives option name (its last one), or None."""
    value = None
    for opt in mode_options().split(","):
        if opt.startswith(name + "="):
            value = opt[len(name) + 1:]
    return value


def skip_or_fail(reason):
    if os.environ.get("ELFFS_REQUIRE_FUSE") == "1":
        print(f"FAIL: would skip ({reason}) but ELFFS_REQUIRE_FUSE=1")
        sys.exit(1)
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


NOBODY = 65534
NOGROUP = 65534


def drop_caches(times=1, settle=0.0):
    """echo 2 > /proc/sys/vm/drop_caches (root): the kernel drops the
    dentries and inodes nobody uses, and sends the daemon FORGETs for
    them; times over, settle seconds after each."""
    for _ in range(times):
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("2\n")
        if settle:
            time.sleep(settle)


@contextlib.contextmanager
def tmpfs_source(ck, tag, prefix):
    """A new directory with a tmpfs of its own on it (strictatime: a file's
    atime tells whether the daemon read it; no other writer on it), or None
    when it cannot be mounted (a failure); unmounted and removed after."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    src = os.path.join(tmp, "src")
    os.makedirs(src)
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "strictatime,size=64m", "tmpfs", src],
                         capture_output=True, text=True)
    if res.returncode != 0:
        ck.fail(f"{tag}: cannot mount a tmpfs (root needed): {res.stderr.strip()}")
    try:
        yield src if res.returncode == 0 else None
    finally:
        if res.returncode == 0:
            subprocess.run(["umount", "-l", src], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def build_id(path):
    """The GNU build id of ELF file path as readelf -n prints it, or None."""
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True,
                         env=dict(os.environ, LC_ALL="C")).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def cache_drops():
    """How many times anyone on the machine dropped the kernel's dentries
    and inodes (drop_slab of /proc/vmstat, counted by echo 2 or 3 to
    drop_caches): a test that checks what the kernel kept between two
    points reads it at both, since another test run on the same kernel
    (a chroot's too) can drop them in between; None when not shown."""
    try:
        with open("/proc/vmstat") as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name == "drop_slab":
                    return int(value)
    except OSError:
        pass
    return None


def as_nobody(fn):
    """Run fn() in a child as nobody (no supplementary groups): 0 when it
    returns True, 255 when it returns False, the errno of an OSError it
    raises."""
    pid = os.fork()
    if pid == 0:
        code = 254
        try:
            os.setgroups([])
            os.setgid(NOGROUP)
            os.setuid(NOBODY)
            code = 0 if fn() else 255
        except OSError as e:
            code = e.errno or 253
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def require_fuse():
    """Skip (or fail under ELFFS_REQUIRE_FUSE=1) unless FUSE mounts work."""
    if not os.path.exists("/dev/fuse"):
        skip_or_fail("/dev/fuse does not exist")
    try:
        os.close(os.open("/dev/fuse", os.O_RDWR))
    except OSError as e:
        skip_or_fail(f"/dev/fuse cannot be opened: {e.strerror}")
    if shutil.which("fusermount3") is None:
        skip_or_fail("fusermount3 is not installed")


class Checker:
    """Counts checks and failures; finish() prints them and exits."""

    def __init__(self, name):
        self.name = name
        self.checks = 0
        self.failures = []
        self.counts = {}
        self.started = time.monotonic()
        self.lock = threading.Lock()  # checks may come from worker threads

    def ok(self, cond, msg):
        with self.lock:
            self.checks += 1
            if not cond:
                self.failures.append(msg)
                if len(self.failures) <= 200:
                    print(f"FAIL: {msg}", flush=True)
        return bool(cond)

    def eq(self, got, want, what):
        return self.ok(got == want, f"{what}: got {got!r}, want {want!r}")

    def fail(self, msg):
        return self.ok(False, msg)

    def errno_is(self, want, what, fn, *args, **kwargs):
        """Run fn(*args); it must raise OSError with errno `want`."""
        try:
            fn(*args, **kwargs)
        except OSError as e:
            return self.ok(e.errno == want, f"{what}: errno {errno.errorcode.get(e.errno, e.errno)}"
                           f", want {errno.errorcode[want]}")
        return self.fail(f"{what}: succeeded, want {errno.errorcode[want]}")

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n

    def finish(self):
        took = time.monotonic() - self.started
        counts = ", ".join(f"{k}={v}" for k, v in self.counts.items())
        print(f"{self.name}: {self.checks} checks, {len(self.failures)} failures"
              f"{', ' + counts if counts else ''} ({took:.1f} s)")
        if len(self.failures) > 200:
            print(f"({len(self.failures) - 200} more failures not shown)")
        sys.exit(1 if self.failures else 0)


def _unescape_mountinfo(field):
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 3 < len(field) and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mount_entry(mountpoint, resolve=True):
    """The /proc/self/mountinfo fields for mountpoint, or None. resolve=False
    takes mountpoint as the real path it is and looks at no file: realpath
    stats the mount point, a call into a mount that may not answer."""
    if resolve:
        mountpoint = os.path.realpath(mountpoint)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if _unescape_mountinfo(fields[4]) == mountpoint:
                return fields
    return None


def in_proc_mounts(mountpoint):
    mountpoint = os.path.realpath(mountpoint)
    with open("/proc/mounts") as f:
        return any(_unescape_mountinfo(line.split()[1]) == mountpoint for line in f)


def wait_for(pred, timeout, step=0.02):
    end = time.monotonic() + timeout
    while True:
        if pred():
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(step)


def force_unmount(mountpoint):
    """Last resort: lazy unmount, quietly."""
    if mount_entry(mountpoint) is not None:
        subprocess.run(["fusermount3", "-uz", mountpoint], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


class MountError(Exception):
    pass


class Mount:
    """Runs `elffs -f [mode options] [options] SOURCE MOUNTPOINT` in the
    background (mode options: mode_args()).

    with Mount(ck, source, ["-o", "nommap"]) as m: ... m.path ...

    On exit it unmounts with `fusermount3 -u`, waits for the daemon and
    records in the checker a daemon that died early or exited non-zero.
    """

    def __init__(self, ck, source, args=(), mountpoint=None, prefix=(), check_exit=True):
        self.ck = ck
        self.source = source
        self.args = list(args)
        self.prefix = list(prefix)
        self.own_mountpoint = mountpoint is None
        self.path = mountpoint
        self.proc = None
        self.check_exit = check_exit
        self.log = None

    def start(self):
        daemon = elffs_path()  # exits on a bad ELFFS: before making anything
        if self.own_mountpoint:
            self.path = tempfile.mkdtemp(prefix="elffs-mnt-")
        self.log = tempfile.TemporaryFile()
        cmd = self.prefix + [daemon, "-f"] + mode_args() + self.args + [self.source, self.path]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        live = wait_for(lambda: mount_entry(self.path) is not None or self.proc.poll() is not None,
                        LIVE_TIMEOUT)
        if self.proc.poll() is not None or not live:
            rc = self.proc.poll()
            self.stop(record=False)
            raise MountError(f"elffs {' '.join(cmd)} did not mount (exit {rc}): {self.output()}")
        return self

    def output(self):
        if self.log is None:
            return ""
        self.log.seek(0)
        text = self.log.read().decode(errors="replace")
        if len(text) > 6000:  # keep the head (a sanitizer's first stack) and the tail
            text = text[:4000] + "\n[...]\n" + text[-2000:]
        return text

    def sanitizer_reports(self):
        """The lines of the daemon's output (all of it) that report a sanitizer error."""
        if self.log is None:
            return []
        self.log.seek(0)
        text = self.log.read().decode(errors="replace")
        return [line for line in text.splitlines() if any(m in line for m in SANITIZER_MARKS)]

    def passthrough(self):
        """Whether the daemon said at INIT that `elf` files open in FUSE
        passthrough (fs/ops/passthrough.c): the kernel then reads them from
        the source file, as a reader of that file would."""
        return "passthrough: on" in self.output()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, record=True):
        """Unmount and reap the daemon; returns its exit status."""
        if self.proc is None:
            return None
        died_early = self.proc.poll() is not None
        umount, held_elsewhere = None, False
        if mount_entry(self.path) is not None:
            umount = subprocess.run(["fusermount3", "-u", self.path], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True)
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            copies = namespace_copies(self.path)
            stacks = (f"fusermount3 -u: status {umount and umount.returncode}, "
                      f"{(umount and umount.stderr.strip())!r}; files open on the mount: "
                      f"{open_below(self.path)}; copies in other mount namespaces: "
                      f"{copies}\n{daemon_stacks(self.proc.pid)}")
            force_unmount(self.path)
            self.proc.kill()
            rc = self.proc.wait()
            if copies and (umount is None or umount.returncode == 0):
                # Unmounted here; another namespace (made by unshare -m while
                # the mount existed, outside this test) keeps the connection,
                # so the kernel never told the daemon: nothing to hold it to.
                print(f"note: {self.path} is still mounted in other mount namespaces "
                      f"{copies}: the daemon could not end; killed", flush=True)
                held_elsewhere = True
            elif record:
                self.ck.fail(f"daemon did not exit within 10 s of fusermount3 -u ({self.source})"
                             f"; its threads then:\n{stacks}")
        force_unmount(self.path)
        if record and self.check_exit and not held_elsewhere:
            if died_early:
                self.ck.fail(f"daemon died while mounted (status {rc}) on {self.source}: "
                             f"{self.output()}")
            elif rc != 0:
                self.ck.fail(f"daemon exit status {rc} after fusermount3 -u ({self.source}): "
                             f"{self.output()}")
            else:
                self.ck.ok(True, "daemon exit status")
            self.ck.ok(mount_entry(self.path) is None, f"mount {self.path} left behind")
        if record:
            reports = self.sanitizer_reports()
            self.ck.ok(not reports, f"daemon sanitizer report on {self.source}: {reports[:3]}\n"
                                    f"{self.output()}")
        self.proc = None
        if self.own_mountpoint:
            try:
                os.rmdir(self.path)
            except OSError:
                pass
        return rc

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self.log is not None:
            self.log.close()
        return False


class Nested:
    """The daemon of Mount m, below another mount's SOURCE, that a test stops
    (SIGSTOP: it answers nothing, reads no request) and continues. cont() may
    be called any number of times, also once the daemon is gone: call it in
    a finally before any unmount."""

    def __init__(self, m):
        self.m = m
        self.stopped = False

    def stop(self):
        os.kill(self.m.proc.pid, signal.SIGSTOP)
        self.stopped = True

    def cont(self):
        if self.m.proc is not None:
            try:
                os.kill(self.m.proc.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.stopped = False


def open_below(path):
    """[(pid, command, path)] of the descriptors and working directories of
    every process that lie at or below path."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            links = [os.path.join(f"/proc/{pid}/fd", fd) for fd in os.listdir(f"/proc/{pid}/fd")]
            links.append(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        for link in links:
            try:
                target = os.readlink(link)
            except OSError:
                continue
            if target == path or target.startswith(path + "/"):
                out.append((int(pid), comm, target))
    return out


def namespace_copies(path):
    """[(pid, command)] of one process per other mount namespace whose mount
    table still holds path: a namespace made (unshare -m) while the mount
    was there keeps a copy, and the copy keeps the daemon's connection alive
    after fusermount3 -u here."""
    mine, seen, out = os.readlink("/proc/self/ns/mnt"), set(), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            ns = os.readlink(f"/proc/{pid}/ns/mnt")
            if ns == mine or ns in seen:
                continue
            seen.add(ns)
            with open(f"/proc/{pid}/mountinfo") as f:
                held = any(line.split()[4] == path for line in f)
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except (OSError, IndexError):
            continue
        if held:
            out.append((int(pid), comm))
    return out


class Watchdog:
    """Aborts FUSE connection conn when the with-block takes longer than
    limit seconds (calls stuck on the mount then fail with ENOTCONN), after
    before_abort() if given (e.g. continuing a stopped daemon)."""

    def __init__(self, ck, conn, what, limit, before_abort=None, why="hung"):
        self.ck, self.conn, self.what, self.limit = ck, conn, what, limit
        self.before_abort, self.why = before_abort, why
        self.fired = False
        self.timer = threading.Timer(limit, self._fire)
        self.timer.daemon = True

    def _fire(self):
        self.fired = True
        self.ck.fail(f"{self.what}: {self.why} for {self.limit:.0f} s, aborting the mount")
        if self.before_abort:
            self.before_abort()
        abort_connection(self.conn)

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        return False


def abort_connection(conn):
    """Abort FUSE connection conn (its device minor) through fusectl, mounted
    if need be: the calls in flight then fail with ENOTCONN. Whether it
    could."""
    conns = "/sys/fs/fuse/connections"
    if not os.listdir(conns):
        subprocess.run(["mount", "-t", "fusectl", "fusectl", conns], capture_output=True)
    try:
        with open(f"{conns}/{conn}/abort", "w") as f:
            f.write("1")
        return True
    except OSError as e:
        print(f"cannot abort FUSE connection {conn}: {e}", flush=True)
        return False


def daemon_status(pid):
    """The memory fields of /proc/PID/status (VmRSS, VmHWM, RssAnon...), in bytes."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if value.strip().endswith(" kB"):
                out[key] = int(value.split()[0]) * 1024
    return out


def daemon_has_asan(pid):
    """Whether the process runs with AddressSanitizer (libasan mapped)."""
    with open(f"/proc/{pid}/maps") as f:
        return "libasan" in f.read()


def daemon_ended(ck, m, what, timeout=10):
    """Wait up to timeout s for the daemon of Mount m to end after an unmount
    (lazy or not). True if it ended; None, with a note, if another mount
    namespace still holds a copy of the mount (then the kernel never tells
    the daemon to end: no verdict); False, with a failure, otherwise."""
    if wait_for(lambda: not m.alive(), timeout):
        return ck.ok(True, f"daemon ended after {what}")
    copies = namespace_copies(m.path)
    if copies:
        print(f"note: {m.path} is still mounted in other mount namespaces {copies}: "
              f"the daemon cannot end ({what})", flush=True)
        return None
    ck.fail(f"daemon still running {timeout} s after {what}; its threads:\n"
            f"{daemon_stacks(m.proc.pid)}")
    return False


def daemon_stacks(pid):
    """What each thread of a stuck daemon is doing: kernel wait channel and
    stack from /proc, and gdb's backtraces when gdb is there."""
    out = []
    for tid in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
        parts = []
        for f in ("comm", "wchan", "stack"):
            try:
                with open(f"/proc/{pid}/task/{tid}/{f}") as fh:
                    parts.append(fh.read().strip().replace("\n", " | "))
            except OSError:
                pass
        out.append(f"  {tid}: " + " ; ".join(parts))
    if shutil.which("gdb"):
        r = subprocess.run(["gdb", "-batch", "-p", str(pid), "-ex", "thread apply all bt"],
                           capture_output=True, text=True, timeout=60)
        out += [line for line in r.stdout.splitlines() if line.startswith(("#", "Thread"))]
    return "\n".join(out)


def run_mounted(ck, source, args, body):
    """Mount, run body(mount), unmount; a failed mount, or an OSError the
    body did not expect (e.g. ENOTCONN once the daemon died), is a failure."""
    try:
        with Mount(ck, source, args) as m:
            try:
                body(m)
            except OSError as e:
                traceback.print_exc()
                ck.fail(f"unexpected error with {source} mounted: {e}")
    except MountError as e:
        ck.fail(str(e))
