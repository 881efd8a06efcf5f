#!/usr/bin/python3
"""Hostile files through the mount. tests/fixtures/mutants.py writes 500+
deterministic mutants of real ELF files (executables, shared libraries,
objects with many and duplicate sections, a core file, big-endian and
32-bit files, a file without section headers) into a temporary SOURCE;
this test mounts it and walks everything: lstat, readdir, every file read
to its end, listxattr and getxattr of every name (and of a missing one),
readlink of the symlinks beside the mutants. It checks that

- the daemon stays alive and the mount answers to the end;
- no operation takes more than 5 s (a watchdog thread times every call
  in flight; past 30 s it aborts the FUSE connection so the test ends);
- every error is EIO, EINVAL or ENOENT (ENODATA for xattrs);
- what each view holds follows from the mutant's bytes, as the test's own
  struct parse of the headers says under SPEC and the documented pfelf
  rules (a bad ELF header, the fields that give the layout of the rest
  (EI_VERSION, e_version and e_ehsize do not): elf, header when its
  e_ehsize bytes lie in the file, and info with one error line, nothing
  else, and user.elffs.refused on the directory says why; a section or program header
  table outside the file or with too small entries: no files; one file
  per entry otherwise, by its user.elf.index; sizes and bytes; section
  file names by SPEC's rules when the name table is sane): every section
  and segment whose range is in the file holds exactly the source's bytes
  (os.pread of the mutant) at the offset and size readelf -hSlW prints,
  or, when readelf cannot parse the table, that the struct parse gives.

usage: test_hostile.py [--nommap]
"""

import collections
import errno
import os
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import elf_oracle as oracle
from elffs_mount import Checker, Mount, MountError, abort_connection, fixtures_dir, require_fuse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import mutants  # noqa: E402

OP_LIMIT = 5.0  # seconds, per operation
ABORT_AFTER = 30.0  # a call in flight this long: abort the connection
ALLOWED = {errno.EIO, errno.EINVAL, errno.ENOENT}
XATTR_ALLOWED = ALLOWED | {errno.ENODATA}
WORKERS = 4
MAX_FILES_PER_DIR = 3000  # beyond this, a deterministic sample is read
MAX_META_FILES = 64  # the same for directories other than sections/ and segments/
CHUNK = 128 * 1024
SHT_NOBITS = 8
MAX_NAME_TABLE = 64 << 20

Sec = collections.namedtuple("Sec", "type off size link info name_off")
Seg = collections.namedtuple("Seg", "type off filesz")


