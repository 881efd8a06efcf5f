#!/usr/bin/python3
"""The mirrored tree: directories (mode less write bits, owner, mtime),
symlinks kept as symlinks (also dangling ones), non-ELF files, FIFOs,
sockets, empty and short files left out, malformed ELF files giving clean
errors (never a crash), `ls -lR` and `find` finishing quickly; the view
of a binary (mode, owner, times); a single-file SOURCE.
"""

import errno
import os
import re
import shutil
import socket
import stat
import struct
import subprocess
import tempfile

import elf_oracle as oracle
from elffs_mount import Checker, fixture, require_fuse, run_mounted

VIEW_TOP = {"info", "header", "elf", "sections", "segments", "symbols", "symbol", "relocations"}
VIEW_OPTIONAL = {"build-id", "decompressed"}  # present when the file has them
MTIME_NS = 1_234_567_890_123_456_789
OWNER = (1234, 5678)


def build_source(root):
    """Make the test tree; returns (expected top listing, binaries)."""
    os.makedirs(os.path.join(root, "bin"))
    os.makedirs(os.path.join(root, "sub", "deeper"))
    os.makedirs(os.path.join(root, "modes"))
    shutil.copy(fixture("exec"), os.path.join(root, "bin", "exec"))
    shutil.copy(fixture("libshared.so"), os.path.join(root, "bin", "lib.so"))
    shutil.copy(fixture("pie"), os.path.join(root, "sub", "deeper", "pie"))
    os.link(os.path.join(root, "bin", "exec"), os.path.join(root, "hard"))
    os.symlink(os.path.join(root, "bin", "exec"), os.path.join(root, "link-abs"))
    os.symlink("bin/exec", os.path.join(root, "link-rel"))
    os.symlink("does/not/exist", os.path.join(root, "dangling"))
    os.symlink("sub", os.path.join(root, "dirlink"))
    with open(os.path.join(root, "notes.txt"), "w") as f:
        f.write("not an ELF file\n")
    open(os.path.join(root, "empty"), "w").close()
    with open(os.path.join(root, "short"), "wb") as f:
        f.write(b"\x7fEL")
    os.mkfifo(os.path.join(root, "fifo"))
    os.mkfifo(os.path.join(root, "bin", "fifo"))
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(os.path.join(root, "sock"))
    sock.close()
    for mode in (0o751, 0o705, 0o500, 0o2775):
        d = os.path.join(root, "modes", f"d{mode:o}")
        os.mkdir(d)
        os.chmod(d, mode)
        os.chown(d, *OWNER)
    binary = os.path.join(root, "bin", "exec")
    os.chmod(binary, 0o751)
    os.chown(binary, *OWNER)
    os.chmod(os.path.join(root, "bin", "lib.so"), 0o640)
    for d in ("modes/d751", "modes/d705", "modes/d500", "modes/d2775", "sub", "bin"):
        os.utime(os.path.join(root, d), ns=(MTIME_NS, MTIME_NS))
    os.utime(binary, ns=(MTIME_NS, MTIME_NS))
    hostile(root)
    top = {"bin", "sub", "modes", "hard", "link-abs", "link-rel", "dangling", "dirlink",
           "hostile"}
    return top, ["bin/exec", "bin/lib.so", "sub/deeper/pie", "hard"]


def hostile(root):
    """Files that are ELF by their magic but malformed (ELF64 LE exec)."""
    with open(fixture("exec"), "rb") as f:
        good = bytearray(f.read())
    os.mkdir(os.path.join(root, "hostile"))
    cases = {"ident-only": bytes(good[:16]), "class7": good[:4] + b"\x07" + good[5:]}
    for name, off, fmt, value in (("shoff-huge", 0x28, "<Q", 0xFFFFFFFFFFFF0000),
                                  ("shnum-huge", 0x3C, "<H", 0xFFFF),
                                  ("phoff-past-eof", 0x20, "<Q", len(good) + 4096),
                                  ("shstrndx-bad", 0x3E, "<H", 0xFFF0)):
        bad = bytearray(good)
        struct.pack_into(fmt, bad, off, value)
        cases[name] = bytes(bad)
    for name, data in cases.items():
        with open(os.path.join(root, "hostile", name), "wb") as f:
            f.write(data)
    return sorted(cases)


