#!/usr/bin/python3
"""The daemon's memory: a budget for the whole
daemon (-o memory=MB), and one parsed view per file identity.

budget: a tree of many binaries (the fixtures, a sample of the machine's
libraries, the bombs of tests/fixtures/bombs.py and copies of the symbol
and dynamic bombs: distinct files, each its own view) is walked by one
reader: every binary's info and symbols looked up (which indexes them
whole) and their first and last MiB read, sections/, segments/,
symbol/ and decompressed/ listed, its header and the start of a few
sections compared with the source. Mounted with -o memory=BUDGET_MB:

- the daemon's peak RSS (VmHWM) stays under its RSS at mount time plus
  the budget plus FIXED_OVERHEAD (below);
- nothing fails but what is over the whole budget, with EFBIG: the
  symbol/ of symbomb-big.o (100,000 names to make), nothing of the other
  files; no ENOMEM (one reader: only the view it reads is in use);
- asking for that symbol/ twenty times more logs one line, not twenty.

Then with the default budget the same walk fails nowhere. With a budget of
2 MiB, a view that alone needs more (secbomb.o: 20,000 section names) is
EFBIG for lookups and opens inside it, and a small binary is served.

FIXED_OVERHEAD is what the budget does not cover and no file makes grow:
each worker thread's reply buffer (libfuse's default of at most 10 workers;
the text views are made into it, up to 1 MiB a read), the pages libfuse's
receive buffers touch, the pages of the files' mappings that reads touch
(a text line that pfelf reads from the mapping, the bytes of a section
until its file is closed: 5 MiB in this walk), and one parse in progress
beyond what it keeps (the copies pfelf decodes tables from, an array that
doubles while it grows: notebomb.o's 100,000 notes, 6 MB moved; glibc's
heap slack): 10 x 1 MiB + 16 MiB. Measured: 24 to 40 MiB against a bound
of 44 to 46 (the RSS at mount is 2 to 4 MiB).

links: 8 hard links of symbomb.o, in two directories, read one after the
other (symbols, info, symbol/ listed, a symbol's bytes): they share one view,
so what the other seven add to the daemon's RSS is less than half of what
the first one cost (before: each link its own view, 8 x 6 MB here, 1.4 GB
for 8 links when the texts were kept whole). Then one link is replaced by
rename (another file, 100 symbols) while the others stay: files opened
before (on the replaced link and on another) read the old text, the
replaced link shows the new file (text, symbol/ names, bytes), the others
the old one. Both backends, one worker thread (-o max_threads=1: a worker
started between two samples adds its own buffers to the RSS).

Under AddressSanitizer the daemon runs with ASAN_OPTIONS plus
quarantine_size_mb=0: the quarantine keeps up to 256 MiB of freed memory
resident, which would hide what the budget and the sharing save (the
links' figures with it: 29 MiB for the first, 44 MiB for the seven others,
all of it freed memory); every other check of ASan stays. Its redzones
and shadow remain, so the budget's bound becomes the RSS at mount plus
twice the budget and FIXED_OVERHEAD; the links' bound stays half the first
link's cost.
"""

import errno
import hashlib
import os
import shutil
import sys
import tempfile
import time

import elf_oracle as oracle
from elffs_mount import (Checker, Mount, MountError, daemon_has_asan, daemon_status,
                         fixtures_dir, require_fuse)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import bombs  # noqa: E402

MiB = 1 << 20
BUDGET_MB = 16
TINY_MB = 2
FIXED_OVERHEAD = 10 * MiB + 16 * MiB
LIB_DIR = "/usr/lib/x86_64-linux-gnu"
LIB_SAMPLE = 60
LIB_MAX_SIZE = 4 * MiB
COPIES = 4
LINKS = 8
REPEATS = 20
# secbomb.o's compressed sections say 1 MiB and hold an empty stream: EIO.
CORRUPT = {("bombs/secbomb.o", "decompressed"): errno.EIO}


def scaled(pid, b):
    """b, or twice it under ASan (redzones, shadow)."""
    return 2 * b if daemon_has_asan(pid) else b


def prefix():
    """The daemon's command prefix: under ASan, its options without quarantine."""
    if "address" not in os.environ.get("ELFFS_SANITIZE", ""):
        return []
    opts = os.environ.get("ASAN_OPTIONS", "")
    return ["env", f"ASAN_OPTIONS={opts + ':' if opts else ''}quarantine_size_mb=0"]


