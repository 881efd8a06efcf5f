#!/usr/bin/python3
"""Files readelf reads, through the mount,
on the fixtures of tests/fixtures/oddviews.py (ELFFS_ODD_FIXTURES), with
both backends, and with -o passthrough=off (elf's bytes through the daemon):

- `symbols` equals readelf -sW line for line on every fixture: st_other
  words of every machine readelf names ("[VARIANT_PCS]", "[<localentry>:
  8]", "[MIPS16]", "[STD GPLOAD]", "[CA STD]", "[VARIANT_CC]", "[<other>:
  4]", Solaris's "EXPORTED"), names with control characters as readelf's
  "^X", a name longer than the 4096 bytes the views show cut with the
  marker, and no dynamic symbols for a file without section headers
  (readelf -sW shows none, whatever DT_HASH or DT_GNU_HASH say).
- A header with e_version 0x70, EI_VERSION 0, e_ehsize 0, 100 or 0xffff
  is shown: `header` holds e_ehsize bytes (none when past the end),
  sections/ and segments/ hold readelf -SlW's ranges, and `info` has a
  "note:" line for each field readelf -h shows unusual.
- A refused header (EI_CLASS 3, EI_DATA 3, 40 bytes, PN_XNUM without
  section headers, extended numbering with e_shentsize 0, which readelf -h
  reads): the directory is listed and holds elf (the whole file, byte for
  byte, which readelf -h reads as it reads the source), header (e_ehsize
  bytes, where the class gives them and they lie in the file) and info
  (one line "error: ELF header: <why>"), nothing else (sections/ ENOENT);
  user.elffs.refused of the directory says why (listed by listxattr); the
  daemon logs one line for all of them (rate-limited) naming the first.

usage: test_readelf_views.py
"""

import errno
import os
import re
import shutil
import struct
import subprocess
import tempfile

import elf_oracle as oracle
from elffs_mount import Checker, Mount, MountError, require_env, require_fuse

FIELD_MAX = 4096
ENV = dict(os.environ, LC_ALL="C")
SYM_RE = re.compile(rb"^\s*(\d+): ([0-9a-f]+)\s+(\S+) (\S+)\s+(\S+)\s+(\S+(?:\s+\[[^\]]*\])?)\s+"
                    rb"(\S+) (.*)$")
REFUSED = "user.elffs.refused"


def readelf(args, path):
    return subprocess.run(["readelf", "-W"] + args + [path], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=ENV).stdout


def cut(name):
    if len(name) <= FIELD_MAX:
        return name
    return name[:FIELD_MAX] + b"...[cut, %d bytes]" % len(name)


def readelf_symbols(path):
    """The lines `symbols` must have, from readelf -sW (bytes)."""
    lines, table = [], None
    for line in readelf(["-s"], path).split(b"\n"):
        m = re.match(rb"^Symbol table '(.*)' contains", line)
        if m:
            table = {b".symtab": b"symtab", b".dynsym": b"dynsym"}.get(m.group(1))
            continue
        m = SYM_RE.match(line)
        if m and table:
            g = list(m.groups())
            vis = re.sub(rb"\s+\[", b" [", g[5])
            lines.append(b" ".join([table] + g[:5] + [vis, g[6], cut(g[7])]))
    return lines


def check_symbols(ck, mnt, src, name):
    want = readelf_symbols(os.path.join(src, name))
    try:
        with open(os.path.join(mnt, name, "symbols"), "rb") as f:
            got = f.read()
        size = os.stat(os.path.join(mnt, name, "symbols")).st_size
    except OSError as e:
        ck.fail(f"{name}/symbols: {e.strerror}")
        return
    ck.eq(len(got), size, f"{name}/symbols: bytes read against st_size")
    got = got.split(b"\n")[:-1]
    for table in (b"symtab", b"dynsym"):  # symtab first, readelf in section order
        g = [ln for ln in got if ln.startswith(table + b" ")]
        w = [ln for ln in want if ln.startswith(table + b" ")]
        bad = [(x, y) for x, y in zip(g, w) if x != y]
        ck.eq(len(g), len(w), f"{name}/symbols: {table.decode()} lines (readelf -sW)")
        ck.ok(not bad, f"{name}/symbols: {len(bad)} {table.decode()} lines differ from readelf "
                       f"-sW, first: {[(x[:120], y[:120]) for x, y in bad[:2]]}")
    ck.eq(len(got), len(want), f"{name}/symbols: lines")
    ck.count("symbol lines", len(want))
    if name.startswith("other-"):
        ck.ok(any(b"[" in w or b"EXPORTED" in w for w in want),
              f"{name}: readelf shows no st_other words")


def header_notes(info, size):
    """The note and out-of-file lines info must have, from readelf -h."""
    h = info.header
    ident_version = int(h["Version"].split()[0], 0)  # the first Version: EI_VERSION
    notes = []
    if ident_version != 1:
        notes.append(f"note: EI_VERSION {ident_version}")
    text = readelf(["-h"], info.path).decode()
    ev = int(re.findall(r"^\s+Version:\s+(\S+)", text, re.M)[1], 0)
    if ev != 1:
        notes.append(f"note: e_version {ev:#x}")
    ehsize = info.header_int("Size of this header")
    if ehsize != (64 if h["Class"] == "ELF64" else 52):
        notes.append(f"note: e_ehsize {ehsize}")
    if ehsize > size:
        notes.append(f"out of file: header size {ehsize}")
    return notes, ehsize


