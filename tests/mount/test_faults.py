#!/usr/bin/python3
"""Faults in SOURCE under active readers. For a bounded time per mode
(default and -o nommap; mounted with allow_other and -o timeout=0.2), four
reader threads open and read sections of the victims below, whole or at
random ranges, while the main thread loops over the faults:

- a large binary truncated at a random point, then restored;
- a binary rewritten in place with a same-layout variant (content bytes
  of .text, .rodata and .data changed, headers equal) and back;
- a binary replaced by rename with another binary, and back;
- a binary deleted and created again;
- a binary and a directory chmod'ed between readable and not readable to
  others (a reader running as nobody, through setpriv, checks EACCES);
- a directory replaced by a file (an ELF file or a text file) or by a
  dangling symlink, and back;
- a binary replaced by a FIFO and back.

Readers only ever see the right bytes (those of a version the source had
at that range; byte by byte for the in-place rewrite) or EIO/ENOENT; no
call takes more than 5 s; the daemon never dies. Static oddities sit beside
the victims: a sparse 8 GiB ELF with a section and a segment at its end
(read through the mount), names with newlines and non-UTF-8 bytes (bytes
paths), a FIFO, a socket and device nodes (1:3, 1:5, a block device) that
inotify shows nobody opens, and files or directories unreadable to nobody.
At the end every victim, restored, shows exactly its source again, and a
read of bytes cut off inside the last page of a truncated source gives EIO.
So does the first open of decompressed/<name> of a section whose compressed
bytes were cut inside that page (a zstd frame of raw blocks without a
checksum, as linkers write it, decompresses the page's zeros to the right
size), on a mount with a long timeout so the view is still the old one.

Then, per mode, a binary that keeps growing (a byte appended every 2 ms,
so its identity changes all the time) is opened and read by two threads
through a mount with -o timeout=0.01 for a few seconds: every open either
gives the binary's .text or fails with EIO or ENOENT; ESTALE (the kernel's
second try of an open that met a newer generation) must never reach them.

usage: test_faults.py [SECONDS_PER_MODE]   (default 15, or ELFFS_FAULTS_SECONDS)
"""

import collections
import ctypes
import errno
import json
import os
import random
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

import elf_oracle as oracle
from elffs_mount import NOBODY, Checker, Mount, MountError, fixture, require_fuse
from test_hostile import Walker

TIMEOUT = 0.2
READERS = 4
STEP_PAUSE = 0.02
READ_ERRORS = {errno.EIO, errno.ENOENT}
SPARSE_SIZE = 8 << 30
IN_OPEN, IN_ACCESS = 0x20, 0x01
SPECIALS = [b"fifo", b"sock", b"null", b"zero", b"blk"]
ODD_NAMES = [b"new\nline", b"bad\xff\xfename", b"d\n\xff/x\xff"]


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def sections_of(path):
    """{name: (offset, size)} of path's sections, from readelf (NOBITS: size 0)."""
    info = oracle.readelf([path])[path]
    names = oracle.section_file_names(info.sections)
    return {names[s.index]: (s.off, 0 if s.type == "NOBITS" else s.size)
            for s in info.sections if s.index}


def variant(data, secs):
    """data with the bytes of .text, .rodata and .data changed: same layout."""
    out = bytearray(data)
    for name in (".text", ".rodata", ".data"):
        off, size = secs[name]
        out[off:off + size] = bytes(b ^ 0x5A for b in out[off:off + size])
    return bytes(out)


class Target:
    """A file in the mount and the byte strings it may hold."""

    def __init__(self, path, cands, bytewise=False):
        self.path, self.cands, self.bytewise = path, cands, bytewise

    def whole_ok(self, data):
        if any(data == c for c in self.cands):
            return True
        return self.bytewise and self.mixed_ok(data, 0, len(self.cands[0]))

    def part_ok(self, data, off, want):
        """A read of want bytes at off: a prefix is fine (the kernel returns
        what came before an error of a later request of a large read)."""
        if len(data) > want or (not data and off < min(len(c) for c in self.cands)):
            return False
        if any(data == c[off:off + len(data)] for c in self.cands):
            return True
        return self.bytewise and self.mixed_ok(data, off, len(data))

    def mixed_ok(self, data, off, length):
        """Every byte is one of the candidates' bytes at that place."""
        if any(len(c) != len(self.cands[0]) or len(c) < off + length for c in self.cands) or \
                len(data) != length:
            return False
        for i in range(0, len(data), 256):
            blk = data[i:i + 256]
            if any(c[off + i:off + i + 256] == blk for c in self.cands):
                continue
            for j, b in enumerate(blk):
                if all(c[off + i + j] != b for c in self.cands):
                    return False
        return True


