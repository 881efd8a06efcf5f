#!/usr/bin/env python3
"""-o watch=auto: changes of SOURCE are visible through the mount at once,
with -o timeout=3600 and the default -o watch_timeout (a day), so that
nothing here is the timeout's doing (with -o watch=off every change below
stays unseen for an hour: each case fails).

- basics: a new file (lookup and listing), a deletion, a rename, a rewrite
  in place with its times put back, a chmod, a chmod through a hard link's
  other name, each of a name the kernel holds, each seen within BOUND_S;
- overflow: fs.fanotify.max_queued_events lowered to 8 while the daemon
  starts (put back at once), a burst of creates overflows the queue; the
  chmod of a held file made during the burst is seen, and
  user.elffs.watch_overflows counts it;
- flood: nobody writes and deletes many files in a directory the kernel
  holds while root renames a held file: every answer stays right;
- mapping: a write through a shared writable mapping of a source file
  raises no event: a read of the open view gives EIO (the identity check
  every read makes), never the old bytes as right;
- nested: a FUSE mount below SOURCE is named "not watched" in the log line
  and keeps -o timeout (a change through it is seen within that timeout);
- kept: listed again, a watched directory of SOURCE, the directories
  inside a binary (sections/, segments/) and the directory of a binary
  without build id or debug link send no READDIR to the daemon (the kernel
  keeps their listings; its -d log is counted), while a binary with a
  build id is listed again (its debug entry may change with other files);
  the binary rewritten in place with another one, its sections/ lists the
  new one's sections (as a fresh mount of that one lists them);
- index: the build-id index of a SOURCE on a tmpfs of its own (no other
  writer on it), with -o timeout=0.2: watched, queries past the timeout
  with nothing changed make no look at SOURCE (user.elffs.refreshes of
  .build-id stays), and a binary written then is found by its build id;
  with watch=off each query past the timeout looks again.

BOUND_S is a generous bound for a loaded machine (the latency itself is
measured in bench/, docs/benchmarks.md).
"""

import mmap
import os
import shutil
import subprocess
import sys
import tempfile
import time

from elffs_mount import (Checker, Mount, as_nobody, build_id, fixture, require_fuse,
                         run_mounted, tmpfs_source, wait_for)

BOUND_S = 5.0
LONG = ["-o", "timeout=3600,watch=auto"]
QUEUE = "/proc/sys/fs/fanotify/max_queued_events"


def lstat_or_none(path):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def seen(pred):
    return wait_for(pred, BOUND_S)


def xattr(path, name):
    try:
        return os.getxattr(path, name).decode()
    except OSError:
        return None


def watch_line(ck, m):
    """The daemon's watch log line, once written (the watch starts once
    the mount shows): the log so far."""
    ck.ok(wait_for(lambda: "elffs: watch:" in m.output(), 10),
          f"the watch's log line: {m.output()[:300]}")
    return m.output()


def check_basics(ck, src, mnt):
    d, md = os.path.join(src, "d"), os.path.join(mnt, "d")
    os.listdir(md)
    for name in ("gone", "old", "times", "mode", "link1"):
        ck.ok(os.path.isdir(os.path.join(md, name)), f"{name} shown before the change")
    os.stat(os.path.join(md, "link2"))
    ck.ok(lstat_or_none(os.path.join(md, "new")) is None, "new absent before")

    shutil.copy(fixture("exec"), os.path.join(d, "new"))
    ck.ok(seen(lambda: lstat_or_none(os.path.join(md, "new")) is not None),
          "a new file is found by a lookup")
    ck.ok(seen(lambda: "new" in os.listdir(md)), "a new file is listed")

    os.unlink(os.path.join(d, "gone"))
    ck.ok(seen(lambda: lstat_or_none(os.path.join(md, "gone")) is None), "a deletion is seen")

    os.rename(os.path.join(d, "old"), os.path.join(d, "renamed"))
    ck.ok(seen(lambda: lstat_or_none(os.path.join(md, "old")) is None and
               lstat_or_none(os.path.join(md, "renamed")) is not None), "a rename is seen")

    rewrite_times_back(ck, os.path.join(d, "times"), os.path.join(md, "times"))

    os.chmod(os.path.join(d, "mode"), 0o700)
    ck.ok(seen(lambda: os.stat(os.path.join(md, "mode")).st_mode & 0o777 == 0o500),
          "a chmod is seen")

    os.chmod(os.path.join(d, "link1"), 0o600)
    ck.ok(seen(lambda: os.stat(os.path.join(md, "link2")).st_mode & 0o777 == 0o500),
          "a chmod through a hard link's other name is seen on this name")


