#!/usr/bin/python3
"""Hostile trees: what SOURCE itself can do to the
daemon, as opposed to what the files in it can (test_hostile.py).

own   The daemon never serves its own mount. Bind mounts of the mount
      point inside SOURCE (`mount --bind MNT SRC/loop`), over a directory
      the daemon has already shown (SRC/known), and of a file of the mount
      over a binary of SOURCE (`mount --bind MNT/exec/header SRC/victim`),
      and the mount point itself inside SOURCE: such entries are left out
      (ENOENT, never listed), `os.walk` over the whole mount ends, and a
      file system mounted below SOURCE (a tmpfs at SRC/nested) stays
      visible and readable. With and without -s (single-threaded: one
      lookup of the loop would hang the mount for good). Every step runs
      under a watchdog that aborts the FUSE connection after HANG_LIMIT s,
      so a hang fails the test instead of hanging it.
ident The check that turns bytes cut off inside the last mapped page into
      EIO goes by the open file's identity, not its path: a binary
      renamed, moved to another directory, or that lost one of its two
      hard links, then truncated to cut the last bytes of a section
      (within that section's last page), gives EIO to a reader that opened
      the section before, never those bytes as zeros; the same for a
      binary deleted and then cut through a descriptor opened before, and
      for a binary deeper than PATH_MAX below SOURCE, which is also
      listed, opened and read correctly. Both backends.
fds   Under a descriptor limit of 32 (prlimit --nofile=32 on the daemon),
      a directory of 500 binaries lists all 500, and every one of them is
      read correctly by 4 readers, with 100 files held open meanwhile, and
      again once they are closed: no EMFILE, no ENOENT, no EIO. Both
      backends (-o nommap keeps a descriptor per cached handle).

usage: test_hostile_tree.py [own|ident|fds ...]   (default: all three)
"""

import errno
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import elf_oracle as oracle
from elffs_mount import Watchdog as SharedWatchdog
from elffs_mount import Checker, Mount, MountError, copy_fixture, fixture, require_fuse

HANG_LIMIT = 20.0  # seconds a step may take before the connection is aborted
PAGE = os.sysconf("SC_PAGE_SIZE")
CUT = 8  # bytes cut off the end of a section
DEEP_NAME = 200  # bytes per directory name of the deep chain
DEEP_LEVELS = 24  # 24 * 201 bytes: deeper than PATH_MAX (4096)
NBINS = 500
NOFILE = 32
HELD = 100


def errname(e):
    return errno.errorcode.get(e, str(e))


def Watchdog(ck, conn, what, limit=HANG_LIMIT):  # noqa: N802 (a class before)
    return SharedWatchdog(ck, conn, what, limit)


