#!/usr/bin/python3
"""Readers survive a package upgrade (docs/elffs.1, CHANGES OF THE SOURCE).

A file of a binary's view opened before a change of its source goes on
reading the old bytes when the change leaves them as they were and shows:
the source's path names another file (a rename over it) or none (a
rename of it, an unlink), or an attribute moved (chmod to another mode, chown, a new hard
link). A change that moves the change time and nothing else stat shows
reads EIO: a rewrite in place with the times put back (cp -p, rsync
--inplace) and a chmod to the mode the file had, which stat cannot tell
apart. dpkg's own sequence too, step by step: a backup link, the new file
renamed over the old one (whose link count is then what it was: only its
path tells), the backup removed. What a read found to keep the old bytes
holds only while the change time stays: renamed away (the old bytes), then
back and rewritten in place with the times put back (EIO); a chmod (the
old bytes), then a rewrite in place with the times put back (EIO);
renamed away, linked back, the other name removed (the old bytes each
time: the link count moved from what the read before saw), then
rewritten (EIO).

Each case in both backends (mmap, -o nommap) for three kinds of file: a
section file (opened before the change, read with O_DIRECT so that every
read reaches the daemon), decompressed/ of a zlib-compressed section
(looked up before the change and opened after it, within the cache
timeout: the decompression goes by the old view), and a section of an ELF
member of an ar archive. The binaries are built here with gcc, objcopy and
ar. Then a reader's mapping of a section file (in a child, touched only
after the source is renamed over) must not get SIGBUS, and once the real
thing: two versions of a small .deb built with dpkg-deb, the second
installed over the first with `dpkg --root` into a directory under SOURCE
(its own database there) while section files and a mapping are held: they
read the old bytes, and an open after the cache timeout reads the new ones.
"""

import errno
import mmap
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time

from elffs_mount import NOBODY, NOGROUP, Checker, require_fuse, run_mounted

PROG = r"""
#include <stdio.h>
int counter[64];
const char banner[] = "elffs upgrade test " NAME;
int work(int x) { return x * VERSION + counter[x & 63]; }
int main(int argc, char **argv) { (void)argv; printf("%s %d\n", banner, work(argc)); return 0; }
"""

MEMBER = r"""
int member_value(int x) { return x * VERSION + 3; }
"""

LIB = r"""
int demo_value(int x) { return x * VERSION + 11; }
const char demo_name[] = "libdemo " NAME;
"""

# kind: (file name prefix, the file of the view a reader holds)
KINDS = {
    "section": ("s", "sections/.text"),
    "decompressed": ("z", "decompressed/.debug_info"),
    "member": ("a", "members/m.o/sections/.text"),
}


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def compile_c(work, out, source, version, args):
    """gcc of source (VERSION, NAME set) into out."""
    src = os.path.join(work, f"src{version}.c")
    with open(src, "w") as f:
        f.write(source)
    run(["gcc", "-g", "-O0", f"-DVERSION={version}", f'-DNAME="v{version}"', "-o", out, src]
        + args)
    return out


def build_inputs(work):
    """{kind: (version 1, version 2)} paths of the sources of each kind."""
    files = {}
    for v in (1, 2):
        prog = compile_c(work, os.path.join(work, f"prog{v}"), PROG, v, [])
        z = os.path.join(work, f"z{v}")
        run(["objcopy", "--compress-debug-sections=zlib", prog, z])
        obj = os.path.join(work, f"m{v}")
        os.makedirs(obj)
        compile_c(work, os.path.join(obj, "m.o"), MEMBER, v, ["-c"])
        lib = os.path.join(work, f"lib{v}.a")
        run(["ar", "rcS", lib, "m.o"], cwd=obj)
        files.setdefault("section", []).append(prog)
        files.setdefault("decompressed", []).append(z)
        files.setdefault("member", []).append(lib)
    return files


def read_direct(fd):
    """The whole open file, each read with O_DIRECT (fd opened so): every
    read reaches the daemon, whatever the page cache holds."""
    size = os.fstat(fd).st_size
    buf = mmap.mmap(-1, max(4096, (size + 4095) & ~4095))
    try:
        n = os.preadv(fd, [buf], 0)
        return bytes(buf[:n])
    finally:
        buf.close()


