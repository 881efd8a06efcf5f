#!/usr/bin/python3
"""The view follows changes of the source within the cache timeout
(mounted with -o timeout=1; the test waits 1.5 s): a file replaced by
rename shows the new file, one rewritten in place shows the new content
(and a file open before it reads EIO, not new bytes at old offsets; an
`elf` open in passthrough reads the source file itself, its new bytes),
a deleted one vanishes, and a file truncated under an open reader gives
that reader EIO for the bytes that are gone while the daemon survives and
keeps serving other files. In default and -o nommap mode, and once
without -o timeout (SPEC's default of 1 s). And a binary whose directory
became a file while the kernel still holds its names (-o timeout=1000, so
nothing is re-checked): what lies below it answers ENOENT, never ENOTDIR;
also when the binary's parsed view had given its descriptor back (-o nommap
under a descriptor limit of 16, so that the cache keeps 4 at most, with its
sections/ directory held open and 8 other binaries parsed: a path that
otherwise only a loaded machine reaches, where a double release of the view
would answer EIO and then crash the daemon at the release of the held
directory).
"""

import errno
import mmap
import os
import shutil
import tempfile
import time

import elf_oracle as oracle
from elffs_mount import Checker, Mount, fixture, require_fuse, run_mounted

TIMEOUT = 1
WAIT = TIMEOUT + 0.5
BIG_SOURCES = ["/usr/bin/readelf", "/usr/bin/objdump", "/usr/bin/python3"]
TRUNCATE_TO = 64 * 1024


def view_matches(ck, view, src, what):
    """The view of src in the mount lists and holds what readelf says."""
    info = oracle.readelf([src])[src]
    expected = oracle.expected_files(info, os.path.getsize(src))
    for kind in ("sections", "segments"):
        want = {e[0].split("/", 1)[1] for e in expected if e[0].startswith(kind + "/")}
        try:
            got = set(os.listdir(os.path.join(view, kind)))
        except OSError as e:
            ck.fail(f"{what}: {view}/{kind}: {e.strerror}")
            return
        if not ck.ok(got == want, f"{what}: {kind} missing {sorted(want - got)[:5]}, "
                                  f"unexpected {sorted(got - want)[:5]}"):
            return
    fd = os.open(src, os.O_RDONLY)
    try:
        for rel, off, size, _ in expected:
            err = oracle.compare_file(os.path.join(view, rel), fd, off, size)
            ck.ok(err is None, f"{what}: {rel}: {err}")
    finally:
        os.close(fd)
    try:
        with open(os.path.join(view, "header"), "rb") as f:
            head = f.read()
        with open(src, "rb") as f:
            ck.eq(head, f.read(len(head)), f"{what}: header")
    except OSError as e:
        ck.fail(f"{what}: header: {e.strerror}")


def look(view):
    """Touch the view so the kernel caches its entries and attributes."""
    os.listdir(os.path.join(view, "sections"))
    with open(os.path.join(view, "info"), "rb") as f:
        f.read()


def step_rename(ck, src, mnt, stage):
    a, view = os.path.join(src, "a"), os.path.join(mnt, "a")
    look(view)
    tmp = os.path.join(stage, "a.new")
    shutil.copy(fixture("pie"), tmp)
    os.rename(tmp, a)
    time.sleep(WAIT)
    view_matches(ck, view, a, "replaced by rename")


def step_rewrite(ck, src, mnt):
    a, view = os.path.join(src, "a"), os.path.join(mnt, "a")
    look(view)
    with open(fixture("libshared.so"), "rb") as f:
        data = f.read()
    with open(a, "r+b") as f:
        f.truncate(0)
        f.write(data)
    time.sleep(WAIT)
    view_matches(ck, view, a, "rewritten in place")
    # same size, one byte of .comment changed
    info = oracle.readelf([a])[a]
    comment = [s for s in info.sections if s.name == ".comment"][0]
    with open(os.path.join(view, "sections", ".comment"), "rb") as f:
        f.read()
    with open(a, "r+b") as f:
        f.seek(comment.off)
        old = f.read(1)
        f.seek(comment.off)
        f.write(b"Z" if old != b"Z" else b"Y")
    time.sleep(WAIT)
    view_matches(ck, view, a, "patched in place")