def check_header(ck, mnt, src, name):
    path = os.path.join(src, name)
    info = oracle.readelf([path])[path]
    size = os.path.getsize(path)
    notes, ehsize = header_notes(info, size)
    view = os.path.join(mnt, name)
    try:
        with open(os.path.join(view, "info")) as f:
            lines = f.read().splitlines()
        with open(os.path.join(view, "header"), "rb") as f, open(path, "rb") as g:
            ck.eq(f.read(), g.read(ehsize) if ehsize <= size else b"", f"{name}/header")
    except OSError as e:
        ck.fail(f"{name}: {e.strerror} (readelf -h reads it)")
        return
    ck.eq([ln for ln in lines if ln.startswith(("note:", "out of file: header"))], notes,
          f"{name}/info: notes")
    ck.ok(notes, f"{name}: readelf -h shows nothing unusual")
    ck.ok(info.sections and info.segments, f"{name}: readelf -SlW shows no tables")
    fd = os.open(path, os.O_RDONLY)
    try:
        for rel, off, length, _ in oracle.expected_files(info, size):
            err = oracle.compare_file(os.path.join(view, rel), fd, off, length)
            ck.ok(err is None, f"{name}/{rel}: {err}")
            ck.count("files compared")
    finally:
        os.close(fd)


def refused_header(data):
    """The bytes `header` of a refused file holds, or None when it has none:
    e_ehsize bytes where EI_CLASS and EI_DATA give the field's place and
    the whole header of the class is in the file, and they lie in it."""
    cls, order = data[4], data[5]
    if cls not in (1, 2) or order not in (1, 2) or len(data) < (52 if cls == 1 else 64):
        return None
    ehsize = struct.unpack_from("<H" if order == 1 else ">H", data, 40 if cls == 1 else 52)[0]
    return data[:ehsize] if 0 < ehsize <= len(data) else None


def check_refused(ck, mnt, src, name):
    view = os.path.join(mnt, name)
    with open(os.path.join(src, name), "rb") as f:
        data = f.read()
    header = refused_header(data)
    try:
        ck.ok(os.path.isdir(view), f"{name}: not listed as a directory")
        ck.eq(sorted(os.listdir(view)), sorted(["elf", "info"] + (["header"] if header else [])),
              f"{name}: listing")
        with open(os.path.join(view, "elf"), "rb") as f:
            ck.ok(f.read() == data, f"{name}/elf: not the source's bytes")
        if header is not None:
            with open(os.path.join(view, "header"), "rb") as f:
                ck.eq(f.read(), header, f"{name}/header")
        ck.eq(readelf(["-h"], os.path.join(view, "elf")), readelf(["-h"], os.path.join(src, name)),
              f"{name}/elf: readelf -h")
        why = os.getxattr(view, REFUSED).decode()
        ck.ok(why and "\n" not in why, f"{name}: {REFUSED} {why!r}")
        ck.ok(REFUSED in os.listxattr(view), f"{name}: {REFUSED} not listed")
        with open(os.path.join(view, "info")) as f:
            ck.eq(f.read(), f"error: ELF header: {why}\n", f"{name}/info")
        print(f"{name}: {why}")
    except OSError as e:
        ck.fail(f"{name}: {e.filename}: {e.strerror}")
    for entry in ("sections", "segments", "symbols", "relocations", "build-id"):
        ck.errno_is(errno.ENOENT, f"{name}/{entry}", os.stat, os.path.join(view, entry))
    if name == "refused-shentsize0":
        ck.ok(b"Size of section headers:           0" in readelf(["-h"], os.path.join(src, name)),
              f"{name}: readelf -h does not read e_shentsize 0")


def main():
    require_fuse()
    ck = Checker("readelf-views")
    odd = require_env("ELFFS_ODD_FIXTURES")
    src = tempfile.mkdtemp(prefix="elffs-odd-")
    try:
        names = sorted(os.listdir(odd))
        for n in names:
            shutil.copy(os.path.join(odd, n), src)
        # passthrough=off: the bytes of elf through the daemon (a refused file too)
        for mode in ([], ["-o", "nommap"], ["-o", "passthrough=off"]):
            try:
                with Mount(ck, src, mode) as m:
                    for n in names:
                        if n.startswith("refused-"):
                            check_refused(ck, m.path, src, n)
                            continue
                        check_symbols(ck, m.path, src, n)
                        if n.startswith("hdr-"):
                            check_header(ck, m.path, src, n)
                        # accepted: nothing to refuse
                        ck.errno_is(errno.ENODATA, f"{n}: {REFUSED}", os.getxattr,
                                    os.path.join(m.path, n), REFUSED)
                    log = [ln for ln in m.output().splitlines() if "ELF header refused" in ln]
                    ck.eq(len(log), 1, f"{mode}: log lines of refused headers: {log}")
                    ck.ok(log and "refused-" in log[0] and "more refusals" in log[0],
                          f"{mode}: the log line names no refused file: {log}")
            except MountError as e:
                ck.fail(str(e))
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