def sparse_elf(path):
    """An ELF64 file of 8 GiB, all hole but its headers and the last 4 KiB:
    section .end and a PT_LOAD of the last 8 KiB. Returns the tail bytes."""
    strtab = b"\0.shstrtab\0.end\0"
    tail = bytes((i * 7 + 3) & 0xFF for i in range(4096))
    eh = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9), 2, 62, 1, 0,
                     512, 64, 0, 64, 56, 1, 64, 3, 1)
    sh = bytes(64) + struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, 256, len(strtab), 0, 0, 1, 0)
    sh += struct.pack("<IIQQQQIIQQ", 11, 1, 2, 0, SPARSE_SIZE - 4096, 4096, 0, 0, 16, 0)
    ph = struct.pack("<IIQQQQQQ", 1, 4, SPARSE_SIZE - 8192, 0x400000, 0x400000, 8192, 8192,
                     4096)
    with open(path, "wb") as f:
        f.truncate(SPARSE_SIZE)
        for off, data in ((0, eh), (64, sh), (256, strtab), (512, ph),
                          (SPARSE_SIZE - 4096, tail)):
            f.seek(off)
            f.write(data)
    return tail


class Inotify:
    """IN_OPEN / IN_ACCESS events on the entries of one directory."""

    def __init__(self, path):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        self.wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), IN_OPEN | IN_ACCESS)

    def names(self):
        out = []
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                return out
            i = 0
            while i < len(buf):
                _, mask, _, n = struct.unpack_from("iIII", buf, i)
                out.append(buf[i + 16:i + 16 + n].rstrip(b"\0"))
                i += 16 + n

    def close(self):
        os.close(self.fd)