def step_open_rewrite(ck, src, mnt, passthrough):
    """A file open before its source is written in place reads EIO, never
    the new bytes at the old offsets (SPEC 7: no wrong bytes presented as
    right), also when the writer puts the mtime back (touch -d: the ctime,
    which nobody can set, still moved); an open after the timeout reads the
    new bytes. For a section file and for `elf`; O_DIRECT: every read asks
    the daemon, whatever the page cache holds. An `elf` open in passthrough
    is the source file opened: it reads the new bytes, as the source's own
    readers do (docs/elffs.1, PASSTHROUGH)."""
    for rel in ("sections/.text", "elf"):
        for restore in (False, True):
            rewrite_once(ck, src, mnt, rel, restore, passthrough and rel == "elf")


def rewrite_once(ck, src, mnt, rel, restore, passthrough):
    a, view = os.path.join(src, "a"), os.path.join(mnt, "a")
    what = f"{rel}, rewritten in place" + (" with its mtime put back" if restore else "")
    look(view)
    info = oracle.readelf([a])[a]
    text = [s for s in info.sections if s.name == ".text"][0]
    path = os.path.join(view, rel)
    base = text.off if rel == "elf" else 0
    buf = mmap.mmap(-1, 1 << 20)  # page-aligned, for O_DIRECT
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        n = os.preadv(fd, [buf], base & ~4095)
        ck.ok(n > 0, f"{what}: read before the rewrite")
        st = os.stat(a)
        with open(a, "r+b") as f:
            f.seek(text.off)
            old = f.read(text.size)
            f.seek(text.off)
            f.write(bytes(b ^ 0xFF for b in old))
        if restore:
            os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns))
            ck.eq(os.stat(a).st_mtime_ns, st.st_mtime_ns, f"{what}: mtime put back")
        if passthrough:
            n = os.preadv(fd, [buf], base & ~4095)
            skip = base - (base & ~4095)
            ck.ok(bytes(buf[skip:skip + text.size]) == bytes(b ^ 0xFF for b in old),
                  f"open file {what} in passthrough: not the source's new bytes")
        else:
            try:
                n = os.preadv(fd, [buf], base & ~4095)
                ck.fail(f"open file {what}: {n} bytes read, not EIO")
            except OSError as e:
                ck.eq(e.errno, errno.EIO, f"open file {what}: {e}")
    finally:
        os.close(fd)
    time.sleep(WAIT)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        n = os.preadv(fd, [buf], base & ~4095)
        skip = base - (base & ~4095)
        got = bytes(buf[skip:skip + text.size]) if n >= skip + text.size else None
        ck.ok(got == bytes(b ^ 0xFF for b in old), f"{what}: new bytes after the timeout")
    finally:
        os.close(fd)
        buf.close()


def largest_section(info, min_off):
    cands = [s for s in info.sections
             if s.type != "NOBITS" and s.off >= min_off and s.size >= 8192]
    return max(cands, key=lambda s: s.size) if cands else None