class Expect:
    """What the view of one mutant must be, from its bytes alone."""

    def __init__(self, data):
        self.size = len(data)
        self.listed = len(data) >= 4 and data[:4] == b"\x7fELF"
        self.header_ok = False
        self.ehsize = 0
        self.raw_ehsize = 0  # a refused header's `header`: e_ehsize, when it is in the file
        self.sections = {}  # index (1..n-1) -> Sec; empty: no section files
        self.segments = {}  # index -> Seg
        self.names = None  # index -> SPEC file name, when the name table is sane
        self.table_errors = []
        self.readelf_sections = self.readelf_segments = False
        if self.listed:
            self._parse(data)

    def _parse(self, data):
        size = len(data)
        # EI_VERSION, e_version and e_ehsize do not count (readelf reads such
        # files): only what gives the layout of the rest
        if size < 16 or data[4] not in (1, 2) or data[5] not in (1, 2):
            return
        is64, end = data[4] == 2, "<" if data[5] == 1 else ">"
        if size < (64 if is64 else 52):
            return
        (_, _, _, _, phoff, shoff, _, ehsize, phentsize, phnum, shentsize, shnum,
         shstrndx) = struct.unpack_from(end + ("HHIQQQIHHHHHH" if is64 else "HHIIIIIHHHHHH"),
                                        data, 16)
        self.raw_ehsize = ehsize if ehsize <= size else 0
        shesz, phesz = (64, 56) if is64 else (40, 32)
        shfmt = end + ("IIQQQQIIQQ" if is64 else "IIIIIIIIII")
        if shoff == 0:
            if phnum == 0xFFFF:
                return  # PN_XNUM without section 0
            shnum = shstrndx = 0
        elif shnum == 0 or shstrndx == 0xFFFF or phnum == 0xFFFF:
            if shentsize < shesz or shoff + shesz > size:
                return  # extended numbering needs section header 0
            s0 = struct.unpack_from(shfmt, data, shoff)
            if shnum == 0:
                if s0[5] > 0x7FFFFFFF:
                    return
                shnum = s0[5]
            shstrndx = s0[6] if shstrndx == 0xFFFF else shstrndx
            phnum = s0[7] if phnum == 0xFFFF else phnum
        # `header` is e_ehsize bytes, none when they run past the end
        self.header_ok, self.ehsize = True, ehsize if ehsize <= size else 0
        # readelf steps through a table by the class's entry size whatever
        # e_shentsize / e_phentsize say: it is an oracle only where they agree
        self.readelf_sections, self.readelf_segments = shentsize == shesz, phentsize == phesz
        if shnum and (shentsize < shesz or shoff + shnum * shentsize > size):
            self.table_errors.append("sections")
        elif shnum:
            raw = [struct.unpack_from(shfmt, data, shoff + i * shentsize) for i in range(shnum)]
            self.sections = {i: Sec(r[1], r[4], r[5], r[6], r[7], r[0])
                             for i, r in enumerate(raw) if i}
            self._names(data, raw, shstrndx)
        phfmt = end + ("IIQQQQQQ" if is64 else "IIIIIIII")
        if phnum and (phentsize < phesz or phoff + phnum * phentsize > size):
            self.table_errors.append("segments")
        elif phnum:
            for i in range(phnum):
                r = struct.unpack_from(phfmt, data, phoff + i * phentsize)
                self.segments[i] = Seg(r[0], r[2], r[5]) if is64 else Seg(r[0], r[1], r[4])

    def _names(self, data, raw, k):
        tab = b""
        if 0 < k < len(raw):
            t = Sec(raw[k][1], raw[k][4], raw[k][5], 0, 0, 0)
            if (t.type != SHT_NOBITS and 0 < t.size <= MAX_NAME_TABLE
                    and t.off + t.size <= len(data)):
                tab = data[t.off:t.off + t.size]
        raw = {}
        for i, s in self.sections.items():
            nul = tab.find(b"\0", s.name_off) if s.name_off < len(tab) else -1
            raw[i] = tab[s.name_off:nul] if nul >= 0 else b""
        names = spec_names(raw)
        if len(set(names.values())) == len(names):  # SPEC's rules give distinct names
            self.names = {i: os.fsdecode(n) for i, n in names.items()}

    def section_len(self, s):
        return 0 if s.type == SHT_NOBITS or s.off + s.size > self.size else s.size

    def segment_len(self, p):
        return 0 if p.off + p.filesz > self.size else p.filesz


def spec_names(raw):
    """SPEC's file names {index: bytes} of sections {index: raw name bytes}."""
    first, out = {}, {}
    for i in sorted(raw):
        first.setdefault(raw[i], i)
    for i, name in raw.items():
        if name in (b"", b".", b"..") or b"/" in name or len(name) > 200:
            out[i] = name[:200].replace(b"/", b"_") + b"~%d" % i
        elif first[name] != i:
            out[i] = name + b"~%d" % i
        else:
            out[i] = name
    return out


def readelf_ranges(path):
    """{index: (offset, size, is NOBITS)} of the sections and {index: (offset,
    filesz)} of the segments readelf -hSlW prints, or (None, None)."""
    try:
        out = subprocess.run(["readelf", "-hSlW", path], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30,
                             env=dict(os.environ, LC_ALL="C")).stdout
    except subprocess.TimeoutExpired:
        return None, None
    info = oracle._parse_one(path, out.decode("utf-8", "surrogateescape"))
    secs = {s.index: (s.off, s.size, s.type == "NOBITS") for s in info.sections if s.index}
    segs = {p.index: (p.off, p.filesz) for p in info.segments}
    return secs or None, segs or None


