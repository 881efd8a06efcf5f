#!/usr/bin/python3
"""What the daemon inherits from whoever starts it.

- Ignored signals: a command started with & by a script inherits SIGINT
  ignored (and a shell's `trap '' SIG` ignores others). elffs sets its own
  SIGHUP, SIGINT and SIGTERM handlers, so each still ends it cleanly:
  status 0, no mount left. Checked in the foreground for each signal (the
  daemon's /proc status must not list it as ignored) and for SIGINT in the
  background (the daemonized child).
- An address-space limit (prlimit --as): glibc's pthread_cancel loads
  libgcc_s on first use, and libfuse cancels its workers at the end of the
  session; when the limit is used up by worker stacks that load fails and
  glibc aborts, leaving a stale mount. The test finds the smallest limit at
  which the daemon mounts and serves a read, then runs it at that limit and
  a few MiB above, with concurrent readers (libfuse starts workers until
  the limit refuses a thread), and ends it with SIGTERM or fusermount3 -u:
  it must never die of a signal nor leave the mount behind. Left out under
  sanitizers (ASan reserves terabytes of address space).
"""

import os
import signal
import subprocess
import tempfile
import threading
import time

from elffs_mount import (SANITIZER_MARKS, Checker, elffs_path, fixtures_dir, force_unmount,
                         mode_args, mount_entry, require_fuse, wait_for)

IGNORE = ["/bin/sh", "-c", 'trap "" HUP INT TERM; exec "$@"', "sh"]
MIB = 1 << 20


def daemon_pids(mnt):
    """Pids of processes running the elffs binary with mnt in argv."""
    exe = os.path.realpath(elffs_path())
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.path.realpath(f"/proc/{entry}/exe") != exe:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if os.fsencode(mnt) in argv:
            pids.append(int(entry))
    return pids


def ignored_signals(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("SigIgn:"):
                mask = int(line.split()[1], 16)
                return {s for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)
                        if mask & (1 << (s - 1))}
    return set()


class Daemon:
    """elffs -f SOURCE MNT under a prefix command, its output in a file."""

    def __init__(self, prefix, source, args=()):
        self.mnt = tempfile.mkdtemp(prefix="elffs-inh-")
        self.log = tempfile.TemporaryFile()
        cmd = list(prefix) + [elffs_path(), "-f"] + mode_args() + list(args) + [source, self.mnt]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        self.mounted = wait_for(lambda: mount_entry(self.mnt) is not None
                                or self.proc.poll() is not None, 10)
        self.mounted = self.mounted and mount_entry(self.mnt) is not None

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-1500:]

    def wait(self, timeout=10):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self, ck):
        """Whatever happened: no daemon, no mount, no directory left; no
        sanitizer report in the daemon's output."""
        force_unmount(self.mnt)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        force_unmount(self.mnt)
        self.log.seek(0)
        text = self.log.read().decode(errors="replace")
        reports = [ln for ln in text.splitlines() if any(m in ln for m in SANITIZER_MARKS)]
        ck.ok(not reports, f"daemon sanitizer report: {reports[:3]}\n{text[-3000:]}")
        self.log.close()
        try:
            os.rmdir(self.mnt)
        except OSError:
            pass


def foreground_ignored(ck, src, sig):
    d = Daemon(IGNORE, src)
    try:
        if not ck.ok(d.mounted, f"{sig.name} ignored: daemon did not mount: {d.output()}"):
            return
        ck.eq(ignored_signals(d.proc.pid), set(),
              f"{sig.name} ignored at start: signals ignored once mounted")
        d.proc.send_signal(sig)
        rc = d.wait()
        ck.eq(rc, 0, f"{sig.name} ignored at start, then sent: exit status")
        ck.ok(mount_entry(d.mnt) is None, f"{sig.name} ignored at start: mount left behind")
    finally:
        d.close(ck)