def rewrite_times_back(ck, path, mpath):
    """The bytes of exec rewritten in place with pie's, size and times put back."""
    with open(os.path.join(mpath, "elf"), "rb") as f:
        before = f.read()
    st = os.stat(path)
    with open(fixture("pie"), "rb") as f:
        other = f.read()
    other = (other + b"\0" * st.st_size)[:st.st_size]
    with open(path, "r+b") as f:
        f.write(other)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))

    def now_shows():
        try:
            with open(os.path.join(mpath, "elf"), "rb") as f:
                return f.read() == other
        except OSError:
            return False
    ck.ok(before != other and seen(now_shows),
          "a rewrite in place with the times put back shows the new bytes")


def basics(ck):
    with tempfile.TemporaryDirectory(prefix="elffs-watch-") as work:
        src = os.path.join(work, "src")
        d = os.path.join(src, "d")
        os.makedirs(d)
        for name in ("gone", "old", "times", "mode", "link1"):
            shutil.copy(fixture("exec"), os.path.join(d, name))
        os.link(os.path.join(d, "link1"), os.path.join(d, "link2"))

        def body(m):
            check_basics(ck, src, m.path)
            ck.ok("watch: " in m.output() and " watched" in m.output(),
                  f"the log line names a watched file system: {m.output()[:300]}")
        run_mounted(ck, src, LONG, body)


def overflow(ck):
    with tempfile.TemporaryDirectory(prefix="elffs-watch-") as work:
        src = os.path.join(work, "src")
        burst = os.path.join(src, "burst")
        os.makedirs(burst)
        shutil.copy(fixture("exec"), os.path.join(src, "held"))
        with open(QUEUE) as f:
            saved = f.read().strip()
        with open(QUEUE, "w") as f:
            f.write("8\n")
        try:
            m = Mount(ck, src, LONG).start()
            # the group is made after the mount shows, and logs its line once made
            watch_line(ck, m)
        finally:
            with open(QUEUE, "w") as f:  # the group took its size when made
                f.write(saved + "\n")
        try:
            mnt = m.path
            os.listdir(os.path.join(mnt, "burst"))
            os.stat(os.path.join(mnt, "held"))
            for i in range(3000):
                open(os.path.join(burst, f"f{i}"), "w").close()
                if i == 1500:
                    os.chmod(os.path.join(src, "held"), 0o700)
            bid = os.path.join(mnt, ".build-id")
            ck.ok(seen(lambda: int(xattr(bid, "user.elffs.watch_overflows") or 0) >= 1),
                  f"the overflow is counted: {xattr(bid, 'user.elffs.watch_overflows')}")
            ck.ok(seen(lambda: os.stat(os.path.join(mnt, "held")).st_mode & 0o777 == 0o500),
                  "a chmod made during the overflow is seen")
            ck.ok("event queue overflowed" in m.output(), "the overflow is logged")
        finally:
            m.stop()