CLEAN_ERRORS = {errno.EIO, errno.EINVAL, errno.ENOENT, errno.ENOEXEC, errno.ESTALE}


def check_hostile(ck, mnt, m):
    """Walking and reading every hostile file: clean errors, no crash."""
    base = os.path.join(mnt, "hostile")
    for d, dirs, files in os.walk(base, onerror=lambda e: ck.ok(
            e.errno in CLEAN_ERRORS, f"walk {e.filename}: {e.strerror}")):
        for name in files:
            path = os.path.join(d, name)
            try:
                with open(path, "rb") as f:
                    f.read()
                ck.count("hostile_reads")
            except OSError as e:
                ck.ok(e.errno in CLEAN_ERRORS, f"{path}: {e.strerror}")
    ck.ok(m.alive(), "daemon died on hostile files")


def check_listing(ck, src, mnt, top):
    ck.eq(set(os.listdir(mnt)), top | {".build-id"}, "top directory listing")
    ck.eq(set(os.listdir(os.path.join(mnt, "bin"))), {"exec", "lib.so"}, "bin/ listing")
    for gone in ("notes.txt", "empty", "short", "fifo", "sock", "bin/fifo"):
        ck.ok(not os.path.lexists(os.path.join(mnt, gone)), f"{gone} is shown")
    for link in ("link-abs", "link-rel", "dangling", "dirlink"):
        path = os.path.join(mnt, link)
        ck.ok(os.path.islink(path), f"{link} is not a symlink")
        if os.path.islink(path):
            ck.eq(os.readlink(path), os.readlink(os.path.join(src, link)), f"{link} target")
    for rel in ("hard", "bin/exec", "bin/lib.so", "sub/deeper/pie"):
        path = os.path.join(mnt, rel)
        ck.ok(os.path.isdir(path) and set(os.listdir(path)) - VIEW_OPTIONAL == VIEW_TOP, f"{rel}: not a view")


def check_dirs(ck, src, mnt):
    for rel in ("sub", "bin", "modes/d751", "modes/d705", "modes/d500", "modes/d2775"):
        s, m = os.lstat(os.path.join(src, rel)), os.lstat(os.path.join(mnt, rel))
        ck.ok(stat.S_ISDIR(m.st_mode), f"{rel}: not a directory")
        ck.eq(oct(stat.S_IMODE(m.st_mode)), oct(stat.S_IMODE(s.st_mode) & ~0o222), f"{rel}: mode")
        ck.eq((m.st_uid, m.st_gid), (s.st_uid, s.st_gid), f"{rel}: owner")
        ck.eq(m.st_mtime_ns, s.st_mtime_ns, f"{rel}: mtime")


def view_nodes(view):
    yield view, True
    yield os.path.join(view, "info"), False
    yield os.path.join(view, "header"), False
    for d in ("sections", "segments"):
        yield os.path.join(view, d), True
        for name in sorted(os.listdir(os.path.join(view, d))):
            yield os.path.join(view, d, name), False


def check_view_attrs(ck, src, mnt, rel):
    s = os.stat(os.path.join(src, rel))
    rbits = stat.S_IMODE(s.st_mode) & 0o444
    want_dir, want_file = rbits | (rbits >> 2), rbits
    for path, is_dir in view_nodes(os.path.join(mnt, rel)):
        m = os.lstat(path)
        ok = stat.S_ISDIR(m.st_mode) if is_dir else stat.S_ISREG(m.st_mode)
        ck.ok(ok, f"{path}: wrong file type {oct(m.st_mode)}")
        ck.eq(oct(stat.S_IMODE(m.st_mode)), oct(want_dir if is_dir else want_file),
              f"{path}: mode (source {oct(stat.S_IMODE(s.st_mode))})")
        ck.eq((m.st_uid, m.st_gid), (s.st_uid, s.st_gid), f"{path}: owner")
        ck.eq(m.st_mtime_ns, s.st_mtime_ns, f"{path}: mtime")
        ck.count("view_nodes")


