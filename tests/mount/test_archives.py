#!/usr/bin/python3
"""ar archives (static libraries) through the mount, on both
backends (mmap, -o nommap), against GNU ar, nm and readelf.

The archives are built here from the fixtures' objects: with ar (GNU long
names, a member that is not ELF, a name given twice by `ar q`, real dates
with `U`), a thin one (relative and absolute paths), an empty one, a BSD
one written here (#1/LEN names, which ar reads), a hostile one (a long name
outside the // table, a member past the end of the file between good
members) and one of 30,000 members; plus the machine's libc.a when it has
one (an extra: every check holds without it).

For every archive whose members `ar tvO` lists:
- members/ lists one entry per member, named by the section naming rules
  (a name given twice: the later ones get ~<position>);
- an ELF member is a directory whose `elf` holds the member's bytes (the
  range ar tvO gives, and `ar p` for a name given once) and every section
  and segment file the bytes readelf -SlW gives for the extracted member;
  for a unique section name also objcopy --dump-section's bytes;
- any other member is a plain file of its bytes; a thin member a symlink
  to "../../<path>" (absolute paths as they are) that resolves, from
  members/, to the member's own view beside the archive in the mount;
- user.ar.* equal ar tvO's fields (mode, uid/gid, size, date, offset) and
  the member's position;
- armap equals nm --print-armap line for line ("<symbol> <entry>", the
  entry being the member's under members/);
- info counts the members, ELF ones, others, thin ones, index symbols;
- every node has the archive's owner and times.
The hostile archive lists its good members and says what it left out; the
30,000 members list (ls) like ar t. An archive replaced under the mount
(`ar q` of one more member) shows the new member within the timeout.

Churn (both backends, -o timeout=0.05): an archive replaced by rename every
5 ms, by turns with two archives, and truncated in place then written
whole again between renames, while 6 threads open, read and close section
files of its ELF members: only EIO or ENOENT (an ELF member whose first
bytes went away while the archive was parsed is never shown as a plain
file: no ENOTDIR), the daemon stays up, and (ASan build) no sanitizer report. A member file's last release gives
its member view back to the archive's core before it drops its reference
on the archive (the other order lets another thread's last release free
that core first: a heap use after free that kills the daemon within
seconds).
"""

import collections
import errno
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

from elffs_mount import (Checker, Mount, MountError, daemon_has_asan, daemon_status, fixture,
                         require_fuse)
import elf_oracle

ENV = dict(os.environ, LC_ALL="C", TZ="UTC")
OBJECTS = ["many.o", "names.o", "comdat.o", "bigendian.o", "bigendian32.o", "libshared.so"]
LIBC = "/usr/lib/x86_64-linux-gnu/libc.a"
SAMPLE = 200  # members of a big archive whose every section is checked
OBJCOPY_SAMPLE = 25  # of those, checked with objcopy too
OBJCOPY_MAX = 8  # sections a member checks with objcopy
# objcopy writes these again rather than dumping the input's bytes
OBJCOPY_REWRITES = ("SYMTAB", "STRTAB", "REL", "RELA", "GROUP", "DYNSYM", "SYMTAB_SHNDX")
MANY = 30000
CHURN_SECONDS = 8  # per backend
ELF_MANY = 400  # ELF members of elfmany.a: their views need more than WALK_BUDGET
WALK_BUDGET = 16  # MiB (-o memory=) of the walk of elfmany.a
WALK_SLACK = 26  # MiB above the budget: per-thread buffers, one parse's transients


def run(cmd, cwd=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.decode()}")
    return p.stdout


# ------------------------------------------------------------ building

def ar_header(name, size, mode=0o100644, date=0):
    h = (name.ljust(16) + str(date).ljust(12) + "0".ljust(6) + "0".ljust(6) +
         ("%o" % mode).ljust(8) + str(size).ljust(10) + "`\n")
    return h.encode()


def pad(b):
    return b + b"\n" if len(b) % 2 else b