def flood(ck):
    with tempfile.TemporaryDirectory(prefix="elffs-watch-") as work:
        src = os.path.join(work, "src")
        tmp = os.path.join(src, "tmp")
        os.makedirs(tmp)
        os.chmod(work, 0o755)
        os.chmod(src, 0o755)
        os.chmod(tmp, 0o1777)
        for i in range(20):
            shutil.copy(fixture("exec"), os.path.join(src, f"b{i}"))

        def writer():
            for i in range(20000):
                p = os.path.join(tmp, f"n{i % 500}")
                with open(p, "w") as f:
                    f.write("x")
                if i % 2:
                    os.unlink(p)
            return True

        def body(m):
            os.listdir(os.path.join(m.path, "tmp"))
            for i in range(20):
                os.stat(os.path.join(m.path, f"b{i}"))
            pid = os.fork()
            if pid == 0:
                os._exit(as_nobody(writer))
            for i in range(0, 20, 2):
                os.rename(os.path.join(src, f"b{i}"), os.path.join(src, f"r{i}"))
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            ck.eq(code, 0, "nobody's writer ran")
            want = sorted([f"b{i}" for i in range(1, 20, 2)] + [f"r{i}" for i in range(0, 20, 2)])
            ck.ok(seen(lambda: sorted(n for n in os.listdir(m.path) if n[0] in "br") == want),
                  "after the flood the listing shows every rename")
            ck.ok(all(lstat_or_none(os.path.join(m.path, f"b{i}")) is None
                      for i in range(0, 20, 2)), "no renamed name is found")
            ck.ok(m.alive(), "the daemon lives")
        run_mounted(ck, src, LONG, body)


def mapping(ck):
    with tempfile.TemporaryDirectory(prefix="elffs-watch-") as work:
        src = os.path.join(work, "src")
        os.makedirs(src)
        path = os.path.join(src, "mapped")
        shutil.copy(fixture("exec"), path)

        def body(m):
            text = os.path.join(m.path, "mapped", "sections", ".text")
            fd = os.open(text, os.O_RDONLY | os.O_DIRECT)
            try:
                old = read_direct(fd)
                off = int(os.getxattr(text, "user.elf.offset").decode(), 16)
                time.sleep(0.05)  # the mtime the write fault sets differs from the file's
                with open(path, "r+b") as f:
                    mm = mmap.mmap(f.fileno(), 0, mmap.MAP_SHARED, mmap.PROT_WRITE)
                    mm[off:off + 16] = bytes(255 - b for b in old[:16])
                    mm.flush()
                    mm.close()
                try:
                    got = read_direct(fd)
                    ck.ok(got != old, "a read after a write through a shared mapping does not "
                          "give the old bytes as right")
                except OSError as e:
                    ck.ok(e.errno == 5, f"that read is EIO: {e}")
            finally:
                os.close(fd)
        run_mounted(ck, src, LONG + ["-o", "passthrough=off"], body)


def read_direct(fd):
    buf = mmap.mmap(-1, 1 << 20)
    n = os.preadv(fd, [buf], 0)
    return bytes(buf[:n])


def nested(ck):
    with tempfile.TemporaryDirectory(prefix="elffs-watch-") as work:
        src, inner_src = os.path.join(work, "src"), os.path.join(work, "inner")
        below = os.path.join(src, "below")
        os.makedirs(below)
        os.makedirs(inner_src)
        shutil.copy(fixture("exec"), os.path.join(inner_src, "x"))
        with Mount(ck, inner_src, ["-o", "watch=off"], mountpoint=below) as im:
            def body(m):
                log = watch_line(ck, m)
                ck.ok("(fuse.elffs) not watched" in log,
                      f"the log line names the FUSE mount below SOURCE: {log[:400]}")
                x = os.path.join(m.path, "below", "x", "elf")
                os.stat(x)
                os.chmod(os.path.join(inner_src, "x"), 0o700)
                # inner: -o timeout 1 s; outer: 1 s for what is not watched
                ck.ok(wait_for(lambda: os.stat(x).st_mode & 0o777 == 0o500, 10.0),
                      "a change below the FUSE mount is seen after -o timeout")
            run_mounted(ck, src, ["-o", "timeout=1,watch=auto"], body)
            ck.ok(im.alive(), "the nested daemon lives")


def readdirs(m, since):
    """READDIR and READDIRPLUS requests in the daemon's -d log past offset
    since (read with pread: the daemon writes at the file's offset)."""
    fd = m.log.fileno()
    size = os.fstat(fd).st_size
    return os.pread(fd, size - since, since).count(b"opcode: READDIR"), size