class Source:
    """The SOURCE tree: victims, their versions and the static oddities."""

    def __init__(self, root, stage, ck):
        self.root, self.stage, self.ck = root, stage, ck
        os.chmod(root, 0o755)
        self.exec, self.lib = read_bytes(fixture("exec")), read_bytes(fixture("libshared.so"))
        self.big = read_bytes(fixture("s390x-libc.so.6"))
        self.exec_secs, self.lib_secs = sections_of(fixture("exec")), sections_of(
            fixture("libshared.so"))
        self.big_secs = sections_of(fixture("s390x-libc.so.6"))
        self.exec_b = variant(self.exec, self.exec_secs)
        self.state = {}
        for name, data in (("inplace", self.exec), ("renamed", self.exec), ("deleted", self.lib),
                           ("chmod", self.exec), ("flip", self.exec), ("trunc", self.big),
                           ("pub", self.exec), ("priv", self.exec)):
            self.write(name, data)
        os.chmod(self.p("priv"), 0o600)
        for d, mode in (("swap", 0o755), ("cdir", 0o755), ("closed", 0o700)):
            os.mkdir(self.p(d), mode)
            self.write(f"{d}/bin", self.exec)
        self.decoy = os.path.join(stage, "no-such-dir")
        self.specials()
        self.odd_names()
        self.sparse_tail = sparse_elf(self.p("sparse8g"))

    def p(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, data, mode=0o644):
        with open(self.p(rel), "wb") as f:
            f.write(data)
        os.chmod(self.p(rel), mode)

    def specials(self):
        d = self.p("special")
        os.mkdir(d)
        os.mkfifo(os.path.join(d, "fifo"))
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(d, "sock"))
        s.close()
        for name, kind, dev in (("null", stat.S_IFCHR, (1, 3)), ("zero", stat.S_IFCHR, (1, 5)),
                                ("blk", stat.S_IFBLK, (7, 200))):
            try:
                os.mknod(os.path.join(d, name), 0o666 | kind, os.makedev(*dev))
            except OSError as e:
                print(f"NOTE: mknod {name}: {e.strerror}: no such node in SOURCE", flush=True)

    def odd_names(self):
        d = os.fsencode(self.p("names"))
        os.mkdir(d)
        os.mkdir(os.path.join(d, b"d\n\xff"))
        for name in ODD_NAMES:
            with open(os.path.join(d, name), "wb") as f:
                f.write(self.exec)

    def targets(self, mnt):
        """Reader targets of the root reader."""
        m = os.fsencode(mnt)
        out = []

        def add(rel, versions, names, bytewise=False):
            for name in names:
                cands = [data[off:off + size] for data, secs in versions
                         for off, size in [secs[name]]]
                out.append(Target(os.path.join(m, os.fsencode(rel), b"sections",
                                               os.fsencode(name)), cands, bytewise))

        hot = [".text", ".rodata", ".data", ".comment", ".dynsym", ".symtab"]
        ex, ex_b, lib = (self.exec, self.exec_secs), (self.exec_b, self.exec_secs), (
            self.lib, self.lib_secs)
        common = [n for n in hot if n in self.lib_secs]
        add("inplace", [ex, ex_b], hot, bytewise=True)
        add("renamed", [ex, lib], common)
        add("deleted", [lib], common)
        add("chmod", [ex], hot)
        add("flip", [ex], hot)
        add("trunc", [(self.big, self.big_secs)], [".text", ".rodata", ".data", ".dynsym"])
        add("swap/bin", [ex], hot[:3])
        add("swap", [ex], hot[:3])
        add("cdir/bin", [ex], hot[:3])
        for name in ODD_NAMES:
            add(os.fsdecode(b"names/" + name), [ex], hot[:2])
        out.append(Target(os.path.join(m, b"sparse8g/sections/.end"), [self.sparse_tail]))
        out.append(Target(os.path.join(m, b"sparse8g/segments/00-LOAD"),
                          [bytes(4096) + self.sparse_tail]))
        return out


class Faults:
    """The fault loop: each step flips one victim between two states."""

    def __init__(self, src, rng):
        self.s, self.rng, self.flip = src, rng, {}
        self.steps = [self.truncate, self.rewrite, self.rename, self.delete, self.chmod,
                      self.dirswap, self.fifo]

    def toggle(self, key):
        self.flip[key] = not self.flip.get(key, False)
        return self.flip[key]

    def truncate(self):
        s, cut = self.s, self.rng.randrange(len(self.s.big))
        os.truncate(s.p("trunc"), cut)
        time.sleep(STEP_PAUSE)
        with open(s.p("trunc"), "r+b") as f:
            f.seek(cut)
            f.write(s.big[cut:])

    def rewrite(self):
        with open(self.s.p("inplace"), "r+b") as f:
            f.write(self.s.exec_b if self.toggle("inplace") else self.s.exec)

    def rename(self):
        data = self.s.lib if self.toggle("renamed") else self.s.exec
        tmp = os.path.join(self.s.stage, "renamed")
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, self.s.p("renamed"))

    def delete(self):
        if self.toggle("deleted"):
            os.unlink(self.s.p("deleted"))
        else:
            self.s.write("deleted", self.s.lib)

    def chmod(self):
        closed = self.toggle("chmod")
        os.chmod(self.s.p("chmod"), 0o600 if closed else 0o644)
        os.chmod(self.s.p("cdir"), 0o700 if closed else 0o755)

    def dirswap(self):
        """swap/ becomes an ELF file, a text file or a dangling symlink (the
        kernel follows symlinks of the mount: one that led somewhere would
        give that place's errors), and back."""
        s, aside = self.s, os.path.join(self.s.stage, "swap")
        if self.toggle("swap"):
            os.rename(s.p("swap"), aside)
            kind = self.rng.choice(["elf", "text", "link"])
            if kind == "link":
                os.symlink(s.decoy, s.p("swap"))
            else:
                s.write("swap", s.exec if kind == "elf" else b"just text\n")
        else:
            os.unlink(s.p("swap"))
            os.rename(aside, s.p("swap"))

    def fifo(self):
        os.unlink(self.s.p("flip"))
        if self.toggle("flip"):
            os.mkfifo(self.s.p("flip"))
        else:
            self.s.write("flip", self.s.exec)

    def restore(self):
        for key in list(self.flip):
            if self.flip[key]:
                {"inplace": self.rewrite, "renamed": self.rename, "deleted": self.delete,
                 "chmod": self.chmod, "swap": self.dirswap, "flip": self.fifo}[key]()


