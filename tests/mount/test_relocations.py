#!/usr/bin/python3
"""The `relocations` view against readelf -rW, on both backends
(mmap, -o nommap).

The view has one line per relocation: the relocation section's entry name
under sections/, a blank, then readelf -rW's line for that entry byte for
byte; a RELR section gives one line per address (readelf's address lines);
readelf's Type2 and Type3 lines of an ELF64 MIPS entry are appended to the
entry's line as they are. So readelf's output, normalised (its section
header, column header, "N offsets" and blank lines dropped, each entry line
prefixed with its section's entry name, MIPS continuation lines joined),
must equal the view line for line, for:

- x86-64 and i386 objects and shared libraries of the relocation fixtures
  (versions, an IFUNC, TLS, RELR), AArch64, RISC-V, PPC64 (little and big
  endian, ELFv2 and ELFv1 with .opd, RELR) and s390x objects and shared libraries made by the cross
  binutils (PLT, GOT, TLS, defined and needed versions, gas's local labels
  whose control characters readelf writes as ^X), a little-endian MIPS64
  object, the S/390 and ARM libcs and the x86-64 fixtures (exec, pie,
  libshared.so, comdat.o): eight architectures;
- one REL and one RELA entry of every type of every machine readelf 2.40
  names relocations of (tests/fixtures/reloc/machines.py: 102 e_machine
  values in ELF32, the 64-bit ones in ELF64 too, MSP430's and NFP's second
  tables, machines without names), with Alpha's R_ALPHA_LITUSE and SPARC
  V9's R_SPARC_OLO10 quirks: the types-*.o of the fixtures' MANIFEST;
- relbomb.o, hostile: 200,000 entries with symbol indexes past the table, a
  section past the end of the file (no lines, as readelf), and 1,260,001
  RELR addresses: the whole text equals readelf's, the daemon lives, and
  its peak RSS grows by at most BOMB_BOUND while it is read (ASan: 4 x
  bound + 256 MiB, as test_textviews);
- relrbomb.o, hostile: 4,410,001 RELR addresses, more than the view shows
  (RELR_MAX): its first RELR_MAX lines are readelf's (checked at the start,
  the end and random offsets) and its last line is the note
  "...[cut after RELR_MAX addresses]"; peak RSS bounded as above.

Every file: st_size equals the bytes read; chunks at random offsets equal
the same ranges of the whole read; the binary's listing has `relocations`.
"""

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from elffs_mount import (Checker, Mount, MountError, daemon_has_asan, daemon_status, fixture,
                         require_env, require_fuse)

MiB = 1 << 20
BOMB_BOUND = 64 * MiB
CHUNKS = 16
CROSS = ["aarch64", "riscv64", "ppc64le", "ppc64", "ppc64v1", "s390x"]
RELOC_FILES = (["reloc64.o", "libreloc64.so", "reloc32.o", "libreloc32.so", "mips64el.o",
                "relnames.o", "relbomb.o", "relrbomb.o"]
               + [f for a in CROSS for f in (f"reloc-{a}.o", f"libreloc-{a}.so")])
MAIN_FILES = ["libshared.so", "exec", "pie", "comdat.o", "s390x-libc.so.6", "armhf-libc.so.6"]
MIPS_CONT = b" " * 20 + b"Type"
RELR_MAX = 1 << 22
RELR_LINE = len(b".relr.dyn 0000000000010000\n")


def manifest(rdir, what):
    """The fixtures MANIFEST marks what."""
    with open(os.path.join(rdir, "MANIFEST")) as f:
        return [w[0] for w in (ln.split() for ln in f) if len(w) == 2 and w[1] == what]


def readelf(path, opts):
    return subprocess.run(["readelf", opts, path], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=dict(os.environ, LC_ALL="C")).stdout