def build(src, work):
    """The archives of the test in src (and the objects thin.a names)."""
    objs = {}
    for name in OBJECTS:
        shutil.copyfile(fixture(name), os.path.join(work, name))
        objs[name] = os.path.join(work, name)
    long_name = os.path.join(work, "a_member_name_longer_than_sixteen.o")
    shutil.copyfile(objs["names.o"], long_name)
    note = os.path.join(work, "README.txt")
    with open(note, "w") as f:
        f.write("not an ELF file\n")
    gnu = os.path.join(src, "libgnu.a")
    # libshared.so has a build id: its info asks the index for same-id lines
    run(["ar", "rcs", gnu, objs["many.o"], long_name, note, objs["comdat.o"],
         objs["libshared.so"]])
    run(["ar", "q", gnu, objs["many.o"]])  # many.o twice
    run(["ar", "s", gnu])
    run(["ar", "rcsU", os.path.join(src, "libdated.a"), objs["bigendian32.o"], objs["bigendian.o"]])
    run(["ar", "rc", os.path.join(src, "empty.a")])
    # thin: a relative path below, one beside, one absolute (outside SOURCE)
    os.makedirs(os.path.join(src, "sub"))
    shutil.copyfile(objs["many.o"], os.path.join(src, "sub", "t1.o"))
    shutil.copyfile(objs["comdat.o"], os.path.join(src, "t2.o"))
    run(["ar", "rcsT", "thin.a", "sub/t1.o", "t2.o", objs["names.o"]], cwd=src)
    # BSD: #1/LEN names (the name before the member's bytes), space-padded short ones
    a, b = (open(objs[n], "rb").read() for n in ("many.o", "comdat.o"))
    lname = b"a_long_bsd_member_name.o"
    bsd = b"!<arch>\n" + pad(ar_header("#1/%d" % len(lname), len(lname) + len(a)) + lname + a)
    bsd += pad(ar_header("comdat.o", len(b)) + b)
    with open(os.path.join(src, "bsd.a"), "wb") as f:
        f.write(bsd)
    # hostile: a name outside the (missing) // table, then a good member,
    # then one whose size passes the end of the file
    bad = b"!<arch>\n" + pad(ar_header("many.o/", len(a)) + a)
    bad += pad(ar_header("/9999", 4) + b"junk")
    bad += pad(ar_header("comdat.o/", len(b)) + b)
    bad += ar_header("cut.o/", 1 << 30) + b"\x7fELF"
    with open(os.path.join(src, "hostile.a"), "wb") as f:
        f.write(bad)
    # thin: a member path longer than PATH_MAX (a link nobody can read), then a good one
    table = b"/" * 5000 + b"/\n" + b"t2.o/\n"
    thin = b"!<thin>\n" + pad(ar_header("//", len(table)) + table)
    thin += ar_header("/0", 100) + ar_header("/5002", len(b))
    with open(os.path.join(src, "hostile-thin.a"), "wb") as f:
        f.write(thin)
    many = [b"!<arch>\n"]
    for i in range(MANY):
        many.append(pad(ar_header("m%05d.txt/" % i, 3) + b"%03d" % (i % 1000)))
    with open(os.path.join(src, "many.a"), "wb") as f:
        f.write(b"".join(many))
    names = [objs["many.o" if i % 2 else "comdat.o"] for i in range(ELF_MANY)]
    run(["ar", "qS", os.path.join(src, "elfmany.a")] + names)
    if os.path.exists(LIBC):
        shutil.copyfile(LIBC, os.path.join(src, "libc.a"))


# ------------------------------------------------------------- oracle

TV_RE = re.compile(r"^([-rwxsStT]{9}) (\d+)/(\d+) +(\d+) (\w{3} [ \d]\d \d\d:\d\d \d{4}) (.*?)"
                   r"(?: 0x([0-9a-f]+))?$")