def outcome(fn):
    """fn()'s bytes, or the errno name of its OSError."""
    try:
        return fn()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def show(got):
    return got if isinstance(got, str) else f"{len(got)} bytes"


# The changes: each takes the source's path and the kind's second version,
# and returns whether a reader of the view made before it reads the old
# bytes (else EIO). dpkg_steps reads in between (reader: a callable).

def rename_over(path, new):
    shutil.copy(new, path + ".new")
    os.rename(path + ".new", path)


def rewrite_times_back(path, new):
    st = os.stat(path)
    with open(path, "r+b") as f:
        data = f.read()
        f.seek(0)
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


CHANGES = [
    ("rename over", rename_over, True),
    ("renamed away", lambda path, new: os.rename(path, path + ".moved"), True),
    ("unlink", lambda path, new: os.unlink(path), True),
    ("chmod to another mode", lambda path, new: os.chmod(path, 0o600), True),
    ("chown", lambda path, new: os.chown(path, NOBODY, NOGROUP), True),
    ("a new hard link", lambda path, new: os.link(path, path + ".lnk"), True),
    ("rewrite in place, times put back", rewrite_times_back, False),
    ("chmod to the same mode",
     lambda path, new: os.chmod(path, stat.S_IMODE(os.stat(path).st_mode)), False),
]


def rename_back(path, new):
    os.rename(path + ".moved", path)
    rewrite_times_back(path, new)


def link_back(path, new):
    os.link(path + ".moved", path)


# Changes in steps, a read after each: (what, [(step, old bytes), ...]).
# What a read found to keep the old bytes (a path that names none, an
# attribute moved) holds until the change time moves again: a later
# change is told against the state then. Not for decompressed/: its first
# read keeps what it decompressed (the old bytes, checked then), and the
# later ones read that.
SEQUENCES = [
    ("renamed away; back, rewritten in place, times put back",
     [(lambda path, new: os.rename(path, path + ".moved"), True), (rename_back, False)]),
    ("chmod to another mode; rewritten in place, times put back",
     [(lambda path, new: os.chmod(path, 0o600), True), (rewrite_times_back, False)]),
    ("renamed away; linked back; the other name removed; rewritten in place, times put back",
     [(lambda path, new: os.rename(path, path + ".moved"), True), (link_back, True),
      (lambda path, new: os.unlink(path + ".moved"), True), (rewrite_times_back, False)]),
]


class Held:
    """A reader of file rel of the view of source name, set up before the
    change: a section file open (its bytes read once), or decompressed/
    looked up (its bytes are those of the same file in an untouched copy)."""

    def __init__(self, mnt, name, kind, ref):
        self.kind = kind
        self.path = os.path.join(mnt, name, KINDS[kind][1])
        self.fd = None
        if kind == "decompressed":
            os.stat(self.path)
            with open(os.path.join(mnt, ref, KINDS[kind][1]), "rb") as f:
                self.want = f.read()
        else:
            self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECT)
            self.want = read_direct(self.fd)

    def read(self):
        if self.fd is not None:
            return outcome(lambda: read_direct(self.fd))
        return outcome(self.read_fresh)

    def read_fresh(self):
        with open(self.path, "rb") as f:
            return f.read()

    def close(self):
        if self.fd is not None:
            os.close(self.fd)


def check_read(ck, held, old, what):
    got = held.read()
    if old:
        ck.ok(got == held.want, f"{what}: {show(got)}, want the old {len(held.want)} bytes")
    else:
        ck.ok(got == "EIO", f"{what}: {show(got)}, want EIO")


def dpkg_steps(ck, src, mnt, name, kind, new, mode):
    """dpkg's sequence: the old file linked to a backup (link count 2), the
    new one renamed over it (link count 1 again: the path tells), the backup
    removed (0)."""
    path = os.path.join(src, name)
    held = Held(mnt, name, kind, "ref-" + kind)
    try:
        os.link(path, path + ".dpkg-tmp")
        shutil.copy(new, path + ".dpkg-new")
        os.rename(path + ".dpkg-new", path)
        check_read(ck, held, True, f"{mode} {kind}: dpkg's rename over, backup link kept")
        os.unlink(path + ".dpkg-tmp")
        check_read(ck, held, True, f"{mode} {kind}: dpkg's rename over, backup removed")
    finally:
        held.close()