def kept(ck):
    with tempfile.TemporaryDirectory(prefix="elffs-watch-") as work:
        src, other = os.path.join(work, "src"), os.path.join(work, "other")
        os.makedirs(os.path.join(src, "d"))
        os.makedirs(other)
        shutil.copy(fixture("exec"), os.path.join(src, "d", "prog"))
        subprocess.run(["objcopy", "--remove-section", ".note.gnu.build-id", fixture("exec"),
                        os.path.join(src, "d", "plain")], check=True)
        shutil.copy(fixture("libshared.so"), os.path.join(other, "prog"))
        with Mount(ck, other, ["-o", "watch=off"]) as om:
            want = sorted(os.listdir(os.path.join(om.path, "prog", "sections")))

        def body(m):
            watch_line(ck, m)
            prog = os.path.join(m.path, "d", "prog")
            dirs = [os.path.join(m.path, "d"), os.path.join(prog, "sections"),
                    os.path.join(prog, "segments"), os.path.join(m.path, "d", "plain")]
            first = [sorted(os.listdir(d)) for d in dirs + [prog]]
            _, mark = readdirs(m, 0)
            again = [sorted(os.listdir(d)) for d in dirs]
            n, mark = readdirs(m, mark)
            ck.eq(again, first[:-1], "listed again: the same names")
            ck.eq(n, 0, "listed again: no READDIR reaches the daemon (the kernel keeps d/, "
                  "prog/sections/, prog/segments/ and plain/)")
            ck.eq(sorted(os.listdir(prog)), first[-1], "prog/ listed again: the same names")
            n, _ = readdirs(m, mark)
            ck.ok(n > 0, "prog/ (a build id: its debug entry may change) is listed again by "
                  "the daemon")
            ck.ok(first[1] != want, "the two binaries have different sections")
            shutil.copyfile(fixture("libshared.so"), os.path.join(src, "d", "prog"))
            ck.ok(seen(lambda: sorted(os.listdir(os.path.join(prog, "sections"))) == want),
                  "rewritten in place, prog/sections/ lists the new binary's sections")
        run_mounted(ck, src, ["-d", "-o", "timeout=3600,watch=auto"], body)


def check_index(ck, src, mnt, mode, new):
    def link(bid):
        return os.path.join(mnt, ".build-id", bid[:2], bid[2:])

    def refreshes():
        return int(xattr(os.path.join(mnt, ".build-id"), "user.elffs.refreshes") or -1)

    old = build_id(fixture("exec"))
    ck.ok(os.path.lexists(link(old)), f"watch={mode}: the index finds exec by its build id")
    before = refreshes()
    for _ in range(3):
        time.sleep(0.4)  # past -o timeout: the kernel asks the daemon again
        ck.ok(os.path.lexists(link(old)), f"watch={mode}: exec found again")
    after = refreshes()
    if mode == "auto":
        ck.eq(after, before, "watched whole and nothing changed: no look at SOURCE again")
    else:
        ck.ok(after > before, f"watch=off: a query past -o timeout looks again ({before} to "
              f"{after})")
    shutil.copy(fixture(new), os.path.join(src, new))
    ck.ok(seen(lambda: os.path.lexists(link(build_id(fixture(new))))),
          f"watch={mode}: a binary written into SOURCE is found by its build id")


def index(ck):
    with tmpfs_source(ck, "index", "elffs-watch-") as src:
        if src is None:
            return
        shutil.copy(fixture("exec"), os.path.join(src, "exec"))
        for mode, new in (("auto", "pie"), ("off", "libshared.so")):
            def body(m):
                if mode == "auto":
                    log = watch_line(ck, m)
                    ck.ok("(tmpfs) watched" in log, f"the tmpfs is watched: {log[:300]}")
                check_index(ck, src, m.path, mode, new)
            run_mounted(ck, src, ["-o", f"timeout=0.2,watch={mode}"], body)


def main():
    require_fuse()
    ck = Checker("watch")
    start = time.monotonic()
    for case in (basics, overflow, flood, mapping, nested, kept, index):
        case(ck)
    print(f"watch: {time.monotonic() - start:.1f} s", flush=True)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