def reader(ck, w, targets, stop, seed, stats):
    rng = random.Random(seed)
    while not stop.is_set() and not w.dead:
        t = rng.choice(targets)
        if rng.random() < 0.7:
            data, err = w.read_all(t.path)
            if data is not None and not t.whole_ok(data):
                ck.fail(f"{t.path}: wrong bytes: {describe(data, t.cands)}")
                stats["mismatches"] += 1
        else:
            data, err = read_range(w, t, rng)
        stats["reads" if err is None else "errors"] += 1
        stats["bytes"] += len(data or b"")


def describe(data, cands):
    """Where data differs from the candidate of its length."""
    same = [c for c in cands if len(c) == len(data)]
    if not same:
        return f"{len(data)} bytes, want one of {sorted(len(c) for c in cands)}"
    c = same[0]
    diff = [i for i in range(len(data)) if data[i] != c[i]]
    zeros = sum(1 for i in diff if data[i] == 0)
    return (f"{len(data)} bytes, {len(diff)} differ in [{diff[0]:#x}, {diff[-1]:#x}], "
            f"{zeros} of them zero")


def read_range(w, t, rng):
    fd, err = w.call(f"open {t.path}", os.open, t.path, os.O_RDONLY)
    if fd is None:
        return None, err
    try:
        size = max(len(c) for c in t.cands)
        off, want = rng.randrange(size + 1), rng.choice([1, 100, 4096, 65536, 300000])
        data, err = w.call(f"pread {t.path} {want}@{off}", os.pread, fd, want, off)
        if data is not None:
            if not t.part_ok(data, off, want):
                w.ck.fail(f"{t.path}: wrong bytes in {want}@{off}: "
                          f"{describe(data, [c[off:off + want] for c in t.cands])}")
        return data, err
    finally:
        os.close(fd)


NOBODY_SCRIPT = r"""
import errno, json, os, sys, time
spec = json.loads(sys.argv[1])
end = time.monotonic() + spec["seconds"]
out = {"ok": 0, "eacces": 0, "other": 0, "failures": [], "slowest": 0.0}
def fail(msg):
    if len(out["failures"]) < 20:
        out["failures"].append(msg)
while time.monotonic() < end:
    for t in spec["targets"]:
        path, started = bytes.fromhex(t["path"]), time.monotonic()
        try:
            if t["want"] is None:
                os.listdir(path)
                got = None
            else:
                with open(path, "rb") as f:
                    got = f.read()
            res = "ok"
        except OSError as e:
            res = "eacces" if e.errno == errno.EACCES else errno.errorcode.get(e.errno, "?")
        out["slowest"] = max(out["slowest"], time.monotonic() - started)
        if res == "ok" and t["want"] is not None and got != bytes.fromhex(t["want"]):
            fail(f"{path}: wrong bytes as nobody")
        if res not in t["allowed"]:
            fail(f"{path}: {res} as nobody, want one of {t['allowed']}")
        out[res if res in ("ok", "eacces") else "other"] += 1
print(json.dumps(out))
"""


def start_nobody(src, mnt, seconds):
    off, size = src.exec_secs[".text"]
    text = src.exec[off:off + size].hex()

    def t(rel, want, allowed):
        return {"path": os.fsencode(os.path.join(mnt, rel)).hex(), "want": want,
                "allowed": allowed}

    spec = {"seconds": seconds, "targets": [
        t("pub/sections/.text", text, ["ok"]),
        # priv is a binary nobody may not read: absent for nobody (ENOENT),
        # or EACCES by its mode bits when the kernel has its entry cached
        t("priv/sections/.text", text, ["eacces", "ENOENT"]),
        t("priv", None, ["eacces", "ENOENT"]),
        t("closed/bin/sections/.text", text, ["eacces"]),
        t("closed", None, ["eacces"]),
        t("chmod/sections/.text", text, ["ok", "eacces", "EIO", "ENOENT"]),
        t("cdir/bin/sections/.text", text, ["ok", "eacces", "EIO", "ENOENT"]),
        t("cdir", None, ["ok", "eacces", "EIO", "ENOENT"])]}
    proc = subprocess.Popen(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                             "--clear-groups", sys.executable, "-c", NOBODY_SCRIPT,
                             json.dumps(spec)], stdout=subprocess.PIPE, text=True)
    return proc