def step_truncate(ck, src, mnt, m):
    big, view = os.path.join(src, "big"), os.path.join(mnt, "big")
    info = oracle.readelf([big])[big]
    sec = largest_section(info, 2 * TRUNCATE_TO)
    if not ck.ok(sec is not None, "no large section past 128 KiB in big (test setup)"):
        return
    name = oracle.section_file_names(info.sections)[sec.index]
    load = [p for p in info.segments
            if p.type == "LOAD" and p.off <= sec.off and sec.off + sec.size <= p.off + p.filesz]
    paths = [os.path.join(view, "sections", name)]
    paths += [os.path.join(view, "segments", oracle.segment_file_name(load[0], info.machine))]
    fds = [os.open(p, os.O_RDONLY) for p in paths]  # opened, nothing read yet
    try:
        os.truncate(big, TRUNCATE_TO)
        for p, fd in zip(paths, fds):
            where = sec.size // 2 if p == paths[0] else sec.off - load[0].off + sec.size // 2
            ck.errno_is(errno.EIO, f"read of truncated-away bytes of {p}", os.pread, fd,
                        4096, where)
        ck.ok(m.alive(), "daemon died after a read of truncated bytes")
        view_matches(ck, os.path.join(mnt, "other"), os.path.join(src, "other"),
                     "other file after truncation")
        time.sleep(WAIT)
        for p in paths:
            check_shrunk(ck, p, TRUNCATE_TO)
        ck.ok(m.alive(), "daemon died after the view of a truncated file was refreshed")
    finally:
        for fd in fds:
            os.close(fd)


def check_shrunk(ck, path, new_size):
    """After the timeout, a fresh open gives no bytes past the new end."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        ck.ok(e.errno in (errno.ENOENT, errno.EIO), f"{path} after truncation: {e.strerror}")
        return
    ck.ok(len(data) <= new_size, f"{path} after truncation still gives {len(data)} bytes")


def step_delete(ck, src, mnt):
    look(os.path.join(mnt, "a"))
    os.unlink(os.path.join(src, "a"))
    time.sleep(WAIT)
    ck.ok(not os.path.exists(os.path.join(mnt, "a")), "deleted source still shown")
    ck.ok("a" not in os.listdir(mnt), "deleted source still listed")


def run_mode(ck, args):
    src = tempfile.mkdtemp(prefix="elffs-chg-")
    stage = tempfile.mkdtemp(prefix="elffs-stage-")
    try:
        shutil.copy(fixture("exec"), os.path.join(src, "a"))
        shutil.copy(fixture("libshared.so"), os.path.join(src, "other"))
        shutil.copy(next(p for p in BIG_SOURCES if os.path.getsize(p) > 4 * TRUNCATE_TO),
                    os.path.join(src, "big"))

        def body(m):
            view_matches(ck, os.path.join(m.path, "a"), os.path.join(src, "a"), "initial")
            step_rename(ck, src, m.path, stage)
            step_rewrite(ck, src, m.path)
            step_open_rewrite(ck, src, m.path, m.passthrough())
            step_truncate(ck, src, m.path, m)
            step_delete(ck, src, m.path)
            view_matches(ck, os.path.join(m.path, "other"), os.path.join(src, "other"),
                         "other file at the end")
            ck.ok(m.alive(), "daemon died")

        run_mounted(ck, src, ["-o", f"timeout={TIMEOUT}"] + args, body)
    finally:
        shutil.rmtree(src)
        shutil.rmtree(stage)


def run_default_timeout(ck):
    """Without -o timeout the cache timeout is SPEC's default of 1 s."""
    src = tempfile.mkdtemp(prefix="elffs-chg-")
    stage = tempfile.mkdtemp(prefix="elffs-stage-")
    try:
        shutil.copy(fixture("exec"), os.path.join(src, "a"))
        run_mounted(ck, src, [], lambda m: step_rename(ck, src, m.path, stage))
    finally:
        shutil.rmtree(src)
        shutil.rmtree(stage)