class Walker:
    """Runs filesystem calls under a watchdog; counts errors by errno."""

    def __init__(self, ck, mnt, pid=None):
        self.ck, self.mnt, self.pid = ck, mnt, pid
        self.lock = threading.Lock()
        self.inflight = {}
        self.errors = collections.Counter()
        self.bad = collections.Counter()  # (call, errno) -> unexpected errors
        self.ops = 0
        self.slowest = (0.0, "")
        self.dead = False
        self.allowed = ALLOWED  # errnos a call may fail with unless it says otherwise
        self.done = threading.Event()
        self.conn = os.minor(os.stat(mnt).st_dev)
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self):
        aborted = False
        while not self.done.wait(0.25):
            now = time.monotonic()
            with self.lock:
                late = [e for e in self.inflight.values() if now - e[1] > OP_LIMIT]
            for e in late:
                if not e[2]:
                    e[2] = True
                    self.ck.fail(f"{e[0]}: no answer within {OP_LIMIT:.0f} s")
                if now - e[1] > ABORT_AFTER and not aborted:
                    aborted = True
                    self.ck.fail(f"{e[0]}: hung for {ABORT_AFTER:.0f} s, aborting the mount")
                    self.abort()

    def abort(self):
        """Abort the FUSE connection (fusectl, mounted if need be), else kill
        the daemon: the calls in flight then fail with ENOTCONN."""
        if abort_connection(self.conn):
            return
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)

    def call(self, what, fn, *args, allowed=None):
        """(result, None) or (None, errno); a disallowed errno is a failure."""
        allowed = self.allowed if allowed is None else allowed
        entry = [what, time.monotonic(), False]
        tid = threading.get_ident()
        with self.lock:
            self.inflight[tid] = entry
        try:
            return fn(*args), None
        except OSError as e:
            self.errors[errno.errorcode.get(e.errno, str(e.errno))] += 1
            if e.errno in (errno.ENOTCONN, errno.ECONNABORTED):
                if not self.dead:
                    self.ck.fail(f"{what}: {errno.errorcode[e.errno]}: the daemon is gone")
                self.dead = True
            elif e.errno not in allowed:
                self.unexpected(what, e.errno)
            return None, e.errno
        finally:
            took = time.monotonic() - entry[1]
            with self.lock:
                del self.inflight[tid]
                self.ops += 1
                if took > self.slowest[0]:
                    self.slowest = (took, what)
            if took > OP_LIMIT and not entry[2]:
                self.ck.fail(f"{what}: took {took:.1f} s")

    def unexpected(self, what, err):
        """A failure; only the first few of each call and errno are printed."""
        key = (what.split()[0], errno.errorcode.get(err, str(err)))
        with self.lock:
            self.bad[key] += 1
            n = self.bad[key]
        if n <= 3:
            self.ck.fail(f"{what}: unexpected errno {key[1]}" + (" (more not shown)" if n == 3
                                                                 else ""))
        self.ck.count("unexpected_errors")

    def stop(self):
        self.done.set()
        self.thread.join()

    def read_all(self, path):
        fd, err = self.call(f"open {path}", os.open, path, os.O_RDONLY)
        if fd is None:
            return None, err
        parts = []
        try:
            while True:
                got, err = self.call(f"read {path}", os.read, fd, CHUNK)
                if got is None:
                    return None, err
                if not got:
                    return b"".join(parts), None
                parts.append(got)
        finally:
            os.close(fd)

    def xattrs(self, path):
        names, _ = self.call(f"listxattr {path}", os.listxattr, path, allowed=XATTR_ALLOWED)
        values = {}
        for name in names or []:
            v, _ = self.call(f"getxattr {path} {name}", os.getxattr, path, name,
                             allowed=XATTR_ALLOWED)
            if v is not None:
                values[name[len("user.elf."):]] = v.decode("utf-8", "replace")
        _, err = self.call(f"getxattr {path} user.elf.nope", os.getxattr, path,
                           "user.elf.nope", allowed=XATTR_ALLOWED)
        self.ck.ok(err is not None, f"{path}: getxattr of a missing name succeeded")
        return values