def members(path, thin=False):
    """[(mode string, uid, gid, size, date string, name, offset or None)] of
    ar tvO, run beside the archive (a thin member's path is then as written)."""
    out = []
    text = run(["ar", "tv" if thin else "tvO", os.path.basename(path)],
               cwd=os.path.dirname(path)).decode("utf-8", "surrogateescape")
    for ln in text.splitlines():
        m = TV_RE.match(ln)
        if not m:
            raise RuntimeError(f"ar tvO {path}: cannot read {ln!r}")
        g = m.groups()
        out.append((g[0], int(g[1]), int(g[2]), int(g[3]), g[4], g[5],
                    int(g[6], 16) if g[6] else None))
    return out


def entry_names(raw):
    """The file names under members/ of members raw[0..] (position = index)."""
    seen, out = set(), []
    for i, name in enumerate(raw):
        b = name.encode("utf-8", "surrogateescape")
        if name in ("", ".", "..") or "/" in name:
            out.append(name.replace("/", "_") + f"~{i}")
        elif len(b) > 200:
            out.append(b[:200].decode("utf-8", "surrogateescape") + f"~{i}")
        elif name in seen:
            out.append(f"{name}~{i}")
        else:
            out.append(name)
        seen.add(name)
    return out


def armap(path):
    """[(symbol, member name)] of nm --print-armap, run beside the archive."""
    out, on = [], False
    for ln in run(["nm", "--print-armap", os.path.basename(path)], cwd=os.path.dirname(path),
                  check=False).decode(
            "utf-8", "surrogateescape").splitlines():
        if ln == "Archive index:":
            on = True
        elif on and not ln:
            break
        elif on:
            sym, _, mem = ln.rpartition(" in ")
            out.append((sym, mem))
    return out


def mode_string(mode):
    s = ""
    for shift in (6, 3, 0):
        bits = (mode >> shift) & 7
        s += ("r" if bits & 4 else "-") + ("w" if bits & 2 else "-") + ("x" if bits & 1 else "-")
    return s


# ------------------------------------------------------------- checks

def check_attrs(ck, m, name, st_src, paths):
    for p in paths:
        st = os.lstat(p)
        ck.ok(st.st_uid == st_src.st_uid and st.st_gid == st_src.st_gid and
              int(st.st_mtime) == int(st_src.st_mtime),
              f"{name}: {os.path.relpath(p, m.path)} has the archive's owner and times")


def check_xattrs(ck, name, path, pos, mem):
    mode, uid, gid, size, date, _, off = mem
    x = {k: os.getxattr(path, "user.ar." + k).decode() for k in
         ("position", "offset", "size", "mode", "uid", "gid", "date")}
    ck.eq(x["position"], str(pos), f"{name}: user.ar.position")
    ck.eq(int(x["size"]), size, f"{name}: user.ar.size")
    ck.eq(mode_string(int(x["mode"], 8)), mode, f"{name}: user.ar.mode")
    ck.eq((int(x["uid"]), int(x["gid"])), (uid, gid), f"{name}: user.ar.uid/gid")
    ck.eq(time.strftime("%b %e %H:%M %Y", time.gmtime(int(x["date"]))), date,
          f"{name}: user.ar.date")
    if off is not None:
        ck.eq(x["offset"], "0x%x" % off, f"{name}: user.ar.offset")