def finish_nobody(ck, proc, seconds):
    try:
        out = proc.communicate(timeout=seconds + 60)[0]
        res = json.loads(out)
    except (subprocess.TimeoutExpired, ValueError) as e:
        proc.kill()
        ck.fail(f"reader as nobody: {e}")
        return
    for msg in res["failures"]:
        ck.fail(msg)
    ck.ok(res["slowest"] < 5, f"reader as nobody: a call took {res['slowest']:.1f} s")
    ck.ok(res["ok"] > 0 and res["eacces"] > 0, f"reader as nobody: {res}")
    ck.count("nobody_reads", res["ok"])
    ck.count("nobody_eacces", res["eacces"])


def check_statics(ck, w, src, mnt):
    """Specials left out (and never opened), odd names, the sparse file."""
    m = os.fsencode(mnt)
    listing, _ = w.call("listdir special/", os.listdir, os.path.join(m, b"special"))
    ck.eq(listing, [], "special/ in the mount")
    for name in SPECIALS:
        _, err = w.call(f"lstat special/{name}", os.lstat, os.path.join(m, b"special", name))
        ck.eq(err, errno.ENOENT, f"lstat special/{name!r} in the mount")
    got, _ = w.call("listdir names/", os.listdir, os.path.join(m, b"names"))
    ck.eq(sorted(got or []), sorted([b"new\nline", b"bad\xff\xfename", b"d\n\xff"]),
          "names/ listing (bytes)")
    got, _ = w.call("listdir names/d", os.listdir, os.path.join(m, b"names", b"d\n\xff"))
    ck.eq(got, [b"x\xff"], "names/d\\n\\xff listing")
    st, _ = w.call("stat sparse8g/sections/.end", os.stat,
                   os.path.join(m, b"sparse8g/sections/.end"))
    ck.eq(st and st.st_size, 4096, "sparse8g/sections/.end size")
    fd = os.open(os.path.join(m, b"sparse8g/segments/00-LOAD"), os.O_RDONLY)
    try:
        ck.eq(os.pread(fd, 8192, 0), bytes(4096) + src.sparse_tail, "sparse8g segment bytes")
        ck.count("sparse_bytes", 8192)
    finally:
        os.close(fd)