def run(ck, cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    ck.ok(out.returncode == 0, f"{' '.join(cmd)}: status {out.returncode} {out.stderr.strip()}")
    return out.returncode == 0


def read_all(path):
    with open(path, "rb") as f:
        return f.read()


def stat_errno(path):
    try:
        os.lstat(path)
        return 0
    except OSError as e:
        return e.errno


# ----------------------------------------------------------------- own mount


def make_own_tree(src):
    os.makedirs(os.path.join(src, "sub"))
    os.makedirs(os.path.join(src, "loop"))
    os.makedirs(os.path.join(src, "known"))
    os.makedirs(os.path.join(src, "nested"))
    os.makedirs(os.path.join(src, "inner"))  # the mount point itself, in one round
    copy_fixture("exec", os.path.join(src, "exec"))
    copy_fixture("pie", os.path.join(src, "sub", "pie"))
    copy_fixture("exec", os.path.join(src, "known", "exec"))
    copy_fixture("pie", os.path.join(src, "victim"))


def walk_names(ck, mnt):
    """Every path below mnt, relative; errors of the walk are failures."""
    seen = []

    def onerror(e):
        ck.fail(f"walk of the mount: {e}")

    for top, dirs, files in os.walk(mnt, onerror=onerror):
        rel = os.path.relpath(top, mnt)
        seen.extend(os.path.normpath(os.path.join(rel, n)) for n in dirs + files)
    return seen


def check_own_view(ck, mnt, tag, hidden):
    names = set(os.listdir(mnt))
    for name in ("exec", "sub", "nested"):
        ck.ok(name in names, f"{tag}: {name} missing from the listing of the mount: {sorted(names)}")
    for name in hidden:
        ck.ok(name not in names, f"{tag}: {name} (the daemon's own mount) listed")
        err = stat_errno(os.path.join(mnt, name))
        ck.ok(err == errno.ENOENT, f"{tag}: lstat of {name}: {errname(err)}, want ENOENT")
    err = stat_errno(os.path.join(mnt, "known", "exec", "info"))
    ck.ok(err == errno.ENOENT, f"{tag}: lstat of known/exec/info: {errname(err)}, want ENOENT")
    paths = walk_names(ck, mnt)
    bad = [p for p in paths if p.split("/")[0] in hidden]
    ck.ok(not bad, f"{tag}: the walk went into the daemon's own mount: {bad[:5]}")
    ck.ok("nested/exec/sections/.text" in paths,
          f"{tag}: the tmpfs mounted at SRC/nested is not shown ({len(paths)} paths)")
    ck.ok("sub/pie/sections/.text" in paths, f"{tag}: sub/pie/sections/.text not walked")
    ck.count("walked", len(paths))
    want = read_all(fixture("exec"))
    ck.eq(read_all(os.path.join(mnt, "nested", "exec", "header")), want[:64],
          f"{tag}: header of the binary on the nested tmpfs")
    info = oracle.readelf([fixture("exec")])[fixture("exec")]
    text = next(s for s in info.sections if s.name == ".text")
    ck.eq(read_all(os.path.join(mnt, "exec", "sections", ".text")),
          want[text.off:text.off + text.size], f"{tag}: exec/sections/.text")


def own_round(ck, args, inner):
    tag = f"own {' '.join(args) or 'multi-threaded'}{' inner' if inner else ''}"
    tmp = tempfile.mkdtemp(prefix="elffs-own-")
    src = os.path.join(tmp, "src")
    make_own_tree(src)
    mounts = []
    mountpoint = os.path.join(src, "inner") if inner else None
    try:
        with Mount(ck, src, args + ["-o", "timeout=0.2"], mountpoint=mountpoint) as m:
            mnt = m.path
            conn = os.minor(os.stat(mnt).st_dev)
            with Watchdog(ck, conn, f"{tag}: before the binds"):
                os.listdir(os.path.join(mnt, "known"))  # nodes the binds then cover
                os.lstat(os.path.join(mnt, "known", "exec", "info"))
            for what, target in ((["-t", "tmpfs", "tmpfs"], "nested"),
                                 (["--bind", mnt], "loop"),
                                 (["--bind", mnt], "known"),
                                 (["--bind", os.path.join(mnt, "exec", "header")], "victim")):
                with Watchdog(ck, conn, f"{tag}: mount {what} {target}"):
                    if run(ck, ["mount"] + what + [os.path.join(src, target)]):
                        mounts.append(os.path.join(src, target))
            copy_fixture("exec", os.path.join(src, "nested", "exec"))
            time.sleep(0.5)  # past the cache timeout: the kernel asks again
            hidden = ["loop", "known", "victim"] + (["inner"] if inner else [])
            with Watchdog(ck, conn, f"{tag}: the view") as w:
                try:
                    check_own_view(ck, mnt, tag, hidden)
                except OSError as e:
                    ck.fail(f"{tag}: {e}")
            if not w.fired:
                ck.ok(m.alive(), f"{tag}: daemon died")
            for target in reversed(mounts):
                subprocess.run(["umount", "-l", target], capture_output=True)
            mounts = []
    except MountError as e:
        ck.fail(f"{tag}: {e}")
    finally:
        for target in reversed(mounts):
            subprocess.run(["umount", "-l", target], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def own_mount(ck):
    for args in ([], ["-s"]):
        own_round(ck, args, False)
    own_round(ck, ["-s"], True)


# ------------------------------------------------------ identity of the file


def last_section(path):
    """The section whose bytes end last in the file, with its last CUT
    bytes inside the page that holds its end."""
    info = oracle.readelf([path])[path]
    best = None
    for s in info.sections:
        end = s.off + s.size
        if s.type == "NOBITS" or s.size <= CUT or (end - 1) % PAGE < CUT - 1:
            continue
        if best is None or end > best.off + best.size:
            best = s
    return best


def deep_dirs(root_fd, create):
    """Descriptors of the chain of DEEP_LEVELS directories below root_fd."""
    fds = [root_fd]
    try:
        for i in range(DEEP_LEVELS):
            name = f"{i:02d}" + "d" * (DEEP_NAME - 2)
            if create:
                os.mkdir(name, dir_fd=fds[-1])
            fds.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    except OSError:
        for fd in fds:
            os.close(fd)
        raise
    return fds


def read_to_end(fd, size):
    """(bytes read, errno or 0): reads until size bytes, EOF or an error."""
    data = b""
    while len(data) < size:
        try:
            chunk = os.pread(fd, size - len(data), len(data))
        except OSError as e:
            return data, e.errno
        if not chunk:
            break
        data += chunk
    return data, 0


class IdentCase:
    """One binary of the identity round: where it is in SOURCE, how the
    test gets at its view and what happens to it before the truncation."""

    def __init__(self, name, change):
        self.name, self.change = name, change


def ident_tree(src, sec_name):
    for d in ("a", "b"):
        os.makedirs(os.path.join(src, d))
    for name in ("inplace", "a/renamed", "a/moved", "hl1", "deleted"):
        copy_fixture("exec", os.path.join(src, name))
    os.link(os.path.join(src, "hl1"), os.path.join(src, "hl2"))
    root = os.open(src, os.O_RDONLY | os.O_DIRECTORY)
    fds = deep_dirs(root, True)
    try:
        with open(fixture("exec"), "rb") as f:
            data = f.read()
        fd = os.open("prog", os.O_WRONLY | os.O_CREAT, 0o755, dir_fd=fds[-1])
        os.write(fd, data)
        os.close(fd)
    finally:
        for fd in fds:
            os.close(fd)


def open_in_view(mnt, case, rel):
    """Descriptor of rel (inside the binary's view) of case, through the mount."""
    if case.name != "deep":
        return os.open(os.path.join(mnt, case.name, rel), os.O_RDONLY)
    root = os.open(mnt, os.O_RDONLY | os.O_DIRECTORY)
    fds = deep_dirs(root, False)
    try:
        return os.open(os.path.join("prog", rel), os.O_RDONLY, dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


def truncate_source(src, case, size):
    """Apply the case's change, then truncate the binary (where it is now)."""
    if case.name == "deep":
        root = os.open(src, os.O_RDONLY | os.O_DIRECTORY)
        fds = deep_dirs(root, False)
        try:
            fd = os.open("prog", os.O_WRONLY, dir_fd=fds[-1])
            os.ftruncate(fd, size)
            os.close(fd)
        finally:
            for fd in fds:
                os.close(fd)
        return
    path = os.path.join(src, case.name)
    if case.change == "rename":
        os.rename(path, path + ".new")
        path += ".new"
    elif case.change == "move":
        os.rename(path, os.path.join(src, "b", "moved"))
        path = os.path.join(src, "b", "moved")
    elif case.change == "unlink":
        os.unlink(path)
        path = os.path.join(src, "hl2")
    elif case.change == "delete":  # cut through a descriptor opened before
        fd = os.open(path, os.O_WRONLY)
        os.unlink(path)
        os.ftruncate(fd, size)
        os.close(fd)
        return
    os.truncate(path, size)


def ident_case(ck, src, mnt, case, sec, tag):
    want = read_all(fixture("exec"))
    try:
        hfd = open_in_view(mnt, case, "header")
        got = os.pread(hfd, 4096, 0)
        os.close(hfd)
        ck.eq(got, want[:64], f"{tag} {case.name}: header through the mount")
        fd = open_in_view(mnt, case, os.path.join("sections", sec.name))
    except OSError as e:
        ck.fail(f"{tag} {case.name}: open through the mount: {e}")
        return
    try:
        truncate_source(src, case, sec.off + sec.size - CUT)
        data, err = read_to_end(fd, sec.size)
    finally:
        os.close(fd)
    if not err:
        cut = data[sec.size - CUT:]
        ck.fail(f"{tag} {case.name} ({case.change}): {len(data)} of {sec.size} bytes read after "
                f"the last {CUT} were cut off the file (they read {cut!r}), want EIO")
        return
    ck.ok(err == errno.EIO, f"{tag} {case.name}: read after the cut: {errname(err)}, want EIO")
    ck.ok(data == want[sec.off:sec.off + len(data)],
          f"{tag} {case.name}: the bytes read before the error differ from the source's")
    ck.count("ident_cases")


def ident_round(ck, args):
    tag = f"ident {' '.join(args) or 'mmap'}"
    sec = last_section(fixture("exec"))
    if sec is None:
        ck.fail("fixture exec: no section ends inside a page (test setup)")
        return
    tmp = tempfile.mkdtemp(prefix="elffs-ident-")
    src = os.path.join(tmp, "src")
    os.makedirs(src)
    ident_tree(src, sec.name)
    cases = [IdentCase("inplace", "none"), IdentCase("a/renamed", "rename"),
             IdentCase("a/moved", "move"), IdentCase("hl1", "unlink"),
             IdentCase("deleted", "delete"), IdentCase("deep", "none")]
    try:
        with Mount(ck, src, args) as m:
            conn = os.minor(os.stat(m.path).st_dev)
            with Watchdog(ck, conn, tag):
                for case in cases:
                    ident_case(ck, src, m.path, case, sec, tag)
            ck.ok(m.alive(), f"{tag}: daemon died")
    except MountError as e:
        ck.fail(f"{tag}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def identity(ck):
    for args in ([], ["-o", "nommap"]):
        ident_round(ck, args)


# ---------------------------------------------------------------- descriptors


def read_header(mnt, name, want, errors):
    try:
        with open(os.path.join(mnt, "bin", name, "header"), "rb") as f:
            got = f.read()
    except OSError as e:
        errors.append(f"{name}: {errname(e.errno)}")
        return
    if got != want:
        errors.append(f"{name}: wrong bytes {got[:8]!r}")


def read_all_headers(ck, mnt, names, want, tag):
    errors = []
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda n: read_header(mnt, n, want, errors), names))
    ck.ok(not errors, f"{tag}: {len(errors)} of {len(names)} binaries unreadable: {errors[:4]}")
    ck.count("headers_read", len(names) - len(errors))


def hold_open(ck, mnt, names, tag):
    fds, errors = [], []
    try:
        for name in names:
            try:
                fds.append(os.open(os.path.join(mnt, "bin", name, "sections", ".text"),
                                   os.O_RDONLY))
            except OSError as e:
                errors.append(f"{name}: {errname(e.errno)}")
        for fd in fds:
            try:
                os.pread(fd, 4096, 0)
            except OSError as e:
                errors.append(f"read: {errname(e.errno)}")
        ck.ok(not errors, f"{tag}: with {len(fds)} files held open: {errors[:4]}")
    finally:
        for fd in fds:
            os.close(fd)



def fds_round(ck, args, src, names, want):
    tag = f"fds {' '.join(args) or 'mmap'}"
    try:
        with Mount(ck, src, args, prefix=["prlimit", f"--nofile={NOFILE}", "--"]) as m:
            conn = os.minor(os.stat(m.path).st_dev)
            with Watchdog(ck, conn, tag, limit=120):
                listed = os.listdir(os.path.join(m.path, "bin"))
                ck.eq(len(listed), len(names), f"{tag}: binaries listed")
                read_all_headers(ck, m.path, names, want, f"{tag} first pass")
                listed = os.listdir(os.path.join(m.path, "bin"))
                ck.eq(len(listed), len(names), f"{tag}: binaries listed after the first pass")
                t = threading.Thread(target=hold_open, args=(ck, m.path, names[:HELD], tag))
                t.start()
                read_all_headers(ck, m.path, names[HELD:], want, f"{tag} while files are held")
                t.join()
                read_all_headers(ck, m.path, names, want, f"{tag} once they are closed")
            ck.ok(m.alive(), f"{tag}: daemon died")
    except MountError as e:
        ck.fail(f"{tag}: {e}")


def descriptors(ck):
    tmp = tempfile.mkdtemp(prefix="elffs-fds-")
    src = os.path.join(tmp, "src")
    os.makedirs(os.path.join(src, "bin"))
    names = [f"e{i:03d}" for i in range(NBINS)]
    for name in names:
        copy_fixture("exec", os.path.join(src, "bin", name))
    want = read_all(fixture("exec"))[:64]
    try:
        for args in (["-o", "nommap"], []):
            fds_round(ck, args, src, names, want)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    require_fuse()
    ck = Checker("hostile-tree")
    if os.geteuid() != 0:
        print("SKIP: bind mounts and tmpfs need root")
        sys.exit(77)
    parts = sys.argv[1:] or ["own", "ident", "fds"]
    for part in parts:
        started = time.monotonic()
        {"own": own_mount, "ident": identity, "fds": descriptors}[part](ck)
        print(f"{part}: {time.monotonic() - started:.1f} s", flush=True)
    ck.finish()


if __name__ == "__main__":
    main()
