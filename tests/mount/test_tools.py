#!/usr/bin/python3
"""What users do with section and segment files, under every I/O policy
(fs/tree/iopolicy.c): cat, dd (4 KiB, 1 MiB and O_DIRECT reads), cmp,
xxd, objdump -b binary, cp (files and a whole sections/ directory), tar,
python3 mmap (MAP_SHARED and MAP_PRIVATE), gdb restoring a segments/ file
into a live process, and one file read both ways at once (O_DIRECT beside a
buffered read and a shared mapping). The same tools on `elf` (the whole
file; gdb reads it as a program), which opens in FUSE passthrough where the
daemon can (root: the default here) and through the daemon under
-o passthrough=off. The bytes are compared with
`objcopy --dump-section` of the source (sections) and the source's bytes
(segments). Sources: the fixtures exec, pie and libshared.so, and a copy of
pie with a 17 MiB section added by objcopy (over -o direct_io=auto's
16 MiB: direct I/O there).

Mounts: the default (direct_io=off), -o direct_io=auto and on, -o passthrough=off; and
-o direct_io=off spelled out, the default's own options, where only the big
section's page cache is checked. Every use must work under every policy, shared mappings included: under direct I/O (on, and
auto for the big file) the daemon answers FUSE_DIRECT_IO_ALLOW_MMAP at INIT
(fs/ops/initext.c) and the kernel maps the file MAP_SHARED; on a kernel older
than 6.6, which cannot, the mapping must fail with ENODEV and nothing else.
That the policy took effect is seen in the page cache: after a whole read,
a direct file has none of its pages cached, a page-cache file all of them.
Also: st_blksize (1 MiB at most, the file's size rounded up to a power of
two, -o iosize=), -o max_read= (smaller read requests, page cache and
direct I/O) and the refusal of bad values.
"""

import ctypes
import errno
import mmap
import os
import shutil
import subprocess
import sys
import tempfile

import elf_oracle
from elffs_mount import Checker, Mount, MountError, elffs_path, fixture, require_fuse

BINARIES = ["exec", "pie", "libshared.so"]
BIG = "big.elf"
BIG_SECTION = ".big"
BIG_SIZE = 17 << 20
AUTO_MIN = 16 << 20
MODES = [("default", []), ("direct_io=auto", ["-o", "direct_io=auto"]),
         ("direct_io=on", ["-o", "direct_io=on"]), ("passthrough=off", ["-o", "passthrough=off"])]
# the default's policy spelled out: the same options as "default", so only
# the policy's effect (the page cache) is checked, not every tool again
SPELLED = ("direct_io=off", ["-o", "direct_io=off"])
SMALL = 1 << 16  # xxd and objdump only on files up to this size
# FUSE_DIRECT_IO_ALLOW_MMAP (then called FUSE_DIRECT_IO_RELAX) came with 6.6
KERNEL = tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2])
DIO_SHARED_MMAP = KERNEL >= (6, 6)
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
LIBC.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, timeout=120, **kw)