def check_cut_page(ck, w, src, mnt, mode):
    """A file truncated inside a page under an open reader: the bytes past
    the new end, in that last page too, give EIO (not the page's zeros)."""
    path = src.p("cut")
    src.write("cut", src.big)
    off, size = src.big_secs[".text"]
    time.sleep(TIMEOUT + 0.3)
    fd, _ = w.call("open cut/sections/.text", os.open,
                   os.path.join(mnt, "cut/sections/.text"), os.O_RDONLY)
    if fd is None:
        ck.fail("cut/sections/.text cannot be opened")
        return
    try:
        end = ((off + size // 2) & ~4095) + 100  # 100 bytes into a page of .text
        os.truncate(path, end)
        for rel, n in ((end - off + 10, 50), (end - off - 10, 50)):
            data, err = w.call(f"pread cut/sections/.text {n}@{rel}", os.pread, fd, n, rel)
            ck.ok(err == errno.EIO, f"{mode}: {n} bytes at {rel} of .text, past the new end "
                                    f"{end:#x} inside its page: {len(data or b'')} bytes "
                                    f"({(data or b'').count(0)} zero), want EIO")
    finally:
        os.close(fd)
        os.unlink(path)


def zstd_raw(data):
    """A zstd frame of data in one raw block, with its size and no checksum."""
    assert len(data) < 1 << 17
    return struct.pack("<IBI", 0xFD2FB528, 0xA0, len(data)) + \
        struct.pack("<I", 1 | len(data) << 3)[:3] + data


def zstd_tail_elf(payload):
    """An ET_REL whose last bytes are one SHF_COMPRESSED (zstd) section."""
    shstr = b"\0.zst\0.shstrtab\0"
    body = struct.pack("<IIQQ", 2, 0, len(payload), 1) + zstd_raw(payload)
    shoff = 64 + 8 * ((len(shstr) + 7) // 8)
    sec_off = shoff + 3 * 64
    shdrs = bytes(64) + struct.pack("<IIQQQQIIQQ", 1, 1, 0x800, 0, sec_off, len(body), 0, 0,
                                    8, 0) + \
        struct.pack("<IIQQQQIIQQ", 6, 3, 0, 0, 64, len(shstr), 0, 0, 1, 0)
    ehdr = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack(
        "<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 2)
    return ehdr + shstr.ljust(shoff - 64, b"\0") + shdrs + body


def check_cut_decompressed(ck, mode_args):
    """The compressed bytes of a section cut off inside the last page of its
    source between the lookup of decompressed/.zst and its first open: the
    open (or read) gives EIO, never the page's zeros decompressed."""
    mode = " ".join(mode_args) or "mmap"
    root = tempfile.mkdtemp(prefix="elffs-cutz-")
    try:
        payload = random.Random(11).randbytes(8192)
        data = zstd_tail_elf(payload)
        path = os.path.join(root, "z.o")
        with open(path, "wb") as f:
            f.write(data)
        end = len(data) - 100
        ck.ok(end // 4096 == (len(data) - 1) // 4096, f"{mode}: cut not inside the last page")
        with Mount(ck, root, ["-o", "timeout=600"] + mode_args) as m:
            dec = os.path.join(m.path, "z.o", "decompressed", ".zst")
            st = os.stat(dec)
            ck.eq(st.st_size, len(payload), f"{mode}: decompressed/.zst size")
            os.truncate(path, end)
            got, err = None, None
            try:
                with open(dec, "rb") as f:
                    got = f.read()
            except OSError as e:
                err = e.errno
            ck.ok(err in (errno.EIO, errno.ENOENT),
                  f"{mode}: decompressed/.zst of a source cut inside its last page: "
                  f"{'error ' + errno.errorcode[err] if err else f'{len(got)} bytes'}, "
                  f"{'equal to' if got == payload else 'unlike'} the payload "
                  f"({(got or b'')[-100:].count(0)} of its last 100 zero), want EIO")
    except MountError as e:
        ck.fail(str(e))
    finally:
        shutil.rmtree(root)


def check_final(ck, src, mnt):
    """Every victim, restored, shows exactly its source."""
    for rel in ("inplace", "renamed", "deleted", "chmod", "flip", "trunc", "swap/bin",
                "cdir/bin", "pub"):
        path = src.p(rel)
        info = oracle.readelf([path])[path]
        fd = os.open(path, os.O_RDONLY)
        try:
            for f, off, size, _ in oracle.expected_files(info, os.path.getsize(path)):
                err = oracle.compare_file(os.path.join(mnt, rel, f), fd, off, size)
                ck.ok(err is None, f"{rel}/{f} after the faults: {err}")
                ck.count("final_files")
        finally:
            os.close(fd)


GROW_SECONDS = 4.0


def grower(path, stop):
    with open(path, "ab", buffering=0) as f:
        while not stop.is_set():
            f.write(b"\0")
            time.sleep(0.002)


def grow_reader(w, path, want, stop, stats):
    while not stop.is_set() and not w.dead:
        data, err = w.read_all(path)
        if data is not None and data != want:
            w.ck.fail(f"{path}: wrong bytes ({len(data)} bytes, want {len(want)})")
        stats["opens"] += 1
        if err is not None:
            stats[errno.errorcode.get(err, str(err))] += 1


def run_grower(ck, args):
    """Opens of a binary whose identity changes every 2 ms: no ESTALE."""
    root = tempfile.mkdtemp(prefix="elffs-grow-")
    try:
        path = os.path.join(root, "grow")
        shutil.copyfile(fixture("pie"), path)
        text = [x for x in oracle.readelf([path])[path].sections if x.name == ".text"][0]
        with open(path, "rb") as f:
            want = os.pread(f.fileno(), text.size, text.off)
        with Mount(ck, root, ["-o", "timeout=0.01"] + args) as m:
            w = Walker(ck, m.path, m.proc.pid)
            w.allowed = READ_ERRORS
            stop, stats = threading.Event(), collections.Counter()
            threads = [threading.Thread(target=grower, args=(path, stop))]
            threads += [threading.Thread(target=grow_reader,
                                         args=(w, os.path.join(m.path, "grow/sections/.text"),
                                               want, stop, stats)) for _ in range(2)]
            for t in threads:
                t.start()
            time.sleep(GROW_SECONDS)
            stop.set()
            for t in threads:
                t.join()
            w.stop()
            ck.ok(m.alive(), f"daemon died under the grower ({args or 'mmap'})")
            ck.ok(stats["opens"] >= 50, f"only {stats['opens']} opens of the growing binary")
            ck.count("grow_opens", stats["opens"])
            print(f"mode {args or 'mmap'}: growing binary: {dict(stats)}", flush=True)
    except MountError as e:
        ck.fail(str(e))
    finally:
        shutil.rmtree(root)


def run_mode(ck, args, seconds):
    root, stage = tempfile.mkdtemp(prefix="elffs-faults-"), tempfile.mkdtemp(prefix="elffs-st-")
    try:
        src = Source(root, stage, ck)
        ino = Inotify(src.p("special"))
        with Mount(ck, root, ["-o", f"allow_other,timeout={TIMEOUT}"] + args) as m:
            w = Walker(ck, m.path, m.proc.pid)
            w.allowed = READ_ERRORS
            stats = {"reads": 0, "errors": 0, "bytes": 0, "mismatches": 0}
            stop = threading.Event()
            threads = [threading.Thread(target=reader, args=(ck, w, src.targets(m.path), stop,
                                                             k, stats)) for k in range(READERS)]
            nobody = start_nobody(src, m.path, seconds)
            for t in threads:
                t.start()
            faults, loops, end = Faults(src, random.Random(7)), 0, time.monotonic() + seconds
            try:
                while time.monotonic() < end and m.alive() and not w.dead:
                    for step in faults.steps:
                        step()
                        time.sleep(STEP_PAUSE)
                    loops += 1
                    if loops % 25 == 0:
                        check_statics(ck, w, src, m.path)
            finally:
                stop.set()
                for t in threads:
                    t.join()
                finish_nobody(ck, nobody, seconds)
            faults.restore()
            ck.ok(m.alive(), f"daemon died during the faults ({args or 'mmap'})")
            time.sleep(TIMEOUT + 0.5)
            check_statics(ck, w, src, m.path)
            check_final(ck, src, m.path)
            check_cut_page(ck, w, src, m.path, " ".join(args) or "mmap")
            w.stop()
            opened = [n for n in ino.names() if n in SPECIALS]
            ck.ok(not opened, f"special files opened in SOURCE: {sorted(set(opened))}")
            ino.close()
            ck.count("fault_loops", loops)
            for k, v in stats.items():
                ck.count("reader_" + k, v)
            print(f"mode {args or 'mmap'}: {loops} fault loops, readers {stats}, errors "
                  f"{dict(w.errors)}, slowest call {w.slowest[0]:.2f} s", flush=True)
    except MountError as e:
        ck.fail(str(e))
    finally:
        shutil.rmtree(root)
        shutil.rmtree(stage)


def main():
    require_fuse()
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    seconds = float(args[0] if args else os.environ.get("ELFFS_FAULTS_SECONDS", "15"))
    ck = Checker("faults")
    for mode in ([], ["-o", "nommap"]):
        run_mode(ck, mode, seconds)
        run_grower(ck, mode)
        check_cut_decompressed(ck, mode)
    ck.ok(ck.counts.get("fault_loops", 0) >= 10, "fewer than 10 fault loops ran")
    ck.ok(ck.counts.get("reader_reads", 0) >= 100, "fewer than 100 reads succeeded")
    ck.finish()


if __name__ == "__main__":
    main()