def check_elf_member(ck, label, mpath, afd, off, size, tmp, full, objcopy):
    """Member bytes at off (size) of the archive afd, shown at mpath: its
    elf file, and when full every section and segment file."""
    err = elf_oracle.compare_file(os.path.join(mpath, "elf"), afd, off, size)
    ck.ok(err is None, f"{label}: elf: {err}")
    if not full:
        return
    with open(os.path.join(mpath, "info"), "rb") as f:
        text = f.read()
    ck.ok(len(text) == os.stat(os.path.join(mpath, "info")).st_size and b"\ntype: " in text and
          b"same build id" not in text, f"{label}: info: {text[:200]!r}")
    obj = os.path.join(tmp, "member.o")
    with open(obj, "wb") as f:
        f.write(os.pread(afd, size, off))
    info = elf_oracle.readelf([obj])[obj]
    ck.ok(info.sections, f"{label}: readelf lists sections")
    for rel, soff, ssize, _ in elf_oracle.expected_files(info, size):
        err = elf_oracle.compare_file(os.path.join(mpath, rel), afd, off + soff, ssize)
        ck.ok(err is None, f"{label}: {rel}: {err}")
        ck.count("member files")
    if not objcopy:
        return
    names = [s.name for s in info.sections if s.index]
    files = elf_oracle.section_file_names(info.sections)
    done = 0
    for s in info.sections:
        if not s.index or s.type == "NOBITS" or s.type in OBJCOPY_REWRITES or not s.size or \
                names.count(s.name) != 1 or s.name in ("", ".", "..") or \
                done >= OBJCOPY_MAX:
            continue
        done += 1
        out = os.path.join(tmp, "dump")
        p = subprocess.run(["objcopy", "--dump-section", f"{s.name}={out}", obj,
                            os.path.join(tmp, "scratch.o")], env=ENV,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if p.returncode != 0:
            continue
        with open(out, "rb") as f, open(os.path.join(mpath, "sections", files[s.index]), "rb") as g:
            ck.eq(g.read() == f.read(), True, f"{label}: sections/{s.name} against objcopy")
        ck.count("objcopy sections")


def check_archive(ck, m, name, tmp, rng):
    src = os.path.join(m.source, name)
    view = os.path.join(m.path, name)
    thin = open(src, "rb").read(8) == b"!<thin>\n"
    mems = members(src, thin)
    raw = [x[5] for x in mems]
    entries = entry_names(raw)
    ck.eq(sorted(os.listdir(view)), ["armap", "info", "members"], f"{name}: entries")
    ck.eq(sorted(os.listdir(os.path.join(view, "members"))), sorted(entries),
          f"{name}: members/ against ar t")
    info = open(os.path.join(view, "info")).read()
    st_src = os.stat(src)
    afd = os.open(src, os.O_RDONLY)
    n_elf = n_other = 0
    big = len(mems) > 100
    full = set(rng.sample(range(len(mems)), min(SAMPLE, len(mems)))) if big else None
    objcopy = set(rng.sample(sorted(full), min(OBJCOPY_SAMPLE, len(full)))) if big else None
    try:
        for pos, (mem, entry) in enumerate(zip(mems, entries)):
            mpath = os.path.join(view, "members", entry)
            label = f"{name}: members/{entry}"
            st = os.lstat(mpath)
            if thin:
                ck.ok(stat.S_ISLNK(st.st_mode), f"{label}: a symlink")
                want = mem[5] if mem[5].startswith("/") else "../../" + mem[5]
                ck.eq(os.readlink(mpath), want, f"{label}: target")
                if not mem[5].startswith("/"):
                    ck.ok(os.path.isdir(os.path.join(mpath, "sections")),
                          f"{label}: resolves to the member's view in the mount")
                continue
            off, size = mem[6], mem[3]
            check_xattrs(ck, label, mpath, pos, mem)
            if os.pread(afd, 4, off) == b"\x7fELF":
                n_elf += 1
                ck.ok(stat.S_ISDIR(st.st_mode), f"{label}: a directory")
                check_elf_member(ck, label, mpath, afd, off, size, tmp,
                                 not big or pos in full, not big or pos in objcopy)
                if raw.count(mem[5]) == 1 and pos in (objcopy or {pos}):
                    with open(os.path.join(mpath, "elf"), "rb") as f:
                        ck.ok(f.read() == run(["ar", "p", src, mem[5]]),
                              f"{label}: elf against ar p")
            else:
                n_other += 1
                ck.ok(stat.S_ISREG(st.st_mode), f"{label}: a plain file")
                err = elf_oracle.compare_file(mpath, afd, off, size)
                ck.ok(err is None, f"{label}: bytes: {err}")
            if pos < 3:
                check_attrs(ck, m, label, st_src, [mpath, os.path.join(view, "members")])
            ck.count("members")
    finally:
        os.close(afd)
    want_map = armap(src)
    got_map = [ln.rsplit(" ", 1) for ln in open(os.path.join(view, "armap")).read().splitlines()]
    by_entry = dict(zip(entries, raw))
    ck.eq(len(got_map), len(want_map), f"{name}: armap lines against nm --print-armap")
    for i, ((gs, ge), (ws, wm)) in enumerate(zip(got_map, want_map)):
        if not ck.ok(gs == ws and by_entry.get(ge) == wm,
                     f"{name}: armap line {i}: {gs} {ge} against nm's {ws} in {wm}"):
            break
    for key, want in (("members", len(mems)), ("index symbols", len(want_map)),
                      ("thin members", len(mems) if thin else 0)):
        ck.ok(f"\n{key}: {want}\n" in info, f"{name}: info says {key}: {want}")
    if not thin:
        ck.ok(f"\nELF members: {n_elf}\n" in info and f"\nother members: {n_other}\n" in info,
              f"{name}: info counts {n_elf} ELF members, {n_other} others:\n{info}")
    check_attrs(ck, m, name, st_src, [os.path.join(view, x) for x in ("info", "armap", "members")])


def check_hostile(ck, m):
    view = os.path.join(m.path, "hostile.a")
    ck.eq(sorted(os.listdir(os.path.join(view, "members"))), ["comdat.o", "many.o"],
          "hostile.a: the good members")
    ck.ok(os.path.isdir(os.path.join(view, "members", "comdat.o", "sections")),
          "hostile.a: the member after a bad one is readable")
    info = open(os.path.join(view, "info")).read()
    left = [ln for ln in info.splitlines() if ln.startswith("left out: header at")]
    ck.ok("left out: 2\n" in info and len(left) == 2, f"hostile.a: two left out, why:\n{info}")
    # a thin member whose path does not fit in a link: EIO, as the
    # hostile-input tests allow (ENAMETOOLONG before), its neighbour a link
    top = os.path.join(m.path, "hostile-thin.a", "members")
    names = sorted(os.listdir(top))
    ck.eq(len(names), 2, f"hostile-thin.a: members {names}")
    for name in names:
        path = os.path.join(top, name)
        try:
            got = os.readlink(path)
            ck.eq(got, "../../t2.o", f"hostile-thin.a: {name[:20]}... link")
        except OSError as e:
            ck.ok(name.startswith("_" * 200) and e.errno == errno.EIO,
                  f"hostile-thin.a: readlink {name[:20]}...: {e!r}, want EIO for the long one")
        try:
            os.lstat(path)
        except OSError as e:
            ck.eq(e.errno, errno.EIO, f"hostile-thin.a: lstat {name[:20]}...")


def check_many(ck, m):
    t = time.monotonic()
    names = os.listdir(os.path.join(m.path, "many.a", "members"))
    print(f"many.a: {len(names)} members listed in {time.monotonic() - t:.2f} s", flush=True)
    want = run(["ar", "t", os.path.join(m.source, "many.a")]).decode().split()
    ck.eq(sorted(names), sorted(want), "many.a: members against ar t")
    with open(os.path.join(m.path, "many.a", "members", "m12345.txt"), "rb") as f:
        ck.eq(f.read(), b"345", "many.a: a member's bytes")


def check_empty(ck, m):
    view = os.path.join(m.path, "empty.a")
    ck.eq(os.listdir(os.path.join(view, "members")), [], "empty.a: no members")
    info = open(os.path.join(view, "info")).read()
    ck.ok("\nmembers: 0\n" in info and "symbol index: none" in info, f"empty.a: info:\n{info}")
    ck.eq(os.path.getsize(os.path.join(view, "armap")), 0, "empty.a: armap empty")


def walk_round(ck, src):
    """Every member's sections, info and symbols of elfmany.a under a small
    memory budget: the idle member views go, nothing is refused."""
    with Mount(ck, src, ["-o", f"memory={WALK_BUDGET}"]) as m:
        pid = m.proc.pid
        base = daemon_status(pid)["VmRSS"]
        errors, files = [], 0
        top = os.path.join(m.path, "elfmany.a", "members")
        for entry in sorted(os.listdir(top)):
            try:
                for name in ("info", "symbols"):
                    with open(os.path.join(top, entry, name), "rb") as f:
                        f.read()
                files += 2 + len(os.listdir(os.path.join(top, entry, "sections")))
            except OSError as e:
                errors.append(f"{entry}: {e}")
        peak = daemon_status(pid)["VmHWM"]
        print(f"elfmany.a: {files} files of {ELF_MANY} members, VmHWM {peak / 2**20:.1f} MiB "
              f"(RSS at mount {base / 2**20:.1f})", flush=True)
        ck.eq(errors[:3], [], f"elfmany.a under -o memory={WALK_BUDGET}: errors")
        if not daemon_has_asan(pid):
            bound = base + (WALK_BUDGET + WALK_SLACK) * 2**20
            ck.ok(peak <= bound, f"elfmany.a: VmHWM {peak} within {bound}")


def check_change(ck, m, work):
    src = os.path.join(m.source, "libdated.a")
    before = os.listdir(os.path.join(m.path, "libdated.a", "members"))
    extra = os.path.join(work, "extra.o")
    shutil.copyfile(fixture("many.o"), extra)
    new = os.path.join(work, "libdated.a")
    shutil.copyfile(src, new)
    run(["ar", "q", new, extra])
    os.rename(new, src)
    time.sleep(1.5)
    after = os.listdir(os.path.join(m.path, "libdated.a", "members"))
    ck.eq(sorted(after), sorted(before + ["extra.o"]), "libdated.a: a new member after ar q")
    ck.ok(os.path.isdir(os.path.join(m.path, "libdated.a", "members", "extra.o", "sections")),
          "libdated.a: the new member's view")


def check_kind_swap(ck, m, work):
    """A binary replaced by an archive and back while the kernel still
    holds a directory of the other kind (symbol/, members/): listing it and
    looking a name up in it give ENOENT or EIO (the daemon read the
    archive's view as an ELF file's before: a NULL handle, dead daemon)."""
    path, tmp = os.path.join(m.source, "swap.bin"), os.path.join(work, "swap.bin")
    elf, ar = fixture("libshared.so"), os.path.join(m.source, "libdated.a")
    for first, then, held in ((elf, ar, "symbol"), (ar, elf, "members")):
        shutil.copyfile(first, tmp)
        os.rename(tmp, path)
        time.sleep(1.2)
        fd = os.open(os.path.join(m.path, "swap.bin", held), os.O_PATH | os.O_DIRECTORY)
        try:
            names = os.listdir(os.path.join(m.path, "swap.bin", held))
            shutil.copyfile(then, tmp)
            os.rename(tmp, path)
            time.sleep(1.2)
            for what, call in (("list", lambda: os.listdir(
                    os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd))),
                               ("lookup", lambda: os.stat(names[0], dir_fd=fd))):
                try:
                    call()
                    err = 0
                except OSError as e:
                    err = e.errno
                ck.ok(err in (errno.ENOENT, errno.EIO),
                      f"{held}/ held across a swap, {what}: errno {err}, want ENOENT or EIO")
                ck.ok(m.alive(), f"{held}/ held across a swap, {what}: the daemon died")
        finally:
            os.close(fd)
    os.unlink(path)


