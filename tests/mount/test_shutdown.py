#!/usr/bin/python3
"""Clean shutdown: SIGTERM and SIGINT to a foreground daemon and
`fusermount3 -u` end it with status 0 and leave no entry in /proc/mounts;
without -f the command returns only once the mount is live (the view is
there right away) and the background daemon, found by its command line,
ends on SIGTERM without leaving a mount. -s, -d and -o auto_unmount
work. Bad command lines fail without mounting.
"""

import os
import re
import signal
import subprocess
import tempfile
import time

from elffs_mount import (Checker, Mount, MountError, elffs_path, fixture, force_unmount, mode_args,
                         in_proc_mounts, mount_entry, require_fuse, wait_for)


def foreground_signal(ck, src, sig):
    try:
        m = Mount(ck, src, check_exit=False).start()
    except MountError as e:
        ck.fail(str(e))
        return
    try:
        ck.ok(os.path.isdir(os.path.join(m.path, "exec")), "view not there before the signal")
        m.proc.send_signal(sig)
        try:
            rc = m.proc.wait(timeout=10)
            ck.eq(rc, 0, f"exit status after {sig.name}")
        except subprocess.TimeoutExpired:
            ck.fail(f"daemon still running 10 s after {sig.name}")
        ck.ok(not in_proc_mounts(m.path), f"mount left in /proc/mounts after {sig.name}")
    finally:
        m.stop(record=False)


def foreground_fusermount(ck, src):
    try:
        m = Mount(ck, src).start()
    except MountError as e:
        ck.fail(str(e))
        return
    rc = m.stop()  # fusermount3 -u; records a non-zero status or a leftover mount
    ck.eq(rc, 0, "exit status after fusermount3 -u")
    ck.ok(not in_proc_mounts(m.path), "mount left in /proc/mounts after fusermount3 -u")


def daemon_pids(mnt):
    """Pids of elffs processes whose command line ends with mnt."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")[:-1]
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == b"elffs" and os.fsencode(mnt) in argv:
            pids.append(int(entry))
    return pids


def cmdline_matches(pattern):
    """What `pgrep -f PATTERN` prints, without procps (not on a minimal
    Debian): pids of processes but this one whose whole command line, the
    arguments joined by spaces, matches the regular expression."""
    regex = re.compile(os.fsencode(pattern))
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().rstrip(b"\0").replace(b"\0", b" ")
        except OSError:
            continue
        if regex.search(cmdline):
            pids.append(int(entry))
    return sorted(pids)


def background(ck, src, end):
    mnt = tempfile.mkdtemp(prefix="elffs-mnt-")
    try:
        out = subprocess.run([elffs_path()] + mode_args() + [src, mnt], capture_output=True,
                             timeout=30)
        ck.eq(out.returncode, 0, f"elffs without -f: exit status ({out.stderr[-300:]!r})")
        ck.ok(mount_entry(mnt) is not None, "elffs without -f returned before the mount")
        try:
            ck.ok("exec" in os.listdir(mnt), "view not there when elffs without -f returned")
        except OSError as e:
            ck.fail(f"listing the mount right after elffs returned: {e.strerror}")
        pids = daemon_pids(mnt)
        ck.eq(len(pids), 1, "background daemons found in /proc")
        ck.eq(cmdline_matches(f"elffs .*{re.escape(mnt)}"), pids,
              "its command line (as pgrep -f reads it) finds the same daemon")
        if end == "SIGTERM":
            for pid in pids:
                os.kill(pid, signal.SIGTERM)
        else:
            subprocess.run(["fusermount3", "-u", mnt])
        gone = wait_for(lambda: not daemon_pids(mnt), 10)
        ck.ok(gone, f"background daemon still running 10 s after {end}")
        ck.ok(not in_proc_mounts(mnt), f"mount left in /proc/mounts after {end} (background)")
        for pid in daemon_pids(mnt):
            os.kill(pid, signal.SIGKILL)
    except subprocess.TimeoutExpired:
        ck.fail("elffs without -f did not return within 30 s")
    finally:
        force_unmount(mnt)
        time.sleep(0.1)
        for pid in daemon_pids(mnt):
            os.kill(pid, signal.SIGKILL)
        os.rmdir(mnt)


def bad_command_lines(ck, src):
    mnt = tempfile.mkdtemp(prefix="elffs-mnt-")
    try:
        cases = [([src + "/does-not-exist", mnt], "missing SOURCE"),
                 ([src, mnt + "/does-not-exist"], "missing MOUNTPOINT"),
                 ([src], "no MOUNTPOINT"),
                 (["-f", "-o", "nosuchoption=1", src, mnt], "unknown option")]
        for args, what in cases:
            try:
                out = subprocess.run([elffs_path()] + args, capture_output=True, timeout=20)
                ck.ok(out.returncode != 0, f"{what}: exit status 0")
                ck.ok(out.stderr.strip(), f"{what}: no message on stderr")
            except subprocess.TimeoutExpired:
                ck.fail(f"{what}: elffs did not return within 20 s")
            ck.ok(mount_entry(mnt) is None, f"{what}: mounted anyway")
            force_unmount(mnt)
    finally:
        os.rmdir(mnt)


def other_options(ck, src):
    """-s (single-threaded), -d (debug) and a standard FUSE option serve the
    same bytes and end cleanly on fusermount3 -u."""
    with open(os.path.join(src, "exec"), "rb") as f:
        head = f.read(64)
    for args in (["-s"], ["-d"], ["-o", "auto_unmount"], ["-s", "-o", "nommap"]):
        try:
            with Mount(ck, src, args) as m:
                with open(os.path.join(m.path, "exec", "header"), "rb") as f:
                    ck.eq(f.read(), head, f"{args}: exec/header")
                ck.ok(len(os.listdir(os.path.join(m.path, "exec", "sections"))) > 20,
                      f"{args}: exec/sections listing")
        except MountError as e:
            ck.fail(str(e))


def main():
    require_fuse()
    ck = Checker("shutdown")
    src = os.path.dirname(fixture("exec"))
    foreground_signal(ck, src, signal.SIGTERM)
    foreground_signal(ck, src, signal.SIGINT)
    foreground_fusermount(ck, src)
    background(ck, src, "SIGTERM")
    background(ck, src, "fusermount3 -u")
    other_options(ck, src)
    bad_command_lines(ck, src)
    ck.finish()


if __name__ == "__main__":
    main()