def run_tool(ck, cmd, what, ok_status=(0,)):
    """Run a tool on the mount; status 1 is allowed where a hostile file may
    give a clean error, but then only for lines about hostile/."""
    try:
        out = subprocess.run(cmd, capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        ck.fail(f"{what}: did not finish within 20 s")
        return b""
    ck.ok(out.returncode in ok_status, f"{what}: exit status {out.returncode}")
    for line in out.stderr.decode(errors="replace").splitlines():
        ck.ok("/hostile/" in line, f"{what}: error outside hostile/: {line}")
    return out.stdout


def expected_file_count(src, binaries):
    infos = oracle.readelf([os.path.join(src, b) for b in binaries])
    return sum(2 + len(i.sections) - (1 if i.sections else 0) + len(i.segments)
               for i in infos.values())


def check_tools(ck, src, mnt, binaries):
    run_tool(ck, ["ls", "-lR", mnt], "ls -lR", ok_status=(0, 1))
    out = run_tool(ck, ["find", mnt, "-type", "f", "-not", "-path", "*/hostile/*"],
                   "find -type f", ok_status=(0, 1))
    # the metadata views (symbols, symbol/, build-id, decompressed/) are counted by test_meta_views,
    # and <binary>/elf by test_bytes, .build-id/ by test_buildid
    old = [ln for ln in out.splitlines()
           if not re.search(rb"/(symbol|decompressed)/[^/]*$|/(symbols|build-id|relocations|elf)$", ln)]
    ck.eq(len(old), expected_file_count(src, binaries), "find -type f: file count")
    out = run_tool(ck, ["find", mnt, "-type", "l", "-not", "-path", "*/.build-id/*"],
                   "find -type l", ok_status=(0, 1))
    ck.eq(len(out.splitlines()), 4, "find -type l: symlink count")


def check_single(ck):
    src = fixture("exec")
    infos = oracle.readelf([src])

    def body(m):
        ck.eq(set(os.listdir(m.path)) - VIEW_OPTIONAL, VIEW_TOP, "single-file SOURCE: mount point listing")
        fd = os.open(src, os.O_RDONLY)
        try:
            for rel, off, size, _ in oracle.expected_files(infos[src], os.path.getsize(src)):
                err = oracle.compare_file(os.path.join(m.path, rel), fd, off, size)
                ck.ok(err is None, f"single-file SOURCE {rel}: {err}")
                ck.count("single_file_checked")
        finally:
            os.close(fd)
        st = os.stat(m.path)
        ck.ok(stat.S_ISDIR(st.st_mode), "single-file SOURCE: mount point is not a directory")

    run_mounted(ck, src, [], body)

    # an ar archive as SOURCE: the mount point is the archive's directory
    tmp = tempfile.mkdtemp(prefix="elffs-tree-ar-")
    try:
        lib = os.path.join(tmp, "lib.a")
        subprocess.run(["ar", "rcs", lib, fixture("comdat.o"), fixture("names.o")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def archive(m):
            ck.eq(sorted(os.listdir(m.path)), ["armap", "info", "members"],
                  "single-file SOURCE an archive: mount point listing")
            ck.eq(sorted(os.listdir(os.path.join(m.path, "members"))), ["comdat.o", "names.o"],
                  "single-file SOURCE an archive: members/")
            with open(os.path.join(m.path, "members", "names.o", "elf"), "rb") as f:
                with open(fixture("names.o"), "rb") as g:
                    ck.ok(f.read() == g.read(), "single-file SOURCE an archive: names.o/elf bytes")

        run_mounted(ck, lib, [], archive)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    require_fuse()
    ck = Checker("tree")
    src = tempfile.mkdtemp(prefix="elffs-tree-")
    try:
        top, binaries = build_source(src)

        def body(m):
            check_listing(ck, src, m.path, top)
            check_dirs(ck, src, m.path)
            for rel in ("bin/exec", "bin/lib.so"):
                check_view_attrs(ck, src, m.path, rel)
            check_hostile(ck, m.path, m)
            check_tools(ck, src, m.path, binaries)
            ck.ok(m.alive(), "daemon died")

        run_mounted(ck, src, [], body)
        check_single(ck)
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
