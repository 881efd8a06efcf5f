#!/usr/bin/python3
"""Permissions. With -o allow_other, user nobody reads through the mount
exactly what it may read in SOURCE: a 0644 binary's view is readable and
byte-equal, a 0600 one gives EACCES, a binary under a 0700 directory too;
modes are the source's read bits (files 0444/0400, directories
0555/0500); owners and times are mirrored. And a daemon that cannot open
some files leaves them out.
"""

import errno
import os
import shutil
import stat
import subprocess
import tempfile

import elf_oracle as oracle
from elffs_mount import (Checker, Mount, MountError, as_nobody, fixture, require_fuse,
                         run_mounted)


def read_all(path):
    with open(path, "rb") as f:
        return f.read()


def build_source(root):
    os.chmod(root, 0o755)
    for name, mode in (("pub", 0o644), ("priv", 0o600), ("owned", 0o640)):
        shutil.copy(fixture("exec"), os.path.join(root, name))
        os.chmod(os.path.join(root, name), mode)
    os.chown(os.path.join(root, "owned"), 1234, 1234)
    os.mkdir(os.path.join(root, "closed"), 0o700)
    shutil.copy(fixture("exec"), os.path.join(root, "closed", "inner"))
    os.chmod(os.path.join(root, "closed", "inner"), 0o644)
    os.utime(os.path.join(root, "pub"), ns=(10**18, 10**18))


def check_modes(ck, mnt):
    want = {"pub": (0o555, 0o444), "priv": (0o500, 0o400), "owned": (0o550, 0o440)}
    for name, (dmode, fmode) in want.items():
        view = os.path.join(mnt, name)
        ck.eq(oct(stat.S_IMODE(os.stat(view).st_mode)), oct(dmode), f"{name}: view dir mode")
        ck.eq(oct(stat.S_IMODE(os.stat(view + "/sections").st_mode)), oct(dmode),
              f"{name}/sections mode")
        for f in ("info", "header", "sections/.text", "segments/00-PHDR"):
            ck.eq(oct(stat.S_IMODE(os.stat(os.path.join(view, f)).st_mode)), oct(fmode),
                  f"{name}/{f}: mode")
    ck.eq(oct(stat.S_IMODE(os.stat(os.path.join(mnt, "closed")).st_mode)), oct(0o500),
          "closed/: mode")
    for f in ("owned", "owned/info", "owned/sections/.text", "owned/segments"):
        st = os.stat(os.path.join(mnt, f))
        ck.eq((st.st_uid, st.st_gid), (1234, 1234), f"{f}: owner")
    ck.eq(os.stat(os.path.join(mnt, "pub", "header")).st_mtime_ns, 10**18, "pub/header: mtime")


def check_nobody(ck, src, mnt, info):
    text = [s for s in info.sections if s.name == ".text"][0]
    with open(os.path.join(src, "pub"), "rb") as f:
        f.seek(text.off)
        want = f.read(text.size)
    ck.eq(as_nobody(lambda: read_all(os.path.join(mnt, "pub/sections/.text")) == want), 0,
          "nobody reads pub/sections/.text (0 = equal bytes)")
    # priv is a binary nobody may not read: absent for nobody (ENOENT), or
    # EACCES by its mode bits while the kernel has root's lookup of it
    denied = (errno.EACCES, errno.ENOENT)
    for path in ("priv/sections/.text", "priv/info", "closed/inner/info"):
        ck.ok(as_nobody(lambda: read_all(os.path.join(mnt, path)) is None) in denied,
              f"nobody reads {path}: not EACCES or ENOENT")
    ck.ok(as_nobody(lambda: os.listdir(os.path.join(mnt, "priv")) is None) in denied,
          "nobody lists priv/: not EACCES or ENOENT")
    ck.eq(as_nobody(lambda: os.listdir(os.path.join(mnt, "closed")) is None), errno.EACCES,
          "nobody lists closed/ (errno)")
    out = subprocess.run(["runuser", "-u", "nobody", "--", "cat",
                          os.path.join(mnt, "pub/sections/.text")], capture_output=True)
    ck.ok(out.returncode == 0 and out.stdout == want, "runuser nobody cat pub/sections/.text")
    out = subprocess.run(["runuser", "-u", "nobody", "--", "cat",
                          os.path.join(mnt, "priv/sections/.text")], capture_output=True)
    ck.ok(out.returncode != 0 and (b"Permission denied" in out.stderr or
                                   b"No such file" in out.stderr),
          f"runuser nobody cat priv/sections/.text: {out.returncode} {out.stderr!r}")
    out = subprocess.run(["runuser", "-u", "nobody", "--", "ls", os.path.join(mnt, "priv")],
                         capture_output=True)
    ck.ok(out.returncode != 0 and (b"Permission denied" in out.stderr or
                                   b"No such file" in out.stderr),
          f"runuser nobody ls priv: {out.returncode} {out.stderr!r}")
    out = subprocess.run(["runuser", "-u", "nobody", "--", "ls", mnt], capture_output=True)
    # priv and owned are binaries nobody may not read: absent for nobody,
    # as a file nobody may not read that is not ELF (access.h)
    ck.eq(set(out.stdout.decode().split()), {"pub", "closed"},
          "runuser nobody ls of the mount")
    out = subprocess.run(["ls", mnt], capture_output=True)
    ck.eq(set(out.stdout.decode().split()), {"pub", "priv", "owned", "closed"},
          "root's ls of the mount")


def check_daemon_without_dac(ck, src):
    """A daemon that cannot open some files leaves them out: it runs as
    root without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (setpriv), so a
    0000 file and another user's 0600 file are unreadable to it. (A daemon
    run as nobody cannot open this machine's 0600 /dev/fuse.)"""
    root = tempfile.mkdtemp(prefix="elffs-nodac-")
    os.chmod(root, 0o755)
    try:
        for name, mode, owner in (("pub", 0o644, 0), ("zero", 0o000, 0),
                                  ("foreign", 0o600, 1234), ("mine", 0o600, 0)):
            path = os.path.join(root, name)
            shutil.copy(fixture("exec"), path)
            os.chmod(path, mode)
            os.chown(path, owner, owner)
        drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
        with Mount(ck, root, [], prefix=drop) as m:
            ck.eq(set(os.listdir(m.path)), {"pub", "mine", ".build-id"},
                  "daemon without DAC override: listing leaves out unreadable files")
            for gone in ("zero", "foreign"):
                ck.ok(not os.path.lexists(os.path.join(m.path, gone)),
                      f"daemon without DAC override: {gone} can be looked up")
            ck.ok(os.path.isfile(os.path.join(m.path, "pub", "sections", ".text")),
                  "daemon without DAC override: pub/sections/.text missing")
    except MountError as e:
        ck.fail(str(e))
    finally:
        shutil.rmtree(root)


def main():
    require_fuse()
    ck = Checker("perms")
    src = tempfile.mkdtemp(prefix="elffs-perms-")
    try:
        build_source(src)
        info = oracle.readelf([os.path.join(src, "pub")])[os.path.join(src, "pub")]

        def body(m):
            check_modes(ck, m.path)
            check_nobody(ck, src, m.path, info)

        run_mounted(ck, src, ["-o", "allow_other"], body)
        check_daemon_without_dac(ck, src)
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