def sample_libs():
    """Every k-th shared library of LIB_DIR under LIB_MAX_SIZE (not symlinks)."""
    if not os.path.isdir(LIB_DIR):
        return []
    out = []
    for name in sorted(os.listdir(LIB_DIR)):
        path = os.path.join(LIB_DIR, name)
        if ".so" in name and not os.path.islink(path) and os.path.isfile(path) and \
                os.path.getsize(path) < LIB_MAX_SIZE and oracle.is_elf(path):
            out.append(path)
    return out[::max(1, len(out) // LIB_SAMPLE)][:LIB_SAMPLE]


def make_tree(root):
    """fixtures/, lib/ (copies), bombs/ and copies/; the
    relative paths of its binaries."""
    for d in ("fixtures", "lib", "bombs", "copies"):
        os.mkdir(os.path.join(root, d))
    fix = fixtures_dir()
    for n in sorted(os.listdir(fix)):
        if os.path.isfile(os.path.join(fix, n)) and oracle.is_elf(os.path.join(fix, n)):
            shutil.copyfile(os.path.join(fix, n), os.path.join(root, "fixtures", n))
    # Copies, not hard links: a link changes the ctime of the system
    # library, and a mount of it by another test running beside this one
    # (test_stress) then takes it for a changed file (a new generation).
    for path in sample_libs():
        shutil.copyfile(path, os.path.join(root, "lib", os.path.basename(path)))
    bombs.write_all(os.path.join(root, "bombs"))
    for i in range(COPIES):
        for b in ("symbomb.o", "dynbomb.so"):
            shutil.copyfile(os.path.join(root, "bombs", b), os.path.join(root, "copies", f"{i}-{b}"))
    return sorted(os.path.relpath(os.path.join(d, n), root) for d, _, ns in os.walk(root)
                  for n in ns)


def read_ends(path):
    """The first and the last MiB of a text (its whole index is made at
    lookup all the same): the bytes read."""
    n = 0
    with open(path, "rb", buffering=0) as fh:
        size = os.fstat(fh.fileno()).st_size
        n += len(fh.read(MiB))
        if size > 2 * MiB:
            fh.seek(size - MiB)
        while True:
            data = fh.read(MiB)
            if not data:
                return n
            n += len(data)


def read_all(path):
    h, n = hashlib.sha256(), 0
    with open(path, "rb", buffering=0) as fh:
        while True:
            data = fh.read(MiB)
            if not data:
                return n, h.hexdigest()
            h.update(data)
            n += len(data)


class Walk:
    """One reader over every binary of the tree; errors by (path, what)."""

    def __init__(self, ck, mnt, src):
        self.ck, self.mnt, self.src = ck, mnt, src
        self.errors = {}

    def attempt(self, rel, what, fn, *args):
        try:
            return fn(*args)
        except OSError as e:
            self.errors[(rel, what)] = e.errno
            return None

    def sections(self, rel, view):
        """The header and the first 4 KiB of three sections equal the source's."""
        with open(os.path.join(self.src, rel), "rb") as fh:
            want = fh.read(64)
        with open(os.path.join(view, "header"), "rb") as fh:
            head = fh.read()
        self.ck.ok(want.startswith(head), f"{rel}: header")
        names = sorted(os.listdir(os.path.join(view, "sections")))
        for n in names[:: max(1, len(names) // 3)][:3]:
            p = os.path.join(view, "sections", n)
            off = int(os.getxattr(p, "user.elf.offset"), 16)
            with open(p, "rb") as fh:
                got = fh.read(4096)
            with open(os.path.join(self.src, rel), "rb") as fh:
                fh.seek(off)
                self.ck.ok(fh.read(len(got)) == got, f"{rel}: sections/{n}: bytes")

    def decompressed(self, view):
        d = os.path.join(view, "decompressed")
        if os.path.isdir(d):
            for n in sorted(os.listdir(d))[:2]:
                with open(os.path.join(d, n), "rb") as fh:
                    fh.read(65536)

    def binary(self, rel):
        view = os.path.join(self.mnt, rel)
        for t in ("info", "symbols"):
            self.attempt(rel, t, read_ends, os.path.join(view, t))
        for d in ("segments", "symbol"):
            self.attempt(rel, d, os.listdir, os.path.join(view, d))
        self.attempt(rel, "sections", self.sections, rel, view)
        self.attempt(rel, "decompressed", self.decompressed, view)

    def run(self, rels):
        for rel in rels:
            self.binary(rel)
        return self.errors


def efbig(ck, m, what):
    """symbomb-big.o's symbol/ is EFBIG; asked REPEATS more times, one log line."""
    path = os.path.join(m.path, "bombs", "symbomb-big.o", "symbol")
    ck.errno_is(errno.EFBIG, f"{what}: symbomb-big.o/symbol", os.listdir, path)
    for _ in range(REPEATS):
        try:
            os.listdir(path)
        except OSError:
            pass
    lines = [ln for ln in m.output().splitlines() if "memory budget" in ln]
    ck.eq(len(lines), 1, f"{what}: log lines after {REPEATS + 1} refusals: {lines[:3]}")
    ck.ok(lines and "symbomb-big.o" in lines[0] and "EFBIG" in lines[0],
          f"{what}: the log line names the file and EFBIG: {lines[:1]}")


def budget_round(ck, src, rels):
    print(f"budget -o memory={BUDGET_MB}: {len(rels)} binaries")
    try:
        with Mount(ck, src, ["-o", f"memory={BUDGET_MB}"], prefix=prefix()) as m:
            pid = m.proc.pid
            start = daemon_status(pid)["VmRSS"]
            efbig(ck, m, "budget")
            t = time.monotonic()
            errors = Walk(ck, m.path, src).run(rels)
            peak = daemon_status(pid)["VmHWM"]
            bound = start + scaled(pid, BUDGET_MB * MiB + FIXED_OVERHEAD)
            print(f"  walk {time.monotonic() - t:.1f} s, VmRSS at mount {start / MiB:.1f} MiB, "
                  f"VmHWM {peak / MiB:.1f} MiB (bound {bound / MiB:.0f} MiB)")
            ck.ok(peak <= bound, f"budget: VmHWM {peak} over {bound}")
            want = {**CORRUPT, ("bombs/symbomb-big.o", "symbol"): errno.EFBIG}
            bad = {k: errno.errorcode.get(v, v) for k, v in errors.items() if want.get(k) != v}
            ck.ok(not bad, f"budget: errors other than EFBIG of what is over the budget: {bad}")
            ck.eq(errors, want, "budget: errors of the walk")
            return peak
    except MountError as e:
        ck.fail(str(e))
    return 0


def default_round(ck, src, rels):
    try:
        with Mount(ck, src, [], prefix=prefix()) as m:
            t = time.monotonic()
            errors = Walk(ck, m.path, src).run(rels)
            peak = daemon_status(m.proc.pid)["VmHWM"]
            print(f"default budget: walk {time.monotonic() - t:.1f} s, VmHWM {peak / MiB:.1f} MiB")
            ck.eq(errors, CORRUPT, "default budget: errors of the walk")
            return peak
    except MountError as e:
        ck.fail(str(e))
    return 0


def tiny_round(ck, src):
    """-o memory=TINY_MB: secbomb.o's view alone is over it."""
    try:
        with Mount(ck, src, ["-o", f"memory={TINY_MB}"], prefix=prefix()) as m:
            big = os.path.join(m.path, "bombs", "secbomb.o")
            ck.errno_is(errno.EFBIG, "tiny: secbomb.o/sections", os.listdir,
                        os.path.join(big, "sections"))
            ck.errno_is(errno.EFBIG, "tiny: secbomb.o/info", open, os.path.join(big, "info"))
            ck.ok(len(os.listdir(big)) == 7, "tiny: secbomb.o lists its seven fixed entries")
            small = os.path.join(m.path, "fixtures", "exec")
            ck.ok(read_all(os.path.join(small, "info"))[0] > 0, "tiny: exec/info")
            ck.ok(len(os.listdir(os.path.join(small, "sections"))) > 10, "tiny: exec/sections")
    except (MountError, OSError) as e:
        ck.fail(f"tiny: {e}")


def link_tree(root):
    """a/l0..l3 and b/l4..l7: hard links of symbomb.o."""
    first = bombs.write(root, "symbomb.o")
    paths = []
    for i in range(LINKS):
        d = os.path.join(root, "src", "ab"[i * 2 // LINKS])
        os.makedirs(d, exist_ok=True)
        paths.append(os.path.join(d, f"l{i}.o"))
        os.link(first, paths[-1])
    return [os.path.relpath(p, os.path.join(root, "src")) for p in paths]


def visit(ck, view):
    """(symbols, info, symbol/ names, bytes of one symbol) of a view."""
    names = sorted(os.listdir(os.path.join(view, "symbol")))
    with open(os.path.join(view, "symbol", names[0]), "rb") as fh:
        first = fh.read()
    return (read_all(os.path.join(view, "symbols")), read_all(os.path.join(view, "info")),
            len(names), first)


def replace_check(ck, m, src, rels, old, label):
    """Replace link 3 by rename while files of it and of link 5 are open."""
    rep, stay = rels[3], rels[5]
    keep = [open(os.path.join(m.path, r, t), "rb") for r in (rep, stay) for t in ("symbols", "info")]
    tmp = os.path.join(src, os.path.dirname(rep), ".new")
    with open(tmp, "wb") as fh:
        fh.write(bombs.symbomb(100))
    os.rename(tmp, os.path.join(src, rep))
    time.sleep(0.6)  # -o timeout=0.3
    for fh, want in zip(keep, (old[0], old[1], old[0], old[1])):
        h, n = hashlib.sha256(), 0
        while True:
            data = fh.read(MiB)
            if not data:
                break
            h.update(data)
            n += len(data)
        fh.close()
        ck.eq((n, h.hexdigest()), want, f"{label}: a file opened before the replacement")
    new = visit(ck, os.path.join(m.path, rep))
    ck.eq(new[2], 100, f"{label}: the replaced link's symbol/")
    ck.ok(new[0] != old[0], f"{label}: the replaced link's symbols are the new file's")
    with open(os.path.join(m.path, rep, "sections", ".text"), "rb") as fh:
        ck.eq(new[3], fh.read(16), f"{label}: the replaced link's symbol bytes")
    ck.eq(visit(ck, os.path.join(m.path, stay)), old, f"{label}: the link that stayed")


def links_round(ck, args, label):
    tmp = tempfile.mkdtemp(prefix="elffs-links-")
    try:
        rels = link_tree(tmp)
        src = os.path.join(tmp, "src")
        # One worker thread: a worker libfuse starts between two samples
        # adds its own receive buffer and malloc arena (about 2 MiB, 16 MiB
        # with max_read=16M) to the RSS, which is not what is measured here
        # (links 2-8 once added 8.5 MB so, against a bound of 5.3).
        with Mount(ck, src, ["-o", "timeout=0.3,max_threads=1"] + args, prefix=prefix()) as m:
            pid = m.proc.pid
            r0 = daemon_status(pid)["VmRSS"]
            old = visit(ck, os.path.join(m.path, rels[0]))
            r1 = daemon_status(pid)["VmRSS"]
            for rel in rels[1:]:
                ck.eq(visit(ck, os.path.join(m.path, rel)), old, f"{label}: {rel} as l0")
            r8, peak = daemon_status(pid)["VmRSS"], daemon_status(pid)["VmHWM"]
            one, more = r1 - r0, r8 - r1
            bound = one // 2
            print(f"{label}: {LINKS} hard links of symbomb.o: the first {one / MiB:.1f} MiB, the "
                  f"other {LINKS - 1} {more / MiB:.1f} MiB (bound {bound / MiB:.1f}), VmHWM "
                  f"{peak / MiB:.1f} MiB")
            ck.ok(more < bound, f"{label}: links 2-{LINKS} added {more} bytes, bound {bound}")
            replace_check(ck, m, src, rels, old, label)
    except (MountError, OSError) as e:
        ck.fail(f"{label}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    require_fuse()
    ck = Checker("memory")
    parts = sys.argv[1:] or ["links", "budget"]
    if "links" in parts:
        links_round(ck, [], "links mmap")
        links_round(ck, ["-o", "nommap"], "links nommap")
    if "budget" in parts:
        tmp = tempfile.mkdtemp(prefix="elffs-memory-")
        try:
            rels = make_tree(tmp)
            small = budget_round(ck, tmp, rels)
            full = default_round(ck, tmp, rels)
            print(f"peak RSS of the walk: {small / MiB:.1f} MiB with -o memory={BUDGET_MB}, "
                  f"{full / MiB:.1f} MiB with the default budget")
            tiny_round(ck, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