class Source:
    """The source tree, and for each binary its files with the oracle's bytes."""

    def __init__(self, top):
        self.top = os.path.join(top, "src")  # what is mounted
        self.oracle = os.path.join(top, "oracle")
        os.makedirs(self.top)
        self.files = {}  # bin -> [(rel path, bytes)]
        self.whole = {}  # bin -> its bytes (what `elf` shows)
        self.info = {}

    def build(self, ck):
        for b in BINARIES:
            shutil.copy(fixture(b), os.path.join(self.top, b))
        blob = os.path.join(self.oracle, "blob")
        os.makedirs(self.oracle)
        with open(blob, "wb") as f:
            f.write(os.urandom(BIG_SIZE))
        res = run(["objcopy", "--add-section", f"{BIG_SECTION}={blob}", "--set-section-flags",
                   f"{BIG_SECTION}=contents,readonly", fixture("pie"),
                   os.path.join(self.top, BIG)])
        ck.eq(res.returncode, 0, f"objcopy --add-section: {res.stderr!r}")
        os.unlink(blob)
        paths = [os.path.join(self.top, b) for b in BINARIES + [BIG]]
        for path, info in elf_oracle.readelf(paths).items():
            self._oracle_files(ck, os.path.basename(path), path, info)

    def _oracle_files(self, ck, name, path, info):
        self.info[name] = info
        out = []
        with open(path, "rb") as f:
            data = f.read()
        self.whole[name] = data
        os.makedirs(os.path.join(self.oracle, name), exist_ok=True)
        with open(os.path.join(self.oracle, name, "elf"), "wb") as f:
            f.write(data)
        for rel, off, size, kind in elf_oracle.expected_files(info, len(data)):
            if size == 0:
                continue
            dest = os.path.join(self.oracle, name, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if kind == "section":
                sec = rel.split("/", 1)[1]
                res = run(["objcopy", "--dump-section", f"{sec}={dest}", path, "/dev/null"])
                ck.eq(res.returncode, 0, f"objcopy --dump-section {sec} of {name}: {res.stderr!r}")
                # objcopy writes nothing for the tables it rebuilds (.symtab,
                # .strtab, .shstrtab): the source's bytes are the oracle there
                if os.path.exists(dest):
                    with open(dest, "rb") as f:
                        want = f.read()
                    ck.eq(want, data[off:off + size], f"objcopy --dump-section {sec} of {name}")
                    ck.count("objcopy oracles")
                else:
                    want = data[off:off + size]
                    with open(dest, "wb") as f:
                        f.write(want)
            else:
                want = data[off:off + size]
                with open(dest, "wb") as f:
                    f.write(want)
            out.append((rel, want))
        self.files[name] = out


def direct_expected(mode, size):
    if mode == "direct_io=on":
        return True
    return mode == "direct_io=auto" and size >= AUTO_MIN


def check_tools(ck, mode, mnt_bin, oracle_bin, rel, want):
    path = os.path.join(mnt_bin, rel)
    what = f"[{mode}] {os.path.basename(mnt_bin)}/{rel}"
    ck.eq(run(["cat", path]).stdout == want, True, f"{what}: cat")
    for bs in ("4096", "1M"):
        ck.eq(run(["dd", "if=" + path, "bs=" + bs, "status=none"]).stdout == want, True,
              f"{what}: dd bs={bs}")
    res = run(["dd", "if=" + path, "bs=1M", "iflag=direct", "status=none"])
    ck.ok(res.returncode == 0 and res.stdout == want, f"{what}: dd iflag=direct: {res.stderr!r}")
    res = run(["cmp", rel, os.path.join(oracle_bin, rel)], cwd=mnt_bin)
    ck.ok(res.returncode == 0, f"{what}: cmp with objcopy's: {res.stdout!r} {res.stderr!r}")
    if len(want) <= SMALL:
        a, b = run(["xxd", rel], cwd=mnt_bin), run(["xxd", rel], cwd=oracle_bin)
        ck.ok(a.returncode == 0 and a.stdout == b.stdout, f"{what}: xxd")
        argv = ["objdump", "-b", "binary", "-m", "i386:x86-64", "-D", rel]
        a, b = run(argv, cwd=mnt_bin), run(argv, cwd=oracle_bin)
        ck.ok(a.returncode == 0 and a.stdout == b.stdout and a.stdout,
              f"{what}: objdump -b binary -D: {a.stderr!r}")
    with tempfile.TemporaryDirectory(prefix="elffs-cp-") as tmp:
        res = run(["cp", path, tmp + "/copy"])
        got = None
        if os.path.exists(tmp + "/copy"):
            with open(tmp + "/copy", "rb") as f:
                got = f.read()
        ck.ok(res.returncode == 0 and got == want,
              f"{what}: cp: status {res.returncode}, {res.stderr!r}, "
              f"{'no copy' if got is None else len(got)} bytes")
    check_mmap(ck, what, path, want, direct_expected(mode, len(want)) and rel != "elf")


def check_mmap(ck, what, path, want, direct):
    shared_ok = not direct or DIO_SHARED_MMAP
    with open(path, "rb") as f:
        try:
            with mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ) as m:
                ck.ok(shared_ok and m[:] == want, f"{what}: mmap MAP_SHARED bytes")
        except OSError as e:
            # only a kernel without FUSE_DIRECT_IO_ALLOW_MMAP refuses it
            ck.ok(not shared_ok and e.errno == errno.ENODEV, f"{what}: mmap MAP_SHARED: {e}")
        with mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE,
                       prot=mmap.PROT_READ | mmap.PROT_WRITE) as m:
            ck.ok(m[:] == want, f"{what}: mmap MAP_PRIVATE bytes")
            m[0:1] = b"\0"  # a private copy: the file and other readers keep theirs
        with open(path, "rb") as g:
            ck.ok(g.read() == want, f"{what}: bytes after a private mapping was written")
    cached, pages = cached_after_read(path)
    if direct:
        ck.ok(cached == 0, f"{what}: direct I/O, yet {cached} of {pages} pages cached")
    else:
        ck.ok(cached > 0, f"{what}: page cache, yet none of {pages} pages cached")


def cached_after_read(path):
    """(pages of path in the page cache after a whole read, pages): mincore
    of a private mapping made after the read (which, for a direct file,
    drops what earlier mappings left in the cache)."""
    with open(path, "rb", buffering=0) as f:
        while f.read(1 << 20):
            pass
        size = os.fstat(f.fileno()).st_size
        addr = LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_PRIVATE, f.fileno(), 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap of " + path)
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = (ctypes.c_ubyte * pages)()
        try:
            if LIBC.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore of " + path)
        finally:
            LIBC.munmap(addr, size)
        return sum(v & 1 for v in vec), pages