def case_names(kind):
    prefix = KINDS[kind][0]
    return [f"{prefix}{i}" for i in range(len(CHANGES) + len(SEQUENCES) + 1)]


def populate(src, inputs):
    for kind, (v1, _) in inputs.items():
        for name in case_names(kind) + ["ref-" + kind]:
            shutil.copy(v1, os.path.join(src, name))
    shutil.copy(inputs["section"][0], os.path.join(src, "mapped"))


def mapped_reader(path, size, want, ready, go):
    """Child: map path, say so, wait, then touch every page of the mapping:
    exit 0 when it holds want, 1 when other bytes, killed by SIGBUS when a
    read fails."""
    pid = os.fork()
    if pid:
        return pid
    code = 2
    try:
        fd = os.open(path, os.O_RDONLY)
        m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
        os.write(ready, b"r")
        os.read(go, 1)
        code = 0 if m[:] == want else 1
    finally:
        os._exit(code)


def hold_mapping(path):
    """A child holding a mapping of path made now, pages untouched; the
    bytes it must find (read with O_DIRECT). Returns (pid, go pipe)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        want = read_direct(fd)
    finally:
        os.close(fd)
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = mapped_reader(path, len(want), want, ready_w, go_r)
    os.close(ready_w)
    os.close(go_r)
    os.read(ready_r, 1)
    os.close(ready_r)
    return pid, go_w


def mapping_result(ck, pid, go, what):
    os.write(go, b"g")
    os.close(go)
    status = os.waitpid(pid, 0)[1]
    if os.WIFSIGNALED(status):
        ck.fail(f"{what}: the reader was killed by {signal.Signals(os.WTERMSIG(status)).name}")
    else:
        ck.eq(os.waitstatus_to_exitcode(status), 0, f"{what}: the reader's exit (1: other bytes)")


def run_cases(ck, src, inputs, args):
    mode = " ".join(args) or "mmap"

    def body(m):
        for kind, (_, v2) in inputs.items():
            names = case_names(kind)
            for name, (what, change, old) in zip(names, CHANGES):
                held = Held(m.path, name, kind, "ref-" + kind)
                try:
                    change(os.path.join(src, name), v2)
                    check_read(ck, held, old, f"{mode} {kind}: {what}")
                finally:
                    held.close()
            for name, (what, steps) in zip(names[len(CHANGES):], SEQUENCES):
                if kind == "decompressed":
                    continue
                held = Held(m.path, name, kind, "ref-" + kind)
                try:
                    for i, (step, old) in enumerate(steps):
                        step(os.path.join(src, name), v2)
                        check_read(ck, held, old, f"{mode} {kind}: {what}: step {i + 1}")
                finally:
                    held.close()
            dpkg_steps(ck, src, m.path, names[-1], kind, v2, mode)
        pid, go = hold_mapping(os.path.join(m.path, "mapped", "sections", ".text"))
        rename_over(os.path.join(src, "mapped"), inputs["section"][1])
        mapping_result(ck, pid, go, f"{mode}: a mapping of sections/.text, source renamed over")
        ck.ok(m.alive(), f"{mode}: daemon died")

    # no re-check within the test: decompressed/ opens go by the old view
    # (watch=off: a watched SOURCE shows each change at once)
    run_mounted(ck, src, ["-o", "timeout=600,watch=off"] + args, body)


# ----------------------------------------------------------- a real dpkg

def build_deb(work, version):
    """elffs-demo_<version>.deb holding usr/lib/demo/libdemo.so; the path
    of its library and of the package."""
    pkg = os.path.join(work, f"pkg{version}")
    os.makedirs(os.path.join(pkg, "DEBIAN"))
    libdir = os.path.join(pkg, "usr", "lib", "demo")
    os.makedirs(libdir)
    lib = compile_c(work, os.path.join(libdir, "libdemo.so"), LIB, version,
                    ["-shared", "-fPIC"])
    with open(os.path.join(pkg, "DEBIAN", "control"), "w") as f:
        f.write(f"Package: elffs-demo\nVersion: {version}.0\nArchitecture: all\n"
                "Maintainer: elffs tests <root@localhost>\nDescription: elffs upgrade test\n")
    deb = os.path.join(work, f"elffs-demo_{version}.deb")
    run(["dpkg-deb", "--build", "--root-owner-group", pkg, deb])
    return lib, deb


def dpkg_install(root, deb):
    """dpkg -i into root with its own database (root/var/lib/dpkg): nothing
    of the machine's dpkg is touched, no log written."""
    run(["dpkg", f"--root={root}", "--log=/dev/null", "-i", deb], stderr=subprocess.STDOUT)


