#!/usr/bin/python3
"""`header` and `info` of a binary's view: header is the first e_ehsize
bytes of the source; info names class, data, type and machine exactly as
readelf -h prints them, the entry point, the section and segment counts and
the interpreter (readelf -l's "Requesting program interpreter").
"""

import os
import re

import elf_oracle as oracle
from elffs_mount import Checker, fixture, fixtures_dir, require_fuse, run_mounted

FIXTURES = ["exec", "pie", "libshared.so", "many.o", "xnum.o", "phxnum", "noshdr", "core",
            "s390x-libc.so.6", "armhf-libc.so.6"]
SYSTEM = ["/usr/bin/ls", "/usr/bin/readelf"]


def lines_with(text, word):
    return [ln for ln in text.splitlines() if re.search(word, ln, re.I)]


def numbers(line):
    return {int(x, 0) for x in re.findall(r"\b(?:0x[0-9a-fA-F]+|\d+)\b", line)}


def check_info(ck, view, info, name):
    path = os.path.join(view, "info")
    try:
        with open(path, "rb") as f:
            raw = f.read()
        st = os.stat(path)
    except OSError as e:
        ck.fail(f"{path}: {e.strerror}")
        return
    ck.eq(st.st_size, len(raw), f"{name}: info st_size vs bytes read")
    text = raw.decode("utf-8", "replace")
    for key in ("Class", "Data", "Type", "Machine"):
        want = info.header[key]
        ck.ok(any(ln.rstrip().endswith(want) for ln in text.splitlines()),
              f"{name}: info has no line ending in readelf's {key} {want!r}:\n{text}")
    entry = int(info.header["Entry point address"], 16)
    ck.ok(any(entry in numbers(ln) and "0x" in ln for ln in lines_with(text, r"entry")),
          f"{name}: info has no entry line with 0x{entry:x}:\n{text}")
    shnum = len(info.sections)
    ck.ok(any(shnum in numbers(ln) or (shnum and shnum - 1 in numbers(ln))
              for ln in lines_with(text, r"\bsections?\b|section headers")),
          f"{name}: info has no sections line with {shnum} (or {shnum - 1}):\n{text}")
    phnum = len(info.segments)
    ck.ok(any(phnum in numbers(ln) for ln in lines_with(text, r"\bsegments?\b|program headers")),
          f"{name}: info has no segments line with {phnum}:\n{text}")
    if info.interp:
        ck.ok(any(info.interp in ln for ln in lines_with(text, "interp")),
              f"{name}: info has no interpreter line with {info.interp}:\n{text}")
    ck.count("infos")


def check_header(ck, view, src, info, name):
    ehsize = info.header_int("Size of this header")
    fd = os.open(src, os.O_RDONLY)
    try:
        err = oracle.compare_file(os.path.join(view, "header"), fd, 0, ehsize)
    finally:
        os.close(fd)
    ck.ok(err is None, f"{name}: header: {err}")
    ck.count("headers")


def main():
    require_fuse()
    ck = Checker("info")
    fx = fixtures_dir()
    for n in FIXTURES:
        fixture(n)
    srcs = [os.path.join(fx, n) for n in FIXTURES]
    infos = oracle.readelf(srcs + SYSTEM)
    ck.ok(infos[os.path.join(fx, "exec")].interp, "exec: readelf shows no interpreter (fixture)")

    def body(m):
        for src in srcs:
            view = os.path.join(m.path, os.path.basename(src))
            check_header(ck, view, src, infos[src], os.path.basename(src))
            check_info(ck, view, infos[src], os.path.basename(src))

    def body_sys(m):
        for src in SYSTEM:
            view = os.path.join(m.path, os.path.basename(src))
            check_header(ck, view, src, infos[src], src)
            check_info(ck, view, infos[src], src)

    run_mounted(ck, fx, [], body)
    run_mounted(ck, "/usr/bin", [], body_sys)
    ck.finish()


if __name__ == "__main__":
    main()
