#!/usr/bin/python3
"""Naming rules of SPEC section 3 on the fixtures: odd section names
(names.o), duplicates (many.o, comdat.o `.group`s, core `load`s), NOBITS
sections present and empty, segment names (also 100+ program headers
and unnamed types, on a copy of exec patched here), extended numbering (xnum.o,
phxnum), no section headers (noshdr), and ranges outside the file
(outofrange). Expected names are computed from readelf's section table.
"""

import os
import re
import shutil
import struct
import tempfile

import elf_oracle as oracle
from elffs_mount import Checker, fixture, fixtures_dir, require_fuse, run_mounted

SEGMENT_NAME = re.compile(r"^(\d{2,})-([A-Z0-9_]+|0x[0-9a-f]{8})$")


def by_name(info, name):
    return [s for s in info.sections if s.index != 0 and s.name == name]


def listing(ck, path):
    try:
        return set(os.listdir(path))
    except OSError as e:
        ck.fail(f"{path}: {e.strerror}")
        return set()


def read_all(path):
    with open(path, "rb") as f:
        return f.read()


def check_listing(ck, view, info, src):
    """sections/ and segments/ list exactly the expected names."""
    expected = oracle.expected_files(info, os.path.getsize(src))
    for kind in ("sections", "segments"):
        want = {e[0].split("/", 1)[1] for e in expected if e[0].startswith(kind + "/")}
        got = listing(ck, os.path.join(view, kind))
        ck.ok(got == want, f"{view}/{kind}: missing {sorted(want - got)[:8]}, "
                           f"unexpected {sorted(got - want)[:8]}")
        ck.count(kind, len(got))
    return expected