def churn_reader(mnt, stop, rng, stats, bad):
    top = os.path.join(mnt, "churn.a", "members")
    while not stop.is_set():
        fds = []
        try:
            names = [n for n in os.listdir(top) if n.endswith((".o", ".so"))]  # ELF members
            for name in rng.sample(names, min(4, len(names))):
                fds.append(os.open(os.path.join(top, name, "sections", ".text"), os.O_RDONLY))
            for name in names[:4]:  # lookups that take and give back the archive's view
                os.listdir(os.path.join(top, name, "sections"))
            for fd in fds:
                os.pread(fd, 64, 0)
            stats["rounds"] += 1
        except OSError as e:
            stats[errno.errorcode.get(e.errno, str(e.errno))] += 1
            if e.errno not in (errno.EIO, errno.ENOENT) and len(bad) < 5:
                bad.append(repr(e))
        finally:
            for fd in fds:
                os.close(fd)


def churn_round(ck, src, work, args, label):
    """Member files opened, read and closed by 6 threads while their archive
    is replaced by rename every 5 ms."""
    versions = [open(os.path.join(src, n), "rb").read() for n in ("libgnu.a", "libdated.a")]
    path, tmp = os.path.join(src, "churn.a"), os.path.join(work, "churn.a")
    with open(path, "wb") as f:
        f.write(versions[0])
    with Mount(ck, src, args + ["-o", "timeout=0.05"]) as m:
        stop, stats, bad = threading.Event(), collections.Counter(), []
        threads = [threading.Thread(target=churn_reader,
                                    args=(m.path, stop, random.Random(k), stats, bad))
                   for k in range(6)]
        for t in threads:
            t.start()
        end, i, rng = time.monotonic() + CHURN_SECONDS, 0, random.Random(1)
        try:
            while time.monotonic() < end and m.alive():
                i += 1
                data = versions[i % 2]
                with open(tmp, "wb") as f:
                    f.write(data)
                os.rename(tmp, path)
                time.sleep(0.005)
                os.truncate(path, rng.randrange(8, len(data)))  # cut, then whole again
                time.sleep(0.002)
                with open(path, "r+b") as f:
                    f.write(data)
        finally:
            stop.set()
            for t in threads:
                t.join()
        print(f"{label} churn: {i} replacements, readers {dict(stats)}", flush=True)
        ck.ok(m.alive(), f"{label}: the daemon died under archive churn")
        ck.eq(bad, [], f"{label}: archive churn: errors other than EIO/ENOENT")
        ck.ok(stats["rounds"] > 0, f"{label}: archive churn: no round read its members")
    os.unlink(path)


