"""The oracle of the mount tests: GNU readelf's view of a file
(LC_ALL=C readelf -hSlW), the file names SPEC gives to its sections and
segments, and byte comparison of a mounted file against os.pread of the
source. Nothing here uses pfelf.
"""

import collections
import errno
import os
import re
import subprocess

Section = collections.namedtuple(
    "Section", "index name type addr off size es flags link info align")
Segment = collections.namedtuple(
    "Segment", "index type off vaddr paddr filesz memsz flags align")

_SEC_RE = re.compile(
    r"^\s*\[\s*(\d+)\] (.*?)\s+(SYMTAB SECTION INDICES|<unknown>: \S+|\S+)"
    r"\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)"
    r"\s+([A-Za-z]*)\s+(\d+)\s+(\d+)\s+(\d+)$")
# readelf prints the type as %-14.14s (longer names are cut) and an alignment
# of 0 as "0".
_SEG_RE = re.compile(
    r"^  (.{14}) 0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+)"
    r" ([R ][W ][E ]) (0x[0-9a-f]+|0)$")
_HDR_RE = re.compile(r"^  ([A-Za-z/ ]+?):\s+(.*?)\s*$")

# readelf drops the machine prefix of these segment types; SPEC keeps it.
_SEG_MACHINE_ALIASES = {
    "ARM": {"EXIDX": "ARM_EXIDX"},
    "MIPS R3000": {"REGINFO": "MIPS_REGINFO", "RTPROC": "MIPS_RTPROC",
                   "OPTIONS": "MIPS_OPTIONS", "ABIFLAGS": "MIPS_ABIFLAGS"},
}


class ElfInfo:
    """readelf's description of one file."""

    def __init__(self, path):
        self.path = path
        self.header = {}
        self.sections = []
        self.segments = []
        self.interp = None

    @property
    def machine(self):
        return self.header.get("Machine", "")

    def header_int(self, key):
        """A numeric header field; readelf writes extended values as 'N (real)'."""
        value = self.header[key]
        m = re.search(r"\((\d+)\)", value)
        if m:
            return int(m.group(1))
        return int(value.split()[0], 0)


def _parse_one(path, text):
    info = ElfInfo(path)
    part = None
    for line in text.splitlines():
        if line.startswith("ELF Header:"):
            part = "h"
        elif line.startswith("Section Headers:"):
            part = "s"
        elif line.startswith("Program Headers:"):
            part = "p"
        elif line.startswith("Key to Flags:") or line.startswith(" Section to Segment"):
            part = None
        elif part == "h":
            m = _HDR_RE.match(line)
            if m:
                info.header.setdefault(m.group(1), m.group(2))
        elif part == "s":
            m = _SEC_RE.match(line)
            if m:
                g = m.groups()
                info.sections.append(Section(int(g[0]), g[1], g[2], int(g[3], 16), int(g[4], 16),
                                             int(g[5], 16), int(g[6], 16), g[7].strip(),
                                             int(g[8]), int(g[9]), int(g[10])))
        elif part == "p":
            m = _SEG_RE.match(line)
            if m:
                g = m.groups()
                info.segments.append(Segment(len(info.segments), g[0].rstrip(), int(g[1], 16),
                                             int(g[2], 16), int(g[3], 16), int(g[4], 16),
                                             int(g[5], 16), g[6].replace(" ", ""),
                                             int(g[7], 0)))
            elif "[Requesting program interpreter: " in line:
                info.interp = line.split(": ", 1)[1].rstrip("]")
    return info


def readelf(paths, batch=150):
    """{path: ElfInfo} for every path, from LC_ALL=C readelf -hSlW."""
    env = dict(os.environ, LC_ALL="C")
    result = {}
    paths = list(paths)
    for i in range(0, len(paths), batch):
        chunk = paths[i:i + batch]
        out = subprocess.run(["readelf", "-hSlW"] + chunk, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env).stdout
        text = out.decode("utf-8", "surrogateescape")
        if len(chunk) == 1:
            result[chunk[0]] = _parse_one(chunk[0], text)
            continue
        parts = re.split(r"^File: (.*)$", text, flags=re.M)
        for j in range(1, len(parts) - 1, 2):
            result[parts[j]] = _parse_one(parts[j], parts[j + 1])
    return result


def _as_bytes(s):
    return s.encode("utf-8", "surrogateescape")


def section_file_names(sections):
    """{index: file name} for every section but index 0, as SPEC names them."""
    seen = {}
    for s in sections:
        if s.index != 0:
            seen.setdefault(s.name, s.index)
    names = {}
    for s in sections:
        if s.index == 0:
            continue
        raw = s.name
        if raw in ("", ".", "..") or "/" in raw:
            names[s.index] = raw.replace("/", "_") + f"~{s.index}"
        elif len(_as_bytes(raw)) > 200:
            names[s.index] = _as_bytes(raw)[:200].decode("utf-8", "surrogateescape") + f"~{s.index}"
        elif seen[raw] != s.index:
            names[s.index] = f"{raw}~{s.index}"
        else:
            names[s.index] = raw
    return names


def spec_segment_type(readelf_type, machine):
    """SPEC's TYPE part of a segment file name from readelf's Type column."""
    alias = _SEG_MACHINE_ALIASES.get(machine, {}).get(readelf_type)
    if alias:
        return alias
    m = re.match(r"^(LOOS|LOPROC)\+0x([0-9a-f]+)$", readelf_type)
    if m:
        base = 0x60000000 if m.group(1) == "LOOS" else 0x70000000
        return f"0x{base + int(m.group(2), 16):08x}"
    m = re.match(r"^<unknown>: ?(?:0x)?([0-9a-f]+)$", readelf_type)
    if m:
        return f"0x{int(m.group(1), 16):08x}"
    return readelf_type


def segment_file_name(seg, machine):
    return f"{seg.index:02d}-{spec_segment_type(seg.type, machine)}"


def expected_files(info, file_size):
    """[(relative path, offset, size, kind)] of every section and segment
    file; size is 0 for NOBITS and for ranges outside the file."""
    out = []
    names = section_file_names(info.sections)
    for s in info.sections:
        if s.index == 0:
            continue
        size = 0 if s.type == "NOBITS" or s.off + s.size > file_size else s.size
        out.append(("sections/" + names[s.index], s.off, size, "section"))
    for p in info.segments:
        size = 0 if p.off + p.filesz > file_size else p.filesz
        out.append(("segments/" + segment_file_name(p, info.machine), p.off, size, "segment"))
    return out


CHUNK = 1 << 20


def compare_file(mounted, src_fd, off, size):
    """None when the mounted file holds exactly the size bytes at off of
    src_fd, else a description of the difference."""
    try:
        st = os.stat(mounted)
        if st.st_size != size:
            return f"st_size {st.st_size}, want {size}"
        fd = os.open(mounted, os.O_RDONLY)
    except OSError as e:
        return f"cannot open: {e.strerror}"
    try:
        pos = 0
        while pos < size:
            got = os.read(fd, min(CHUNK, size - pos))
            if not got:
                return f"EOF after {pos} of {size} bytes"
            want = os.pread(src_fd, len(got), off + pos)
            if got != want:
                k = next(i for i in range(len(got)) if i >= len(want) or got[i] != want[i])
                return f"byte {pos + k} differs from the source"
            pos += len(got)
        extra = os.read(fd, 4096)
        if extra:
            return f"{len(extra)} bytes past the expected {size}"
    except OSError as e:
        return f"read error {errno.errorcode.get(e.errno, e.errno)} at {pos} of {size}"
    finally:
        os.close(fd)
    return None


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False