def check_bytes(ck, view, src, expected, limit=None):
    fd = os.open(src, os.O_RDONLY)
    try:
        chosen = expected if limit is None else expected[::max(1, len(expected) // limit)]
        for rel, off, size, _ in chosen:
            err = oracle.compare_file(os.path.join(view, rel), fd, off, size)
            ck.ok(err is None, f"{view}/{rel}: {err}")
    finally:
        os.close(fd)


def expect_file(ck, view, name, what):
    path = os.path.join(view, "sections", name)
    return ck.ok(os.path.isfile(path), f"{what}: {path} missing")


def check_names_o(ck, mnt, fx, infos):
    src, view = os.path.join(fx, "names.o"), os.path.join(mnt, "names.o")
    info = infos[src]
    expected = check_listing(ck, view, info, src)
    check_bytes(ck, view, src, expected)
    rules = [("foo/bar", lambda i: f"foo_bar~{i}"), ("..", lambda i: f"..~{i}"),
             (".", lambda i: f".~{i}"), ("", lambda i: f"~{i}")]
    for raw, make in rules:
        secs = by_name(info, raw)
        if ck.ok(secs, f"names.o has no section named {raw!r} (fixture)"):
            for s in secs:
                expect_file(ck, view, make(s.index), f"section {raw!r}")
    longs = [s for s in info.sections if len(s.name.encode()) > 200]
    if ck.ok(longs, "names.o has no section name over 200 bytes (fixture)"):
        for s in longs:
            expect_file(ck, view, s.name.encode()[:200].decode() + f"~{s.index}", "long name")
    ck.ok(all(len(n.encode()) <= 200 + 1 + 5 for n in listing(ck, view + "/sections")),
          "names.o: a file name longer than 200 bytes + ~index")
    check_duplicates(ck, view, info, "names.o")
    check_nobits(ck, view, info, "names.o")


def check_duplicates(ck, view, info, what, want_name=None, at_least=2):
    names = [s.name for s in info.sections if s.index != 0]
    dups = {n for n in names if names.count(n) > 1 and n not in ("", ".", "..")
            and "/" not in n and len(n.encode()) <= 200}
    if want_name is not None:
        ck.ok(names.count(want_name) >= at_least,
              f"{what}: fewer than {at_least} sections named {want_name!r} (fixture)")
    ck.ok(dups, f"{what}: no duplicate section names (fixture)")
    for name in sorted(dups):
        secs = by_name(info, name)
        expect_file(ck, view, name, f"{what}: lowest index of duplicate {name!r}")
        for s in secs[1:]:
            expect_file(ck, view, f"{name}~{s.index}", f"{what}: duplicate {name!r}")
        ck.count("duplicates", len(secs) - 1)


def check_nobits(ck, view, info, what):
    nobits = [s for s in info.sections if s.type == "NOBITS" and s.size > 0]
    if not ck.ok(nobits, f"{what}: no NOBITS section with a size (fixture)"):
        return
    names = oracle.section_file_names(info.sections)
    for s in nobits:
        path = os.path.join(view, "sections", names[s.index])
        try:
            ck.eq(os.stat(path).st_size, 0, f"{path}: st_size of NOBITS")
            ck.eq(read_all(path), b"", f"{path}: content of NOBITS")
            ck.count("nobits")
        except OSError as e:
            ck.fail(f"{path}: {e.strerror}")


def check_segment_names(ck, mnt, fx, infos):
    src, view = os.path.join(fx, "exec"), os.path.join(mnt, "exec")
    info = infos[src]
    got = listing(ck, os.path.join(view, "segments"))
    for name in sorted(got):
        ck.ok(SEGMENT_NAME.match(name), f"exec: segment file name {name!r} is not NN-TYPE")
    types = [p.type for p in info.segments]
    ck.ok(types[:2] == ["PHDR", "INTERP"], f"exec: readelf segments start {types[:2]} (fixture)")
    for want in ("00-PHDR", "01-INTERP"):
        ck.ok(want in got, f"exec: segments/{want} missing")
    for kind in ("LOAD", "GNU_STACK", "GNU_RELRO", "GNU_EH_FRAME", "DYNAMIC", "NOTE"):
        idx = [p.index for p in info.segments if p.type == kind]
        ck.ok(idx, f"exec: readelf shows no {kind} segment (fixture)")
        for i in idx:
            ck.ok(f"{i:02d}-{kind}" in got, f"exec: segments/{i:02d}-{kind} missing")
    expected = check_listing(ck, view, info, src)
    check_bytes(ck, view, src, expected)


def check_extended(ck, mnt, fx, infos):
    for name in ("xnum.o", "phxnum", "noshdr", "many.o", "comdat.o", "core"):
        src, view = os.path.join(fx, name), os.path.join(mnt, name)
        info = infos[src]
        expected = check_listing(ck, view, info, src)
        check_bytes(ck, view, src, expected, limit=500)
    xnum = infos[os.path.join(fx, "xnum.o")]
    ck.ok(xnum.header["Number of section headers"].startswith("0 ("),
          "xnum.o: e_shnum is not 0 (fixture)")
    ck.ok(len(xnum.sections) > 65280, "xnum.o: not over 65280 sections (fixture)")
    ck.eq(len(os.listdir(os.path.join(mnt, "xnum.o", "sections"))), len(xnum.sections) - 1,
          "xnum.o: number of section files")
    ph = infos[os.path.join(fx, "phxnum")]
    ck.ok(ph.header["Number of program headers"].startswith("65535"),
          "phxnum: e_phnum is not PN_XNUM (fixture)")
    ck.eq(len(os.listdir(os.path.join(mnt, "phxnum", "segments"))), len(ph.segments),
          "phxnum: number of segment files")
    ck.eq(os.listdir(os.path.join(mnt, "noshdr", "sections")), [], "noshdr: sections/")
    ck.ok(len(infos[os.path.join(fx, "many.o")].sections) >= 300, "many.o: < 300 sections")
    check_duplicates(ck, os.path.join(mnt, "many.o"), infos[os.path.join(fx, "many.o")],
                     "many.o", ".dup", 3)
    check_duplicates(ck, os.path.join(mnt, "comdat.o"), infos[os.path.join(fx, "comdat.o")],
                     "comdat.o", ".group", 2)
    check_nobits(ck, os.path.join(mnt, "exec"), infos[os.path.join(fx, "exec")], "exec")


def mentions(text, words):
    """True when one line of text holds every word (as a whole token)."""
    for line in text.splitlines():
        tokens = set(re.split(r"[\s:,()\[\]=]+", line))
        if all(w in tokens for w in words):
            return True
    return False


def mentions_segment(text, index):
    """A line naming a segment by its index ("segment 8", "segment 08")."""
    return any(re.search(rf"\bsegment\s+0*{index}\b", line, re.I) for line in text.splitlines())


def check_outofrange(ck, mnt, fx, infos):
    src, view = os.path.join(fx, "outofrange"), os.path.join(mnt, "outofrange")
    info, size = infos[src], os.path.getsize(src)
    names = oracle.section_file_names(info.sections)
    bad_secs = [s for s in info.sections if s.type != "NOBITS" and s.off + s.size > size]
    bad_segs = [p for p in info.segments if p.off + p.filesz > size]
    ck.ok(any(s.name == ".comment" for s in bad_secs), "outofrange: .comment in range (fixture)")
    ck.ok(bad_segs, "outofrange: no segment out of range (fixture)")
    try:
        text = read_all(os.path.join(view, "info")).decode(errors="replace")
    except OSError as e:
        text = ""
        ck.fail(f"{view}/info: {e.strerror}")
    for s in bad_secs:
        path = os.path.join(view, "sections", names[s.index])
        ck.ok(os.path.isfile(path) and os.stat(path).st_size == 0,
              f"{path}: out-of-range section not present and empty")
        ck.ok(os.path.isfile(path) and read_all(path) == b"", f"{path}: read not empty")
        ck.ok(mentions(text, [s.name]), f"outofrange info does not mention {s.name}: {text!r}")
    for p in bad_segs:
        fname = oracle.segment_file_name(p, info.machine)
        path = os.path.join(view, "segments", fname)
        ck.ok(os.path.isfile(path) and os.stat(path).st_size == 0,
              f"{path}: out-of-range segment not present and empty")
        ck.ok(os.path.isfile(path) and read_all(path) == b"", f"{path}: read not empty")
        ck.ok(mentions(text, [fname]) or mentions_segment(text, p.index),
              f"outofrange info does not mention segment {fname}: {text!r}")
    expected = check_listing(ck, view, info, src)
    check_bytes(ck, view, src, expected)


# Extra program headers appended to a copy of exec: p_type -> SPEC's TYPE.
EXTRA_TYPES = [(0, "NULL"), (0x12345678, "0x12345678"), (0x6FFF1234, "0x6fff1234"),
               (0x7ABCDEF0, "0x7abcdef0"), (0x6474E553, "GNU_PROPERTY"), (4, "NOTE")]
MANY_PHDRS = 120


def make_many_phdrs(src, dst):
    """A copy of ELF64 LE src with MANY_PHDRS program headers: its own, then
    extras covering the ELF header (offset 0, 64 bytes), in a table appended
    at the end. Returns {index: expected TYPE} of the extras (readelf cuts
    long type names, so it is no oracle for these)."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    table = bytearray(data[phoff:phoff + phentsize * phnum])
    extra = {}
    for i in range(phnum, MANY_PHDRS):
        ptype, name = EXTRA_TYPES[i % len(EXTRA_TYPES)]
        table += struct.pack("<IIQQQQQQ", ptype, i % 8, 0, 0, 0, 64, 64, 8)
        extra[i] = name
    data += bytes(-len(data) % 8)
    struct.pack_into("<Q", data, 0x20, len(data))
    struct.pack_into("<H", data, 0x38, MANY_PHDRS)
    data += table
    with open(dst, "wb") as f:
        f.write(data)
    return extra


def check_extra_xattrs(ck, path, kind, pflags):
    flags = "".join(c for c, bit in (("R", 4), ("W", 2), ("E", 1)) if pflags & bit)
    try:
        ck.eq(os.getxattr(path, "user.elf.type").decode(), kind, f"{path}: user.elf.type")
        ck.eq(os.getxattr(path, "user.elf.flags").decode(), flags, f"{path}: user.elf.flags")
    except OSError as e:
        ck.fail(f"{path}: getxattr: {e.strerror}")


def check_many_phdrs(ck, fx):
    """100+ program headers: NN is the index with two digits at least
    (00..99, 100..119); unnamed types are 0x%08x; flags letters R W E."""
    tmp = tempfile.mkdtemp(prefix="elffs-phdrs-")
    try:
        src = os.path.join(tmp, "manyph")
        extra = make_many_phdrs(os.path.join(fx, "exec"), src)
        info = oracle.readelf([src])[src]
        ck.eq(len(info.segments), MANY_PHDRS, "manyph: readelf segment count (test setup)")
        want = {}
        for p in info.segments:
            kind = extra.get(p.index) or oracle.spec_segment_type(p.type, info.machine)
            want[f"{p.index:02d}-{kind}"] = (p.off, 0 if p.off + p.filesz > os.path.getsize(src)
                                             else p.filesz)

        def body(m):
            view = os.path.join(m.path, "manyph")
            got = listing(ck, os.path.join(view, "segments"))
            ck.ok(got == set(want), f"manyph segments: missing {sorted(set(want) - got)[:6]}, "
                                    f"unexpected {sorted(got - set(want))[:6]}")
            fd = os.open(src, os.O_RDONLY)
            try:
                for name, (off, size) in sorted(want.items()):
                    if name in got:
                        err = oracle.compare_file(os.path.join(view, "segments", name), fd, off,
                                                  size)
                        ck.ok(err is None, f"manyph/segments/{name}: {err}")
                        ck.count("segments")
                    index = int(name.split("-", 1)[0])
                    if index in extra and name in got:
                        check_extra_xattrs(ck, os.path.join(view, "segments", name),
                                           extra[index], index % 8)
            finally:
                os.close(fd)

        run_mounted(ck, tmp, [], body)
    finally:
        shutil.rmtree(tmp)


def main():
    require_fuse()
    ck = Checker("names")
    fx = fixtures_dir()
    wanted = ["names.o", "many.o", "comdat.o", "xnum.o", "phxnum", "noshdr", "outofrange",
              "exec", "core"]
    wanted = [fixture(n) and n for n in wanted]
    infos = oracle.readelf([os.path.join(fx, n) for n in wanted])

    def body(m):
        for step in (check_names_o, check_segment_names, check_extended, check_outofrange):
            step(ck, m.path, fx, infos)
        ck.ok(m.alive(), "daemon died")

    run_mounted(ck, fx, [], body)
    check_many_phdrs(ck, fx)
    ck.finish()


if __name__ == "__main__":
    main()
