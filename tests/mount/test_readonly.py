#!/usr/bin/python3
"""The mount is read-only: every open for writing and every change
(create, mkdir, mknod, rename, unlink, rmdir, chmod, chown, utime,
truncate, symlink, link, setxattr, removexattr) fails with exactly EROFS,
on every kind of node; the source is left untouched; /proc/self/mountinfo
shows `ro` and `default_permissions`.
"""

import errno
import hashlib
import os
import shutil
import tempfile

from elffs_mount import Checker, fixture, mount_entry, require_fuse, run_mounted


def snapshot(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(d, name)
            st = os.lstat(path)
            digest = ""
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            out[os.path.relpath(path, root)] = (st.st_mode, st.st_uid, st.st_mtime_ns,
                                                st.st_size, digest)
    return out


def write_opens(ck, path):
    for flags, what in ((os.O_WRONLY, "O_WRONLY"), (os.O_RDWR, "O_RDWR"),
                        (os.O_RDONLY | os.O_TRUNC, "O_RDONLY|O_TRUNC"),
                        (os.O_WRONLY | os.O_APPEND, "O_WRONLY|O_APPEND"),
                        (os.O_WRONLY | os.O_TRUNC, "O_WRONLY|O_TRUNC")):
        ck.errno_is(errno.EROFS, f"open({path}, {what})", os.open, path, flags)


def changes(ck, node, parent):
    """Every change applied to an existing node and to its parent dir."""
    e = errno.EROFS
    ck.errno_is(e, f"create in {parent}", os.open, os.path.join(parent, "new"),
                os.O_CREAT | os.O_WRONLY, 0o644)
    ck.errno_is(e, f"O_CREAT|O_EXCL rdonly in {parent}", os.open,
                os.path.join(parent, "new2"), os.O_CREAT | os.O_EXCL | os.O_RDONLY, 0o644)
    ck.errno_is(e, f"mkdir in {parent}", os.mkdir, os.path.join(parent, "newdir"))
    ck.errno_is(e, f"mkfifo in {parent}", os.mkfifo, os.path.join(parent, "newfifo"))
    ck.errno_is(e, f"symlink in {parent}", os.symlink, "x", os.path.join(parent, "newlink"))
    ck.errno_is(e, f"rename {node}", os.rename, node, node + ".renamed")
    ck.errno_is(e, f"rename {node} over itself-ish", os.rename, node, os.path.join(parent, "x"))
    ck.errno_is(e, f"chmod {node}", os.chmod, node, 0o777)
    ck.errno_is(e, f"chown {node}", os.chown, node, 1, 1, follow_symlinks=False)
    ck.errno_is(e, f"utime {node}", os.utime, node, (1, 1), follow_symlinks=False)
    ck.errno_is(e, f"setxattr {node}", os.setxattr, node, "user.x", b"1",
                follow_symlinks=False)
    ck.errno_is(e, f"removexattr {node}", os.removexattr, node, "user.elf.index",
                follow_symlinks=False)
    if os.path.isdir(node) and not os.path.islink(node):
        ck.errno_is(e, f"rmdir {node}", os.rmdir, node)
    else:
        ck.errno_is(e, f"unlink {node}", os.unlink, node)
        ck.errno_is(e, f"link {node}", os.link, node, os.path.join(parent, "hardlink"),
                    follow_symlinks=False)
    if os.path.isfile(node) and not os.path.islink(node):
        ck.errno_is(e, f"truncate {node}", os.truncate, node, 0)
        write_opens(ck, node)


def check_mount_options(ck, mnt):
    fields = mount_entry(mnt)
    if not ck.ok(fields is not None, "mount not in mountinfo"):
        return
    sep = fields.index("-")
    ck.ok("ro" in fields[5].split(","), f"mount options {fields[5]} lack ro")
    ck.ok(fields[sep + 1].startswith("fuse"), f"fs type {fields[sep + 1]}")
    ck.ok("default_permissions" in fields[sep + 3].split(","),
          f"super options {fields[sep + 3]} lack default_permissions")


def main():
    require_fuse()
    ck = Checker("readonly")
    src = tempfile.mkdtemp(prefix="elffs-ro-")
    try:
        os.mkdir(os.path.join(src, "sub"))
        shutil.copy(fixture("exec"), os.path.join(src, "sub", "exec"))
        os.symlink("sub/exec", os.path.join(src, "link"))
        before = snapshot(src)

        def body(m):
            check_mount_options(ck, m.path)
            b = os.path.join(m.path, "sub", "exec")
            nodes = [(os.path.join(m.path, "sub"), m.path),
                     (os.path.join(m.path, "link"), m.path),
                     (b, os.path.join(m.path, "sub")),
                     (os.path.join(b, "info"), b), (os.path.join(b, "header"), b),
                     (os.path.join(b, "sections"), b),
                     (os.path.join(b, "sections", ".text"), os.path.join(b, "sections")),
                     (os.path.join(b, "segments", "00-PHDR"), os.path.join(b, "segments"))]
            for node, parent in nodes:
                ck.ok(os.path.lexists(node), f"{node} missing")
                changes(ck, node, parent)
            ck.errno_is(errno.EROFS, "mkdir in the mount root", os.mkdir,
                        os.path.join(m.path, "x"))
            ck.ok(m.alive(), "daemon died")

        run_mounted(ck, src, [], body)
        ck.eq(snapshot(src), before, "source tree changed")
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