def run_dir_became_file(ck, args):
    """swap/bin seen, then swap replaced by a file: a lookup in bin's view
    and an open of its info parse the binary by its path, and a directory on
    that path being a file now means the binary is gone (ENOENT)."""
    src = tempfile.mkdtemp(prefix="elffs-chg-")
    try:
        os.mkdir(os.path.join(src, "swap"))
        shutil.copy(fixture("pie"), os.path.join(src, "swap", "bin"))

        def body(m):
            os.stat(os.path.join(m.path, "swap", "bin"))
            os.rename(os.path.join(src, "swap"), os.path.join(src, "swap.d"))
            shutil.copy(fixture("pie"), os.path.join(src, "swap"))
            for what, fn in (("listdir sections", os.listdir),
                             ("open info", lambda p: os.close(os.open(p, os.O_RDONLY)))):
                path = os.path.join(m.path, "swap", "bin",
                                    "sections" if what.startswith("listdir") else "info")
                ck.errno_is(errno.ENOENT, f"{args or 'mmap'}: {what} of a binary whose "
                            f"directory became a file", fn, path)

        # watch=off: the subject is what a request finds by the path; with
        # the watch, the rename's event is heard within milliseconds, and a
        # listing the kernel keeps may be served until it is
        run_mounted(ck, src, ["-o", "timeout=1000,watch=off"] + args, body)
    finally:
        shutil.rmtree(src)


SHED_NOFILE = 16  # the binary cache then keeps 16 / 4 = 4 descriptors
SHED_OTHERS = 8


def daemon_fds_of(pid, part):
    """Descriptors of process pid whose target contains part."""
    n = 0
    for f in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += part in os.readlink(f"/proc/{pid}/fd/{f}")
        except OSError:
            pass
    return n


def run_dir_became_file_shed(ck, what):
    """The same case on the descriptor-shedding path, forced: bin's view is
    parsed and held (its sections/ open), its descriptor given back because
    8 other binaries were parsed under a limit of 4, then swap becomes a
    file; `what` (listdir sections, or open info) is ENOENT, not EIO, and
    the daemon exits cleanly once the held directory is closed."""
    src = tempfile.mkdtemp(prefix="elffs-chg-")
    tag = f"nommap, descriptors given back: {what}"
    try:
        os.mkdir(os.path.join(src, "swap"))
        shutil.copy(fixture("pie"), os.path.join(src, "swap", "bin"))
        for i in range(SHED_OTHERS):
            with open(os.path.join(src, f"o{i}"), "wb") as f, open(fixture("exec"), "rb") as e:
                f.write(e.read() + b"%d" % i)  # distinct files: one view each
        args = ["-o", "timeout=1000,nommap,watch=off"]  # as run_dir_became_file
        with Mount(ck, src, args, prefix=["prlimit", f"--nofile={SHED_NOFILE}", "--"]) as m:
            bin_ = os.path.join(m.path, "swap", "bin")
            held = os.open(os.path.join(bin_, "sections"), os.O_RDONLY | os.O_DIRECTORY)
            try:
                ck.eq(daemon_fds_of(m.proc.pid, "/swap/bin"), 1, f"{tag}: bin's descriptor "
                      "while its view is new")
                for i in range(SHED_OTHERS):
                    os.listdir(os.path.join(m.path, f"o{i}", "sections"))
                # the path under test is reached only if this holds
                ck.eq(daemon_fds_of(m.proc.pid, "/swap/bin"), 0, f"{tag}: bin's descriptor "
                      "given back")
                os.rename(os.path.join(src, "swap"), os.path.join(src, "swap.d"))
                shutil.copy(fixture("pie"), os.path.join(src, "swap"))
                if what == "listdir sections":
                    ck.errno_is(errno.ENOENT, tag, os.listdir, os.path.join(bin_, "sections"))
                else:
                    ck.errno_is(errno.ENOENT, tag,
                                lambda p: os.close(os.open(p, os.O_RDONLY)),
                                os.path.join(bin_, "info"))
            finally:
                os.close(held)
    finally:
        shutil.rmtree(src)


def main():
    require_fuse()
    ck = Checker("changes")
    for args in ([], ["-o", "nommap"]):
        before = ck.checks
        run_mode(ck, args)
        print(f"mode {args or 'mmap'}: {ck.checks - before} checks", flush=True)
    run_default_timeout(ck)
    for args in ([], ["-o", "nommap"]):
        run_dir_became_file(ck, args)
    for what in ("listdir sections", "open info"):
        run_dir_became_file_shed(ck, what)
    ck.finish()


if __name__ == "__main__":
    main()