def background_ignored(ck, src):
    """`elffs SRC MNT &` from a script: the daemonized child ends on SIGINT."""
    mnt = tempfile.mkdtemp(prefix="elffs-inh-")
    try:
        out = subprocess.run(IGNORE + [elffs_path()] + mode_args() + [src, mnt],
                             capture_output=True, timeout=30)
        ck.eq(out.returncode, 0, f"background, SIGINT ignored: exit status {out.stderr[-300:]!r}")
        pids = daemon_pids(mnt)
        if not ck.eq(len(pids), 1, "background, SIGINT ignored: daemons found in /proc"):
            return
        ck.eq(ignored_signals(pids[0]), set(), "background daemon: signals ignored")
        os.kill(pids[0], signal.SIGINT)
        ck.ok(wait_for(lambda: not daemon_pids(mnt), 10),
              "background daemon still running 10 s after SIGINT")
        ck.ok(mount_entry(mnt) is None, "background daemon: mount left after SIGINT")
    except subprocess.TimeoutExpired:
        ck.fail("background, SIGINT ignored: elffs did not return within 30 s")
    finally:
        force_unmount(mnt)
        for pid in daemon_pids(mnt):
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not daemon_pids(mnt), 5)
        os.rmdir(mnt)


def readers(mnt, files, seconds):
    """Concurrent reads of every section file for a while (libfuse starts a
    worker per request in flight, up to its maximum or the limit)."""
    paths = []
    for name in files:
        sec = os.path.join(mnt, name, "sections")
        try:
            paths += [os.path.join(sec, s) for s in os.listdir(sec)]
        except OSError:
            pass
    end = time.monotonic() + seconds

    def work(k):
        while time.monotonic() < end:
            for p in paths[k % 3::3]:
                try:
                    with open(p, "rb") as f:
                        while f.read(1 << 20):
                            pass
                except OSError:
                    pass

    threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def limited_run(ck, src, mib, end, load):
    """One daemon under --as=mib MiB. True when it mounted and served a read.
    Whatever the limit: no death by a signal, no stale mount."""
    d = Daemon(["prlimit", f"--as={mib * MIB}"], src)
    served = False
    try:
        if d.mounted:
            try:
                with open(os.path.join(d.mnt, "exec", "header"), "rb") as f:
                    served = len(f.read()) == 64
            except OSError:
                pass
        if served and load:
            readers(d.mnt, ["exec", "pie", "libshared.so", "armhf-libc.so.6"], 0.6)
        if d.proc.poll() is None:
            if end == "SIGTERM":
                d.proc.send_signal(signal.SIGTERM)
            else:
                subprocess.run(["fusermount3", "-u", d.mnt], capture_output=True)
        rc = d.wait(15)
        what = f"--as={mib}M, {'loaded, ' if load else ''}ended by {end}"
        ck.ok(rc is not None, f"{what}: still running 15 s later")
        ck.ok(rc is None or rc >= 0, f"{what}: died of signal {-(rc or 0)}: {d.output()}")
        ck.ok(rc in (None, 0, 2), f"{what}: exit status {rc}: {d.output()}")
        ck.ok(mount_entry(d.mnt) is None, f"{what}: stale mount left: {d.output()}")
    finally:
        d.close(ck)
    return served


def address_space_limit(ck, src):
    if os.environ.get("ELFFS_SANITIZE", "none") != "none":
        print("note: sanitized build (ASan needs terabytes of address space): "
              "the address-space limit runs are left out")
        return
    lo, hi = 4, 512  # MiB: lo cannot serve, hi can
    if not ck.ok(limited_run(ck, src, hi, "fusermount3 -u", False),
                 f"the daemon does not even run under --as={hi}M"):
        return
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if limited_run(ck, src, mid, "fusermount3 -u", False):
            hi = mid
        else:
            lo = mid
    print(f"note: smallest address-space limit that mounts and serves: {hi} MiB")
    ck.count("floor_mib", hi)
    for step, extra in enumerate((0, 1, 2, 3, 4, 6, 8, 12)):
        limited_run(ck, src, hi + extra, "SIGTERM" if step % 4 != 3 else "fusermount3 -u", True)


def main():
    ck = Checker("inherited")
    require_fuse()
    src = fixtures_dir()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        foreground_ignored(ck, src, sig)
    background_ignored(ck, src)
    address_space_limit(ck, src)
    ck.finish()


if __name__ == "__main__":
    main()