def check_both_ways(ck, mode, path, want, direct):
    """One file open three ways at once: buffered, O_DIRECT, mapped."""
    what = f"[{mode}] {path}: open both ways"
    fd_b = os.open(path, os.O_RDONLY)
    fd_d = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 1 << 20)  # page-aligned buffer for O_DIRECT
    try:
        shared_ok = not direct or DIO_SHARED_MMAP
        m = mmap.mmap(fd_b, 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ) if shared_ok else None
        step, pos, ok = 1 << 20, 0, True
        while pos < len(want) and ok:
            n = os.preadv(fd_d, [buf], pos)
            got_d = bytes(buf[:n])
            got_b = os.pread(fd_b, step, pos)
            ok = got_d == got_b == want[pos:pos + step]
            if m is not None:
                ok = ok and m[pos:pos + step] == got_b
            pos += step
        ck.ok(ok, f"{what}: bytes differ at {pos - step}")
        if m is not None:
            m.close()
    finally:
        buf.close()
        os.close(fd_b)
        os.close(fd_d)


def check_tar(ck, mode, mnt_bin, files):
    with tempfile.TemporaryDirectory(prefix="elffs-tar-") as tmp:
        a = subprocess.Popen(["tar", "-C", mnt_bin, "-cf", "-", "sections", "segments"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        b = run(["tar", "-C", tmp, "-xf", "-"], stdin=a.stdout)
        a.stdout.close()
        err = a.stderr.read()
        a.wait()
        a.stderr.close()
        ck.ok(a.returncode == 0 and b.returncode == 0, f"[{mode}] tar of {mnt_bin}: {err!r}")
        bad = []
        for rel, want in files:
            try:
                with open(os.path.join(tmp, rel), "rb") as f:
                    if f.read() != want:
                        bad.append(rel)
            except OSError as e:
                bad.append(f"{rel}: {e}")
        ck.ok(not bad, f"[{mode}] tar of {mnt_bin}: files differ: {bad[:5]}")
        shutil.rmtree(tmp + "/sections", ignore_errors=True)
        res = run(["cp", "-r", os.path.join(mnt_bin, "sections"), tmp + "/sections"])
        bad = [rel for rel, want in files if rel.startswith("sections/") and
               open(os.path.join(tmp, rel), "rb").read() != want]
        ck.ok(res.returncode == 0 and not bad, f"[{mode}] cp -r sections: {res.stderr!r} {bad[:5]}")


def check_gdb(ck, mode, src, mnt_bin):
    """gdb reads a segments/ file (restore ... binary) into the bss of a
    live process of the source; dumped back, it must hold its bytes."""
    info = elf_oracle.readelf([src])[src]
    loads = [p for p in info.segments if p.type == "LOAD" and "W" in p.flags]
    if not loads or info.header.get("Type", "").startswith("DYN"):
        return ck.fail(f"{src}: want a non-PIE executable with a writable LOAD")
    rw = loads[0]
    bss, room = (rw.vaddr + rw.filesz + 15) & ~15, rw.memsz - rw.filesz - 16
    with open(src, "rb") as f:
        data = f.read()
    segs = [p for p in info.segments if 0 < p.filesz <= room and p.off + p.filesz <= len(data)]
    if not segs:
        return ck.fail(f"{src}: no segment fits the bss ({room} bytes)")
    seg = max(segs, key=lambda p: p.filesz)
    rel = "segments/" + elf_oracle.segment_file_name(seg, info.machine)
    with tempfile.TemporaryDirectory(prefix="elffs-gdb-") as tmp:
        out = tmp + "/dump"
        res = run(["gdb", "-batch", "-nx", "-ex", "starti",
                   "-ex", f"restore {os.path.join(mnt_bin, rel)} binary {bss:#x}",
                   "-ex", f"dump binary memory {out} {bss:#x} {bss + seg.filesz:#x}",
                   "-ex", "kill", src])
        text = (res.stdout + res.stderr).decode(errors="replace")
        if "ptrace" in text and "not permitted" in text:
            print(f"note: gdb cannot trace here ({text.strip()[-200:]}): gdb check left out")
            return None
        try:
            with open(out, "rb") as f:
                got = f.read()
        except OSError:
            got = None
        want = data[seg.off:seg.off + seg.filesz]
        ck.ok(got == want, f"[{mode}] gdb restore of {rel} ({seg.filesz} bytes): {text[-600:]}")


def check_blksize(ck, src):
    big = os.path.join(src.top, BIG)
    with Mount(ck, big) as m:
        for rel, want in src.files[BIG]:
            st = os.stat(os.path.join(m.path, rel))
            bs = 4096
            while bs < (1 << 20) and bs < len(want):
                bs *= 2
            ck.eq(st.st_blksize, bs, f"st_blksize of {rel} ({len(want)} bytes)")
        ck.eq(os.stat(os.path.join(m.path, "info")).st_blksize, 4096, "st_blksize of info")
        # the whole file too (cat and cp of it then read 1 MiB at a time)
        ck.eq(os.stat(os.path.join(m.path, "elf")).st_blksize, 1 << 20, "st_blksize of elf")
    with Mount(ck, big, ["-o", "iosize=65536"]) as m:
        st = os.stat(os.path.join(m.path, "sections", BIG_SECTION))
        ck.eq(st.st_blksize, 65536, "-o iosize=65536: st_blksize of the big section")
        res = run(["cat", os.path.join(m.path, "sections", BIG_SECTION)])
        ck.ok(res.stdout == dict(src.files[BIG])["sections/" + BIG_SECTION], "cat, blksize 64K")
    want = dict(src.files[BIG])["sections/" + BIG_SECTION]
    for opts in ("max_read=131072", "max_read=131072,direct_io=on", "max_read=4096"):
        # libfuse refused a mount whose INIT did not answer the same max_read
        with Mount(ck, big, ["-o", opts]) as m:
            path = os.path.join(m.path, "sections", BIG_SECTION)
            res = run(["cat", path])
            ck.ok(res.stdout == want, f"-o {opts}: cat of the big section")
            res = run(["dd", "if=" + path, "bs=1M"])
            ck.ok(res.stdout == want, f"-o {opts}: dd bs=1M of the big section")
    for bad in ("direct_io=maybe", "direct_io=", "iosize=1000", "iosize=2048",
                "iosize=33554432", "iosize=-4096", "iosize=4k", "max_read=1000",
                "max_read=268435456", "max_read=4k", "max_read="):
        res = subprocess.run([elffs_path(), "-f", "-o", bad, src.top, "/nonexistent"],
                             capture_output=True, text=True, timeout=20)
        key = bad.split("=")[0]
        ck.ok(res.returncode == 1 and key in res.stderr,
              f"-o {bad}: status {res.returncode}, stderr {res.stderr!r}")


def check_gdb_elf(ck, mode, src, mnt_bin):
    """gdb reads `elf` as a program (its symbols, its bytes at main): the
    same answers as for the source file."""
    argv = ["gdb", "-batch", "-nx", "-ex", "info address main", "-ex", "x/16xb main"]
    a, b = run(argv + [os.path.join(mnt_bin, "elf")]), run(argv + [src])
    ck.ok(a.returncode == 0 and a.stdout == b.stdout and b"main" in a.stdout,
          f"[{mode}] gdb of {mnt_bin}/elf: {a.stdout[-300:]!r} {a.stderr[-300:]!r} "
          f"(source: {b.stdout[-300:]!r})")


def main():
    require_fuse()
    ck = Checker("tools")
    for tool in ("objcopy", "readelf", "objdump", "xxd", "gdb", "tar", "cmp", "dd"):
        if not shutil.which(tool):
            ck.fail(f"{tool} is not installed")
    if ck.failures:
        ck.finish()
    with tempfile.TemporaryDirectory(prefix="elffs-tools-") as tmp:
        src = Source(tmp)
        src.build(ck)
        top = src.top
        try:
            for mode, args in MODES:
                with Mount(ck, top, args) as m:
                    for name, files in src.files.items():
                        mnt_bin = os.path.join(m.path, name)
                        oracle_bin = os.path.join(src.oracle, name)
                        for rel, want in files:
                            check_tools(ck, mode, mnt_bin, oracle_bin, rel, want)
                            ck.count("files")
                        check_tar(ck, mode, mnt_bin, files)
                        check_tools(ck, mode, mnt_bin, oracle_bin, "elf", src.whole[name])
                    bigsec = "sections/" + BIG_SECTION
                    want = dict(src.files[BIG])[bigsec]
                    check_both_ways(ck, mode, os.path.join(m.path, BIG, bigsec), want,
                                    direct_expected(mode, len(want)))
                    check_both_ways(ck, mode, os.path.join(m.path, BIG, "elf"), src.whole[BIG], False)
                    check_gdb(ck, mode, os.path.join(top, "exec"), os.path.join(m.path, "exec"))
                    check_gdb_elf(ck, mode, os.path.join(top, "exec"), os.path.join(m.path, "exec"))
                ck.count("mounts")
            mode, args = SPELLED
            with Mount(ck, top, args) as m:
                bigsec = "sections/" + BIG_SECTION
                check_both_ways(ck, mode, os.path.join(m.path, BIG, bigsec),
                                dict(src.files[BIG])[bigsec], direct_expected(mode, BIG_SIZE))
            ck.count("mounts")
            check_blksize(ck, src)
        except MountError as e:
            ck.fail(f"mount: {e}")
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