def main():
    require_fuse()
    ck = Checker("archives")
    seed = int(os.environ.get("TB_SEED", "0")) or random.randrange(1, 1 << 30)
    print(f"seed {seed}", flush=True)
    for args, label in (([], "mmap"), (["-o", "nommap"], "nommap")):
        src = tempfile.mkdtemp(prefix="elffs-ar-src-")
        work = tempfile.mkdtemp(prefix="elffs-ar-work-")
        try:
            build(src, work)
            with Mount(ck, src, args + ["-o", "timeout=1"]) as m:
                # the build-id index walked: a member's info then asks it
                # for its same-build-id lines (members are not indexed)
                os.listdir(os.path.join(m.path, ".build-id"))
                rng = random.Random(seed)
                for name in sorted(os.listdir(src)):
                    if name.endswith(".a") and name not in ("hostile.a", "many.a", "empty.a",
                                                            "elfmany.a", "hostile-thin.a"):
                        t = time.monotonic()
                        check_archive(ck, m, name, work, rng)
                        print(f"{label} {name}: {time.monotonic() - t:.1f} s", flush=True)
                check_hostile(ck, m)
                check_many(ck, m)
                check_empty(ck, m)
                check_change(ck, m, work)
                check_kind_swap(ck, m, work)
            churn_round(ck, src, work, args, label)
            if not args:
                walk_round(ck, src)
        except MountError as e:
            ck.fail(str(e))
        finally:
            shutil.rmtree(src, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