def section_bytes(path, section, work):
    out = os.path.join(work, "dump")
    run(["objcopy", f"--dump-section={section}={out}", path, os.path.join(work, "dump.elf")])
    with open(out, "rb") as f:
        return f.read()


def run_dpkg(ck, work, args):
    mode = " ".join(args) or "mmap"
    src = tempfile.mkdtemp(prefix="elffs-dpkg-")
    try:
        root = os.path.join(src, "root")
        os.makedirs(os.path.join(root, "var", "lib", "dpkg", "updates"))
        os.makedirs(os.path.join(root, "var", "lib", "dpkg", "info"))
        open(os.path.join(root, "var", "lib", "dpkg", "status"), "w").close()
        lib1, deb1 = build_deb(os.path.join(work, f"dpkg-{mode}"), 1)
        lib2, deb2 = build_deb(os.path.join(work, f"dpkg-{mode}"), 2)
        new_text = section_bytes(lib2, ".text", work)
        ck.ok(new_text != section_bytes(lib1, ".text", work), "the two .text differ (setup)")
        dpkg_install(root, deb1)

        def body(m):
            view = os.path.join(m.path, "root", "usr", "lib", "demo", "libdemo.so")
            held = [Held(m.path, os.path.relpath(view, m.path), "section", None)]
            for sec in ("sections/.rodata", "sections/.dynsym"):
                fd = os.open(os.path.join(view, sec), os.O_RDONLY | os.O_DIRECT)
                held.append((sec, fd, read_direct(fd)))
            pid, go = hold_mapping(os.path.join(view, "sections", ".text"))
            try:
                dpkg_install(root, deb2)
                check_read(ck, held[0], True, f"{mode}: dpkg -i: held sections/.text")
                for sec, fd, want in held[1:]:
                    got = outcome(lambda: read_direct(fd))
                    ck.ok(got == want, f"{mode}: dpkg -i: held {sec}: {show(got)}, want the "
                                       f"old {len(want)} bytes")
                mapping_result(ck, pid, go, f"{mode}: dpkg -i: a mapping of sections/.text")
            finally:
                held[0].close()
                for _, fd, _ in held[1:]:
                    os.close(fd)
            time.sleep(1.5)  # the cache timeout: the next open sees the new file
            with open(os.path.join(view, "sections", ".text"), "rb") as f:
                ck.ok(f.read() == new_text, f"{mode}: dpkg -i: a fresh open of sections/.text "
                                            "is not the new .text")
            ck.ok(m.alive(), f"{mode}: daemon died")

        run_mounted(ck, src, ["-o", "timeout=1"] + args, body)
    finally:
        shutil.rmtree(src)


def main():
    require_fuse()
    ck = Checker("upgrade")
    work = tempfile.mkdtemp(prefix="elffs-upg-")
    try:
        inputs = build_inputs(work)
        for args in ([], ["-o", "nommap"]):
            src = tempfile.mkdtemp(prefix="elffs-upg-src-")
            try:
                populate(src, inputs)
                run_cases(ck, src, inputs, args)
            finally:
                shutil.rmtree(src)
            run_dpkg(ck, work, args)
    finally:
        shutil.rmtree(work)
    ck.finish()


if __name__ == "__main__":
    main()