class MutantCheck:
    """Walks one mutant's view and checks it against its Expect."""

    def __init__(self, ck, w, src, view, exp, rdelf):
        self.ck, self.w, self.src, self.view, self.exp = ck, w, src, view, exp
        self.rsec, self.rseg = rdelf
        self.files = {}  # path inside the view -> (xattrs, bytes or None)

    def walk(self):
        st, err = self.w.call(f"lstat {self.view}", os.lstat, self.view)
        if not self.exp.listed:
            self.ck.ok(err == errno.ENOENT, f"{self.view}: not ELF by its magic but shown")
            return
        if not self.ck.ok(st is not None and stat.S_ISDIR(st.st_mode),
                          f"{self.view}: ELF by its magic but no directory ({err})"):
            return
        self.check_refused()
        self.visit_dir("")
        self.check()

    def check_refused(self):
        """user.elffs.refused of the directory: a reason exactly when the
        header is refused (elffs(1), INFO)."""
        why, err = self.w.call(f"getxattr {self.view} user.elffs.refused", os.getxattr,
                               self.view, "user.elffs.refused", allowed=XATTR_ALLOWED)
        if self.exp.header_ok:
            self.ck.ok(err == errno.ENODATA, f"{self.view}: accepted header, yet "
                                             f"user.elffs.refused {why!r} ({err})")
        elif self.ck.ok(why, f"{self.view}: refused header without user.elffs.refused ({err})"):
            self.ck.count("refusals_explained")

    def visit_dir(self, rel):
        path = os.path.join(self.view, rel)
        names, _ = self.w.call(f"listdir {path}", os.listdir, path)
        names = sorted(names or [])
        most = MAX_FILES_PER_DIR if rel in ("", "sections", "segments") else MAX_META_FILES
        if len(names) > most:
            self.ck.count("sampled_dirs")
            names = names[::len(names) // most + 1]
        for name in names:
            child = os.path.join(rel, name)
            st, _ = self.w.call(f"lstat {self.view}/{child}", os.lstat,
                                os.path.join(self.view, child))
            if st is None:
                continue
            if stat.S_ISDIR(st.st_mode):
                self.visit_dir(child)
            elif stat.S_ISREG(st.st_mode):
                self.visit_file(child, st)
            else:
                self.ck.fail(f"{self.view}/{child}: unexpected node type {oct(st.st_mode)}")

    def visit_file(self, rel, st):
        path = os.path.join(self.view, rel)
        xattrs = self.w.xattrs(path)
        data, _ = self.w.read_all(path)
        if data is not None:
            self.ck.ok(len(data) == st.st_size, f"{path}: read {len(data)} bytes, st_size "
                                                f"{st.st_size}")
            self.ck.count("files_read")
            self.ck.count("bytes_read", len(data))
        self.files[rel] = (xattrs, data)

    def same_bytes(self, path, data, off, length):
        if data is None:
            return
        fd = os.open(self.src, os.O_RDONLY)
        try:
            want = os.pread(fd, length, off) if length else b""
        finally:
            os.close(fd)
        if self.ck.ok(data == want, f"{path}: {len(data)} bytes differ from the {length} "
                                    f"source bytes at {off:#x}"):
            self.ck.count("bytes_compared", length)

    def check(self):
        exp, got = self.exp, self.files
        entries = {k: v for k, v in got.items() if "/" in k}
        if not exp.header_ok:
            self.check_refused_view(got)
            return
        for name in ("header", "info"):
            self.ck.ok(got.get(name, (0, None))[1] is not None, f"{self.view}/{name}: unread")
        self.same_bytes(f"{self.view}/header", got.get("header", (0, None))[1], 0, exp.ehsize)
        self.check_sections({k[9:]: v for k, v in entries.items() if k.startswith("sections/")})
        self.check_segments({k[9:]: v for k, v in entries.items() if k.startswith("segments/")})

    def check_refused_view(self, got):
        """A refused header: elf (the whole file), header (e_ehsize bytes
        where the class gives them and they lie in the file), info (one
        error line), nothing else."""
        exp, view = self.exp, self.view
        want = ["elf", "info"] + (["header"] if exp.raw_ehsize else [])
        self.ck.eq(sorted(got), sorted(want), f"{view}: bad ELF header: the view's files")
        for name in want:
            self.ck.ok(got.get(name, (0, None))[1] is not None, f"{view}/{name}: unread")
        self.same_bytes(f"{view}/elf", got.get("elf", (0, None))[1], 0, exp.size)
        if exp.raw_ehsize:
            self.same_bytes(f"{view}/header", got.get("header", (0, None))[1], 0,
                            exp.raw_ehsize)
        info = got.get("info", (0, None))[1]
        self.ck.ok(info is None or (info.startswith(b"error: ELF header: ") and
                                    info.count(b"\n") == 1),
                   f"{view}/info: {info[:200] if info else info!r}")
        self.ck.count("refused_views")

    def by_index(self, files, kind):
        out = {}
        for name, (xattrs, data) in files.items():
            try:
                i = int(xattrs.get("index", ""))
            except ValueError:
                self.ck.fail(f"{self.view}/{kind}/{name}: user.elf.index {xattrs.get('index')}")
                continue
            self.ck.ok(i not in out, f"{self.view}/{kind}: two files of index {i}")
            out[i] = (name, xattrs, data)
        return out

    def check_sections(self, files):
        exp, sampled = self.exp, len(self.exp.sections) > MAX_FILES_PER_DIR
        seen = self.by_index(files, "sections")
        if not sampled:
            self.ck.eq(sorted(seen), sorted(exp.sections), f"{self.view}/sections: indexes")
        for i, (name, xattrs, data) in seen.items():
            s = exp.sections.get(i)
            if s is None:
                continue
            path = f"{self.view}/sections/{name}"
            if exp.names is not None:
                self.ck.eq(name, exp.names[i], f"{path}: name of section {i}")
            want = {"offset": hex(s.off), "size": str(s.size), "link": str(s.link),
                    "info": str(s.info)}
            self.ck.eq({k: xattrs.get(k) for k in want}, want, f"{path}: xattrs")
            off, length = s.off, exp.section_len(s)
            if self.rsec is not None and i in self.rsec:
                roff, rsize, nobits = self.rsec[i]
                if (roff, rsize, nobits) != (s.off, s.size, s.type == SHT_NOBITS):
                    self.ck.count("oracle_disagreements")
                    print(f"NOTE: {path}: readelf says {roff:#x}+{rsize}, the struct parse "
                          f"{s.off:#x}+{s.size}", flush=True)
                off = roff
                length = 0 if nobits or roff + rsize > exp.size else rsize
                self.ck.count("sections_by_readelf")
            self.same_bytes(path, data, off, length)

    def check_segments(self, files):
        exp = self.exp
        seen = self.by_index(files, "segments")
        self.ck.eq(sorted(seen), sorted(exp.segments), f"{self.view}/segments: indexes")
        for i, (name, xattrs, data) in seen.items():
            p = exp.segments.get(i)
            if p is None:
                continue
            path = f"{self.view}/segments/{name}"
            self.ck.ok(name.startswith(f"{i:02d}-"), f"{path}: not named for index {i}")
            want = {"offset": hex(p.off), "filesz": str(p.filesz)}
            self.ck.eq({k: xattrs.get(k) for k in want}, want, f"{path}: xattrs")
            off, length = p.off, exp.segment_len(p)
            if self.rseg is not None and i in self.rseg and self.rseg[i] != (p.off, p.filesz):
                self.ck.count("oracle_disagreements")
                print(f"NOTE: {path}: readelf says {self.rseg[i]}, the struct parse "
                      f"{(p.off, p.filesz)}", flush=True)
            self.same_bytes(path, data, off, length)


def make_links(src):
    """Symlinks beside the mutants: to a mutant, dangling, absolute, a loop."""
    os.mkdir(os.path.join(src, "links"))
    links = {"to-mutant": "../exec/000", "dangling": "no/such/file", "abs": "/etc/passwd",
             "loop": "loop", "to-dir": "../many.o"}
    for name, target in links.items():
        os.symlink(target, os.path.join(src, "links", name))
    return links


def check_links(ck, w, mnt, links):
    for name, target in links.items():
        path = os.path.join(mnt, "links", name)
        st, _ = w.call(f"lstat {path}", os.lstat, path)
        ck.ok(st is not None and stat.S_ISLNK(st.st_mode), f"{path}: not a symlink")
        got, _ = w.call(f"readlink {path}", os.readlink, path)
        ck.eq(got, target, f"{path}: target")


def expectations(src, made):
    def one(rel):
        path = os.path.join(src, rel)
        with open(path, "rb") as f:
            exp = Expect(f.read())
        secs, segs = readelf_ranges(path) if exp.header_ok else (None, None)
        return rel, exp, (secs if exp.readelf_sections else None,
                          segs if exp.readelf_segments else None)

    with ThreadPoolExecutor(4) as pool:
        return {rel: (exp, r) for rel, exp, r in pool.map(one, [m[0] for m in made])}


def run(ck, src, made, args):
    exps = expectations(src, made)
    ck.count("readelf_parsed", sum(1 for e, r in exps.values() if r[0] or r[1]))
    links = make_links(src)
    started = time.monotonic()
    try:
        with Mount(ck, src, args) as m:
            w = Walker(ck, m.path, m.proc.pid)

            def one(rel):
                if w.dead:
                    return
                exp, r = exps[rel]
                MutantCheck(ck, w, os.path.join(src, rel), os.path.join(m.path, rel), exp,
                            r).walk()
                ck.count("mutants_walked")

            try:
                with ThreadPoolExecutor(WORKERS) as pool:
                    list(pool.map(one, sorted(exps)))
                check_links(ck, w, m.path, links)
                top, _ = w.call("listdir of the mount", os.listdir, m.path)
                ck.ok(top is not None and "exec" in top, "the mount does not answer at the end")
            finally:
                w.stop()
            ck.ok(m.alive(), "daemon died")
            print(f"{w.ops} operations, errors by errno {dict(w.errors)}, slowest "
                  f"{w.slowest[0]:.2f} s ({w.slowest[1]}), walk {time.monotonic() - started:.1f} s",
                  flush=True)
    except MountError as e:
        ck.fail(str(e))


def main():
    require_fuse()
    nommap = "--nommap" in sys.argv[1:]
    ck = Checker("hostile" + (" (nommap)" if nommap else " (mmap)"))
    src = tempfile.mkdtemp(prefix="elffs-hostile-")
    try:
        made = mutants.generate(fixtures_dir(), src)
        kinds = collections.Counter(m[1] for m in made)
        print(f"{len(made)} mutants: {dict(kinds)}", flush=True)
        ck.ok(len(made) >= 500, f"only {len(made)} mutants")
        run(ck, src, made, ["-o", "nommap"] if nommap else [])
        ck.ok(ck.counts.get("mutants_walked", 0) == len(made),
              f"walked {ck.counts.get('mutants_walked', 0)} of {len(made)} mutants")
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