def readelf_head(path, n):
    """The first n lines of readelf -rW (newline-ended); readelf is stopped there."""
    p = subprocess.Popen(["readelf", "-rW", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=dict(os.environ, LC_ALL="C"))
    out = [p.stdout.readline() for _ in range(n)]
    p.kill()
    p.communicate()
    return out


def reloc_sections(path):
    """The entry names under sections/ of the relocation sections readelf
    prints a group for (REL, RELA, RELR of non-zero size), in index order;
    among sections of one name the lowest index keeps it, others get ~index."""
    seen, out = set(), []
    for ln in readelf(path, "-SW").decode(errors="replace").splitlines():
        if not ln.lstrip().startswith("[") or "]" not in ln:
            continue
        idx = ln.split("[", 1)[1].split("]", 1)[0].strip()
        tok = ln.split("]", 1)[1].split()
        if not idx.isdigit() or int(idx) == 0 or len(tok) < 5:
            continue
        name = tok[0]
        entry = name if name not in seen else f"{name}~{idx}"
        seen.add(name)
        if tok[1] in ("REL", "RELA", "RELR") and int(tok[4], 16) > 0:
            out.append(entry)
    return out


def expected(path):
    """readelf -rW normalised to the view's lines (bytes, newline-ended)."""
    secs = iter(reloc_sections(path))
    lines, prefix = [], None
    for ln in readelf(path, "-rW").splitlines():
        if ln.startswith(b"Relocation section '"):
            prefix = next(secs).encode() + b" "
        elif prefix is None or not ln or b"Offset" in ln or ln.endswith((b" offsets", b" offset")):
            continue
        elif ln.startswith(MIPS_CONT):
            lines[-1] = lines[-1][:-1] + ln + b"\n"
        else:
            lines.append(prefix + ln + b"\n")
    return lines


def check_relrbomb(ck, m, rng):
    """Addresses 0x10000 + 8 k, RELR_MAX of them, then the note."""
    path = os.path.join(m.path, "relrbomb.o", "relocations")
    note = b".relr.dyn ...[cut after %d addresses]\n" % RELR_MAX
    size = os.stat(path).st_size
    if not ck.eq(size, RELR_MAX * RELR_LINE + len(note), "relrbomb.o: size"):
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        ck.eq(os.pread(fd, len(note), size - len(note)), note, "relrbomb.o: last line")
        for k in [0, 1, RELR_MAX - 1] + [rng.randrange(RELR_MAX) for _ in range(CHUNKS)]:
            want = b".relr.dyn %016x\n" % (0x10000 + 8 * k)
            ck.eq(os.pread(fd, RELR_LINE, k * RELR_LINE), want, f"relrbomb.o: line {k}")
        head = readelf_head(os.path.join(m.source, "relrbomb.o"), 1003)[3:]
        want = b"".join(b".relr.dyn " + ln for ln in head)
        ck.ok(len(head) == 1000 and os.pread(fd, len(want), 0) == want,
              "relrbomb.o: first 1000 lines against readelf")
    finally:
        os.close(fd)


def check_file(ck, m, name, src, rng):
    if name == "relrbomb.o":
        return check_relrbomb(ck, m, rng)
    view = os.path.join(m.path, name)
    ck.ok("relocations" in os.listdir(view), f"{name}: relocations listed")
    path = os.path.join(view, "relocations")
    size = os.stat(path).st_size
    with open(path, "rb") as f:
        data = f.read()
    ck.eq(len(data), size, f"{name}: bytes read against st_size")
    want = expected(src)
    got = data.splitlines(keepends=True)
    if got != want:
        ck.eq(len(got), len(want), f"{name}: lines")
        for i, (a, b) in enumerate(zip(got, want)):
            if a != b:
                ck.fail(f"{name}: line {i}:\n  view:    {a!r}\n  readelf: {b!r}")
                break
    else:
        ck.ok(len(want) > 0, f"{name}: some relocations")
        ck.count("lines", len(want))
    fd = os.open(path, os.O_RDONLY)
    try:
        for _ in range(CHUNKS):
            off = rng.randrange(0, size + 1)
            n = rng.choice([1, 100, 4096, 65536, 200000])
            ck.eq(os.pread(fd, n, off), data[off:off + n], f"{name}: {n} bytes at {off}")
    finally:
        os.close(fd)


def run(ck, src, args, label, rng):
    try:
        with Mount(ck, src, args) as m:
            asan = daemon_has_asan(m.proc.pid)
            bound = 4 * BOMB_BOUND + 256 * MiB if asan else BOMB_BOUND
            for name in sorted(os.listdir(src)):
                before = daemon_status(m.proc.pid)["VmRSS"]
                t = time.monotonic()
                check_file(ck, m, name, os.path.join(src, name), rng)
                peak = daemon_status(m.proc.pid)["VmHWM"]
                if name in ("relbomb.o", "relrbomb.o"):
                    print(f"{label} {name}: {time.monotonic() - t:.1f} s, VmHWM "
                          f"{peak / MiB:.1f} MiB (RSS before {before / MiB:.1f})", flush=True)
                    ck.ok(peak - before <= bound, f"{label} {name}: peak {peak - before} "
                          f"bytes above the RSS before it, bound {bound}")
                ck.count(f"files {label}")
    except MountError as e:
        ck.fail(str(e))


def main():
    require_fuse()
    ck = Checker("relocations")
    rdir = require_env("ELFFS_RELOC_FIXTURES")
    src = tempfile.mkdtemp(prefix="elffs-reloc-src-")
    try:
        types = manifest(rdir, "types")
        ck.ok(len(types) > 100, f"{len(types)} type probes in the MANIFEST")
        for name in RELOC_FILES + types:
            shutil.copyfile(os.path.join(rdir, name), os.path.join(src, name))
        for name in MAIN_FILES:
            shutil.copyfile(fixture(name), os.path.join(src, name))
        seed = int(os.environ.get("TB_SEED", "0")) or random.randrange(1, 1 << 30)
        print(f"seed {seed}", flush=True)
        for args, label in (([], "mmap"), (["-o", "nommap"], "nommap")):
            run(ck, src, args, label, random.Random(seed))
    finally:
        shutil.rmtree(src, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
