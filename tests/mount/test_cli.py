#!/usr/bin/python3
"""The daemon's own command line: -h/--help and -V/--version exit 0 and
print a usage naming SOURCE, MOUNTPOINT and elffs's own options, and the
project version. Every kind of failure has its exit status (docs/elffs.1,
EXIT STATUS): 1 usage error, 66 SOURCE unusable, 32 failed mount, and none
of them leaves a mount behind. A regular file as MOUNTPOINT is a failed
mount (not a root answering EIO). The mount(8) helper
convention (argv[0] mount.fuse.elffs) is checked too.
(mount -t fuse.elffs of an installed tree: test_install.py.) Only the
kernel-refused mount needs FUSE; without it that check is left out (a
failure under ELFFS_REQUIRE_FUSE=1).
"""

import os
import shutil
import subprocess
import tempfile

from elffs_mount import (Checker, elffs_path, fixture, force_unmount, mode_args, mount_entry,
                         require_env, wait_for)

USAGE, SOURCE, MOUNT = 1, 66, 32


def run(args, argv0=None, prefix=(), timeout=10):
    """elffs ARGS (as argv0 when given, the way mount(8) runs a helper)."""
    daemon = elffs_path()
    cmd = list(prefix) + [argv0 or daemon] + args
    try:
        out = subprocess.run(cmd, executable=daemon if argv0 else None, capture_output=True,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:  # killed: a daemon that mounted and served
        return None, f"still running after {timeout} s: {e.stderr!r}"
    return out.returncode, out.stdout + out.stderr


def fuse_usable():
    try:
        os.close(os.open("/dev/fuse", os.O_RDWR))
    except OSError:
        return False
    return shutil.which("fusermount3") is not None


def help_and_version(ck):
    version = require_env("ELFFS_VERSION")
    for flag in ("-h", "--help"):
        rc, text = run([flag])
        ck.eq(rc, 0, f"elffs {flag}: exit status")
        low = text.lower()
        ck.ok("usage" in low and "source" in low and "mountpoint" in low,
              f"elffs {flag}: no usage line with SOURCE and MOUNTPOINT:\n{text}")
        for opt in ("nommap", "timeout", "-f", "-o"):
            ck.ok(opt in text, f"elffs {flag}: does not mention {opt}")
    for flag in ("-V", "--version"):
        rc, text = run([flag])
        ck.eq(rc, 0, f"elffs {flag}: exit status")
        ck.ok(f"elffs {version}" in text, f"elffs {flag}: no 'elffs {version}':\n{text}")


def expect(ck, args, status, what, mnt, word=None, **kw):
    """elffs ARGS exits with status, says something (word, if given) on
    stderr and leaves no mount at mnt."""
    rc, text = run(args, **kw)
    ok = ck.eq(rc, status, f"{what}: exit status ({text.strip()[-300:]!r})")
    ck.ok(text.strip(), f"{what}: exit {rc} without a message")
    if ok and word:
        ck.ok(word.lower() in text.lower(), f"{what}: message does not say {word!r}: {text!r}")
    if mount_entry(mnt) is not None:
        ck.fail(f"{what}: left a mount at {mnt}")
        force_unmount(mnt)


def usage_errors(ck, src, mnt):
    cases = [
        ([], "no arguments", "usage"),
        ([src], "no MOUNTPOINT", "MOUNTPOINT"),
        ([src, mnt, "extra"], "three arguments", "extra"),
        (["--no-such-option", src, mnt], "unknown option", "no-such-option"),
        (["-o", "no_such_option", src, mnt], "unknown -o option", "no_such_option"),
        (["-o", "timeout=soon", src, mnt], "bad timeout value", "timeout"),
        (["-o", "readahead=2", src, mnt], "bad readahead value", "readahead"),
        # digits only, wherever the space is (' 16' was taken, '16 ' refused)
        (["-o", "memory= 16", src, mnt], "memory with a leading space", "memory"),
        (["-o", "memory=16 ", src, mnt], "memory with a trailing space", "memory"),
        (["-o", "timeout= 1", src, mnt], "timeout with a leading space", "timeout"),
        (["-o", "max_read= 8192", src, mnt], "max_read with a leading space", "max_read"),
        (["-o", "iosize= 8192", src, mnt], "iosize with a leading space", "iosize"),
        (["-o", "timeout=31536001", src, mnt], "timeout over its bound", "31536000"),
        # libfuse mounted these without a word
        (["-o", "max_threads=0", src, mnt], "max_threads=0", "max_threads"),
        (["-o", "max_threads=-1", src, mnt], "max_threads=-1", "max_threads"),
        ([src, mnt, "-o"], "-o without a value", None),
    ]
    for args, what, word in cases:
        expect(ck, args, USAGE, f"usage error, {what}", mnt, word)


def source_errors(ck, tmp, mnt):
    text_file = os.path.join(tmp, "notes.txt")
    with open(text_file, "w") as f:
        f.write("not an ELF file\n")
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    cases = [
        (os.path.join(tmp, "missing"), "missing SOURCE", "No such file"),
        (text_file, "SOURCE a text file", "ELF"),
        (fifo, "SOURCE a FIFO", "neither"),
        ("/dev/null", "SOURCE a device", "neither"),
    ]
    for src, what, word in cases:
        expect(ck, [src, mnt], SOURCE, what, mnt, word)
    unreadable(ck, tmp, mnt)


def unreadable(ck, tmp, mnt):
    """SOURCE that the caller cannot read: a copy of an ELF file with mode
    000 (root reads anything: run as nobody then; the check fails before
    any mount is tried, so no privilege is needed)."""
    copy = os.path.join(tmp, "locked")
    shutil.copyfile(fixture("exec"), copy)
    os.chmod(copy, 0)
    closed = os.path.join(tmp, "closed")
    os.mkdir(closed, 0o700)
    prefix = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if not setpriv:
            ck.fail("setpriv (util-linux) not found: cannot run as another user")
            return
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        os.chmod(tmp, 0o755)  # nobody may reach the files, not read them
        os.chmod(mnt, 0o777)
    expect(ck, [copy, mnt], SOURCE, "SOURCE an unreadable ELF file", mnt, prefix=prefix)
    expect(ck, [os.path.join(closed, "x"), mnt], SOURCE, "SOURCE under a closed directory",
           mnt, "Permission denied", prefix=prefix)


def mount_errors(ck, src, tmp, mnt):
    regular = os.path.join(tmp, "regular-file")
    with open(regular, "w") as f:
        f.write("a mount point that is not a directory\n")
    expect(ck, [src, os.path.join(tmp, "no-such-dir")], MOUNT, "missing MOUNTPOINT", mnt,
           "No such file")
    for args in ([src, regular], ["-f", src, regular]):
        expect(ck, args, MOUNT, f"MOUNTPOINT a regular file ({' '.join(args[:-2]) or 'daemon'})",
               regular, "not a directory")
    with open(regular) as f:
        ck.ok(f.read().startswith("a mount point"), "the regular-file mount point changed")
    if not fuse_usable():
        if os.environ.get("ELFFS_REQUIRE_FUSE") == "1":
            ck.fail("no usable /dev/fuse and ELFFS_REQUIRE_FUSE=1")
        else:
            print("note: no usable /dev/fuse: the kernel-refused mount is not tried")
        return
    # The kernel refuses blksize= for a FUSE (not fuseblk) mount: libfuse's
    # mount fails after every check of elffs passed.
    expect(ck, ["-f", "-o", "blksize=4096", src, mnt], MOUNT, "mount refused by the kernel", mnt,
           "mount failed")
    stacked_and_shared(ck, src, mnt)


def stacked_and_shared(ck, src, mnt):
    """A second daemon on a mount point elffs already serves is refused (rather
    than stacked on the first without a word); allow_root beside
    allow_other is what libfuse applies (root and the owner only), so the
    build-id index is not turned off for other users and the log says
    nothing of allow_other."""
    rc, text = run(mode_args() + ["-o", "allow_other,allow_root", src, mnt])
    if not ck.eq(rc, 0, f"mount with allow_other,allow_root ({text.strip()[-300:]!r})"):
        return
    try:
        ck.ok("build-id index off" not in text, f"allow_root: the log says the index is off: "
              f"{text!r}")
        ck.ok(os.path.isdir(os.path.join(mnt, ".build-id")), "allow_root: no .build-id")
        expect_left = mount_entry(mnt)
        rc, text = run([src, mnt])
        ck.eq(rc, MOUNT, f"a second daemon on {mnt}: exit status ({text.strip()[-300:]!r})")
        ck.ok("already an elffs mount" in text, f"a second daemon: no message ({text!r})")
        ck.eq(mount_entry(mnt), expect_left, "a second daemon changed the mount")
        with open("/proc/self/mountinfo") as f:
            ck.eq(sum(1 for line in f if f" {mnt} " in line), 1, f"mounts at {mnt}")
    finally:
        force_unmount(mnt)


def helper_convention(ck, src, tmp, mnt):
    """Under the name mount.fuse.elffs, elffs takes mount(8)'s helper
    arguments: SOURCE MOUNTPOINT -o OPTS -t TYPE, with the same statuses."""
    for name in ("mount.fuse.elffs", "mount.elffs"):
        expect(ck, [os.path.join(tmp, "missing"), mnt, "-o", "rw", "-t", "fuse.elffs"], SOURCE,
               f"{name}: missing SOURCE", mnt, argv0=name)
        regular = os.path.join(tmp, "regular-file")
        expect(ck, [src, regular, "-o", "rw", "-t", "fuse.elffs"], MOUNT,
               f"{name}: MOUNTPOINT a regular file", regular, argv0=name)
        expect(ck, [src, mnt, "-o", "rw,no_such_option"], USAGE, f"{name}: unknown option", mnt,
               argv0=name)
    rc, text = run(["-V"], argv0="mount.fuse.elffs")
    ck.eq(rc, 0, f"mount.fuse.elffs -V: exit status ({text!r})")


def main():
    ck = Checker("cli")
    help_and_version(ck)
    tmp = tempfile.mkdtemp(prefix="elffs-cli-")
    try:
        src = os.path.join(tmp, "src")
        os.mkdir(src)
        shutil.copyfile(fixture("exec"), os.path.join(src, "exec"))
        mnt = os.path.join(tmp, "mnt")
        os.mkdir(mnt)
        usage_errors(ck, src, mnt)
        source_errors(ck, tmp, mnt)
        mount_errors(ck, src, tmp, mnt)
        helper_convention(ck, src, tmp, mnt)
        ck.ok(wait_for(lambda: mount_entry(mnt) is None, 2), f"a mount is left at {mnt}")
    finally:
        for name in ("mnt", "regular-file"):
            force_unmount(os.path.join(tmp, name))
        shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
