#!/usr/bin/python3
"""The build-id index: MOUNT/.build-id/<xx>/<rest>[.debug].

- The index equals readelf -n over the same tree: every ELF file's first
  GNU build id of 2 to 64 bytes, `<rest>` for a binary and `<rest>.debug`
  for a separate debug file (readelf -S: .debug_info with bytes, .text
  NOBITS), the first relative path in byte order winning among copies;
  each link is `../../<path>/elf`, and that file holds the source's bytes.
- gdb -batch, with `set debug-file-directory MOUNT`, prints the source line
  of `main` of a stripped fixture binary from its debug file found through
  the mount (and does not without it: the test can fail).
- A file added, replaced (by rename, and rewritten in place) and deleted
  under the mounted tree appears, changes and vanishes within the timeout.
- Hostile build id notes (empty, 1 byte, 4 KiB, text, a bad namesz, two
  notes) never break the index: the rule above holds for them too, and
  the three of a wrong length are counted in user.elffs.leftout.
- Names that are prefixes of each other (prog, prog-copy, prog.orig):
  whole paths decide, not link targets (check_prefixes).
- info: the winner among files with one id (copies, hard links sharing one
  parse) lists every other one as "same build id: <path>" (paths from the
  mount's root, in byte order, compared with readelf -n over the tree and
  with the index's links), the others list none, and a read gives st_size
  bytes (cat); a file whose note the index leaves out (empty, 1 byte,
  4 KiB) says "build id note: malformed (N bytes)" (N: readelf's data
  size) and is not in the index. A copy added or removed is shown within
  the timeout; an info file opened after the index changed since its
  lookup gives the new lines, as many bytes as its st_size. No such lines
  before the first walk (info does not start it), with -o buildid=off, or
  with allow_other (with or without the index asked for).
- user.elffs.* of the index directory; -o buildid=off and -o buildid=NAME;
  an entry of that name in SOURCE's root is shown instead of the index, and
  one the view leaves out (a file that is not ELF, a FIFO) hides it too.
- A lookup made first, in a tree of 3,000 files, waits for the walk and
  finds its file; the rest of the mount answers meanwhile.
"""

import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from elf_oracle import is_elf
from elffs_mount import Checker, fixtures_dir, require_fuse, run_mounted

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import buildids  # noqa: E402

TIMEOUT = 0.3
WAIT = 5.0  # at most this long for a change to show (the timeout plus a loaded machine)
ENV = dict(os.environ, LC_ALL="C", DEBUGINFOD_URLS="")


def readelf(args, path):
    p = subprocess.run(["readelf", "-W"] + args + [path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, env=ENV)
    return p.stdout.decode(errors="replace")


def oracle_id(path):
    """(hex, debug) of path by readelf, or None (no id, or not 2 to 64 bytes)."""
    m = re.search(r"Build ID: ?([0-9a-f]*)(?:\s|$)", readelf(["-n"], path))
    if not m or not 4 <= len(m.group(1)) <= 2 * buildids.BID_MAX:
        return None
    secs = readelf(["-S"], path)
    info = re.search(r"\]\s+\.(z?)debug_info\s+(\S+)\s+\S+\s+\S+\s+([0-9a-f]+)", secs)
    text = re.search(r"\]\s+\.text\s+(\S+)", secs)
    debug = bool(info and info.group(2) != "NOBITS" and int(info.group(3), 16) > 0
                 and text and text.group(1) == "NOBITS")
    return m.group(1), debug


def elf_files(src):
    """The path of every regular ELF file below src (no symlink followed)."""
    for d, dirs, files in os.walk(src):
        for name in files:
            path = os.path.join(d, name)
            if not os.path.islink(path) and os.path.isfile(path) and is_elf(path):
                yield path


def expected_index(src):
    """{(hex, debug): winning relative path} over every ELF file of src."""
    want = {}
    for path in elf_files(src):
        key = oracle_id(path)
        rel = os.path.relpath(path, src)
        if key and (key not in want or rel.encode() < want[key].encode()):
            want[key] = rel
    return want


def mounted_index(ck, mnt, name=".build-id"):
    """{(hex, debug): relative path} read through the mount's links."""
    got = {}
    top = os.path.join(mnt, name)
    for xx in sorted(os.listdir(top)):
        ck.ok(re.fullmatch(r"[0-9a-f]{2}", xx), f"{name}/{xx}: not two hex digits")
        for rest in sorted(os.listdir(os.path.join(top, xx))):
            link = os.path.join(top, xx, rest)
            target = os.readlink(link)
            debug = rest.endswith(".debug")
            key = (xx + (rest[:-6] if debug else rest), debug)
            m = re.fullmatch(r"\.\./\.\./(.+)/elf", target)
            if ck.ok(m, f"{link}: target {target!r} is not ../../<path>/elf"):
                got[key] = m.group(1)
    return got


def same_bytes(ck, mnt, src, rel, what):
    try:
        with open(os.path.join(mnt, rel, "elf"), "rb") as f:
            got = f.read()
        with open(os.path.join(src, rel), "rb") as f:
            ck.ok(got == f.read(), f"{what}: {rel}/elf differs from the source")
    except OSError as e:
        ck.fail(f"{what}: {rel}/elf: {e.strerror}")


def xattr(path, name):
    return os.getxattr(path, "user.elffs." + name).decode()


def check_index(ck, src, mnt, what):
    want = expected_index(src)
    got = mounted_index(ck, mnt)
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    ck.ok(not missing, f"{what}: missing from the index: {missing[:5]}")
    ck.ok(not extra, f"{what}: in the index, not in readelf -n: {extra[:5]}")
    wrong = [(k, got[k], want[k]) for k in want if k in got and got[k] != want[k]]
    ck.ok(not wrong, f"{what}: winner (first path in byte order) differs: {wrong[:5]}")
    # the links lead to the file itself, through the mount
    for key, rel in sorted(got.items())[:20]:
        hexid, debug = key
        link = os.path.join(mnt, ".build-id", hexid[:2], hexid[2:] + (".debug" if debug else ""))
        try:
            with open(link, "rb") as f, open(os.path.join(src, rel), "rb") as g:
                ck.ok(f.read() == g.read(), f"{what}: {link} does not read as {rel}")
        except OSError as e:
            ck.fail(f"{what}: {link}: {e.strerror}")
    ck.count("ids", len(got))
    return want


def check_prefixes(ck, mnt):
    """Names that are prefixes of each other (prog, prog-copy, prog.orig):
    the link and the winner's info name the first path in byte order,
    whole paths compared, not the first link target (where "-" and "."
    sort before "/")."""
    for hexid, names in buildids.PREFIXES.items():
        rels = sorted(("prefixes/" + n for n in names), key=str.encode)
        ck.eq(target(mnt, hexid), "../../%s/elf" % rels[0], f"prefixes: the link of {names}")
        for rel in rels:
            lines = read_info(ck, mnt, rel)
            want = rels[1:] if rel == rels[0] else []
            ck.eq(lines and same_lines(lines), want, f"prefixes: {rel}/info")


def check_gdb(ck, src, mnt):
    if shutil.which("gdb") is None:
        ck.fail("gdb is not installed (scripts/test installs it)")
        return
    prog = os.path.join(src, "dbg", "prog")

    def line_of_main(ddir):
        p = subprocess.run(["gdb", "-batch", "-nx", "-iex", "set debuginfod enabled off",
                            "-iex", f"set debug-file-directory {ddir}", "-ex", "info line main",
                            prog], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV,
                           timeout=120)
        return p.stdout.decode(errors="replace")

    empty = tempfile.mkdtemp(prefix="elffs-nodebug-")
    try:
        without = line_of_main(empty)
    finally:
        os.rmdir(empty)
    ck.ok(not re.search(r'Line \d+ of "prog.c"', without),
          f"gdb found the line of main without the mount: {without.strip()[-200:]}")
    out = line_of_main(mnt)
    ck.ok(re.search(r'Line \d+ of "prog.c" starts at address', out),
          f"gdb with debug-file-directory {mnt}: no line of main: {out.strip()[-300:]}")
    print("gdb:", out.strip().splitlines()[-1] if out.strip() else "(nothing)")


def wait_for(pred):
    end = time.monotonic() + WAIT
    while True:
        if pred():
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.05)


def link_of(mnt, hexid, debug=False):
    return os.path.join(mnt, ".build-id", hexid[:2], hexid[2:] + (".debug" if debug else ""))


def target(mnt, hexid):
    try:
        return os.readlink(link_of(mnt, hexid))
    except OSError:
        return None


def check_changes(ck, src, mnt):
    a, b, c = "a1" * 20, "b2" * 20, "c3" * 20
    elf = lambda h: buildids.note_elf(buildids.note(bytes.fromhex(h)))  # noqa: E731
    new = os.path.join(src, "changes", "new.o")
    os.makedirs(os.path.dirname(new))
    os.listdir(os.path.join(mnt, ".build-id"))  # the index is built, then the tree changes
    with open(new + ".tmp", "wb") as f:
        f.write(elf(a))
    os.rename(new + ".tmp", new)
    ck.ok(wait_for(lambda: target(mnt, a) == "../../changes/new.o/elf"),
          f"added file not in the index within {WAIT} s: {target(mnt, a)}")
    with open(new + ".tmp", "wb") as f:
        f.write(elf(b))
    os.replace(new + ".tmp", new)
    ck.ok(wait_for(lambda: target(mnt, b) and not target(mnt, a)),
          f"replaced file (rename): old id {target(mnt, a)}, new id {target(mnt, b)}")
    with open(new, "r+b") as f:  # the same inode, new bytes
        f.write(elf(c))
    ck.ok(wait_for(lambda: target(mnt, c) and not target(mnt, b)),
          f"file rewritten in place: old id {target(mnt, b)}, new id {target(mnt, c)}")
    os.unlink(new)
    ck.ok(wait_for(lambda: not os.path.lexists(link_of(mnt, c))),
          f"deleted file still in the index after {WAIT} s")
    ck.ok(wait_for(lambda: "c3" not in os.listdir(os.path.join(mnt, ".build-id"))),
          "deleted file's <xx>/ still listed")
    shutil.rmtree(os.path.join(src, "changes"))


SAME = "same build id: "


def note_size(path):
    """Data size readelf -n shows for the first GNU build id note, or None."""
    m = re.search(r"GNU\s+0x([0-9a-f]+)\s+NT_GNU_BUILD_ID", readelf(["-n"], path))
    return int(m.group(1), 16) if m else None


def survey(src):
    """{relative path: (oracle_id, note_size)} of every ELF file of src."""
    out = {}
    for path in elf_files(src):
        out[os.path.relpath(path, src)] = (oracle_id(path), note_size(path))
    return out


def read_info(ck, mnt, rel, tool=True):
    """The lines of rel's info and whether a read gave st_size bytes: read
    with cat (tool) and compared with stat, or with fstat of the open file."""
    path = os.path.join(mnt, rel, "info")
    try:
        if tool:
            p = subprocess.run(["cat", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode != 0:
                ck.fail(f"cat {rel}/info: {p.stderr.decode(errors='replace').strip()}")
                return None
            data, size = p.stdout, os.stat(path).st_size
        else:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                data = f.read()
    except OSError as e:
        ck.fail(f"{rel}/info: {e.strerror}")
        return None
    ck.eq(len(data), size, f"{rel}/info: bytes read against st_size")
    return data.decode(errors="replace").splitlines()


def same_lines(lines):
    """The paths of the "same build id" lines, which must be the last ones."""
    got = [ln[len(SAME):] for ln in lines if ln.startswith(SAME)]
    return got if lines[len(lines) - len(got):] == [SAME + g for g in got] else ["(not last)"]


def check_info_lines(ck, src, mnt, what, shown=True):
    """Every ELF file's info against readelf -n over the tree: the winner
    among files with one id (and kind) lists the others in byte order, the
    others list none (none at all when the index is not shown); a note the
    index leaves out is said so, and that file is in no link."""
    files = survey(src)
    groups = {}
    for rel, (key, _) in files.items():
        if key:
            groups.setdefault(key, []).append(rel)
    index = mounted_index(ck, mnt) if shown else {}
    winners = {}
    for key, rels in groups.items():
        rels.sort(key=str.encode)
        if len(rels) > 1 and shown:
            winners[rels[0]] = rels[1:]
            ck.eq(index.get(key), rels[0], f"{what}: the index's link for {key}")
    bad = 0
    # the losers first: hard links share one parse, the winner's lines are its own
    for rel in sorted(files, key=lambda r: (r in winners, r.encode())):
        lines = read_info(ck, mnt, rel)
        if lines is None:
            continue
        ck.eq(same_lines(lines), winners.get(rel, []), f"{what}: {rel}/info: same build id lines")
        size = files[rel][1]
        want = []
        if size is not None and not buildids.BID_MIN <= size <= buildids.BID_MAX:
            want = [f"build id note: malformed ({size} byte{'' if size == 1 else 's'})"]
            bad += 1
            ck.ok(rel not in index.values(), f"{what}: {rel} (malformed note) in the index")
        ck.eq([ln for ln in lines if ln.startswith("build id note:")], want,
              f"{what}: {rel}/info: build id note line")
    ck.ok(bad >= 3, f"{what}: {bad} files with a malformed note (empty, 1 byte, 4 KiB)")
    if shown:
        ck.ok(len(winners) >= 2, f"{what}: the tree has {len(winners)} ids with copies")
        ck.ok(any(len(o) >= 2 for o in winners.values()), f"{what}: no id with three files")
    ck.count(f"same_id_winners {what}", len(winners))
    ck.count(f"malformed {what}", bad)


def check_same_changes(ck, src, mnt):
    """Copies added and removed: the winner's info follows within the timeout."""
    d = os.path.join(src, "same")
    os.makedirs(d)
    data = buildids.note_elf(buildids.note(bytes.fromhex("d4" * 20)))

    def put(name):
        with open(os.path.join(d, name + ".tmp"), "wb") as f:
            f.write(data)
        os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))

    def same(name):
        lines = read_info(ck, mnt, "same/" + name, tool=False)
        return None if lines is None else same_lines(lines)

    for name in ("x1", "x2", "x3"):
        put(name)
    os.listdir(os.path.join(mnt, ".build-id"))
    ck.ok(wait_for(lambda: same("x1") == ["same/x2", "same/x3"]),
          f"three copies: x1 lists {same('x1')}")
    ck.eq(same("x2"), [], "three copies: x2/info")
    os.unlink(os.path.join(d, "x3"))
    ck.ok(wait_for(lambda: same("x1") == ["same/x2"]), f"copy removed: x1 lists {same('x1')}")
    os.unlink(os.path.join(d, "x1"))
    ck.ok(wait_for(lambda: target(mnt, "d4" * 20) == "../../same/x2/elf"),
          f"winner removed: the link is {target(mnt, 'd4' * 20)}")
    ck.eq(same("x2"), [], "alone: x2/info")
    put("x0")
    ck.ok(wait_for(lambda: same("x0") == ["same/x2"]), f"copy added: x0 lists {same('x0')}")
    ck.eq(same("x2"), [], "x0 added: x2/info")
    shutil.rmtree(d)


SAME_MAX = 65536  # bytes of "same build id" lines in an info (fs/content/info.h)


def check_same_many(ck, src, mnt):
    """400 hard links with long names: the winner's info shows lines up to
    SAME_MAX bytes, then one line counts the rest."""
    d = os.path.join(src, "many")
    os.makedirs(d)
    first = os.path.join(d, "l000")
    with open(first, "wb") as f:
        f.write(buildids.note_elf(buildids.note(bytes.fromhex("f6" * 20))))
    names = ["l%03d-" % i + "n" * 190 for i in range(1, 400)]
    for name in names:
        os.link(first, os.path.join(d, name))
    want, size = [], 0
    for k, name in enumerate(names):
        line = SAME + "many/" + name + "\n"
        if size + len(line) > SAME_MAX:
            want.append("%s%d more" % (SAME, len(names) - k))
            break
        want.append(line[:-1])
        size += len(line)
    os.listdir(os.path.join(mnt, ".build-id"))

    def lines():
        got = read_info(ck, mnt, "many/l000", tool=False) or []
        return [ln for ln in got if ln.startswith(SAME)]

    ck.ok(wait_for(lambda: lines() == want),
          f"400 links: {len(lines())} same build id lines, want {len(want)}: {lines()[-1:]}")
    ck.ok(want[-1].endswith(" more"), "the test's links do not pass the limit")
    shutil.rmtree(d)


def check_stale_open(ck, src):
    """info opened after the index changed since its lookup (the kernel
    still holds its name): the open file shows the new lines, and as many
    bytes as its st_size (the daemon answers ESTALE, the kernel looks it up
    again). Counted as exercised when the open came before the name's
    timeout ran out."""
    timeout = 2.0
    d = os.path.join(src, "stale")
    os.makedirs(d)
    data = buildids.note_elf(buildids.note(bytes.fromhex("e5" * 20)))
    for name in ("y1", "y2", "y3"):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)

    def body(m):
        os.listdir(os.path.join(m.path, ".build-id"))  # the walk: the last look at SOURCE
        t0 = time.monotonic()
        time.sleep(timeout / 4)
        info = os.path.join(m.path, "stale", "y1", "info")
        looked = time.monotonic()
        before = os.stat(info).st_size  # the lookup: y2 and y3, no refresh yet
        os.unlink(os.path.join(d, "y3"))
        while time.monotonic() < t0 + timeout + 0.05:
            time.sleep(0.01)
        os.listdir(os.path.join(m.path, ".build-id", "e5"))  # a refresh: y3 is gone
        lines = read_info(ck, m.path, "stale/y1", tool=False)
        if time.monotonic() < looked + timeout:
            ck.count("stale_open_exercised")
        ck.eq(lines and same_lines(lines), ["stale/y2"], "info opened after the index changed")
        ck.ok(lines is None or os.stat(info).st_size < before, "st_size did not shrink")

    run_mounted(ck, src, ["-o", f"timeout={timeout}"], body)
    shutil.rmtree(d)


def check_state(ck, mnt, want):
    top = os.path.join(mnt, ".build-id")
    names = set(os.listxattr(top))
    for n in ("state", "files", "indexed", "debug", "leftout", "errors", "bytes", "walk_ms"):
        ck.ok("user.elffs." + n in names, f"user.elffs.{n} not listed: {sorted(names)}")
    ck.eq(xattr(top, "state"), "done", "user.elffs.state after a listing")
    files = {rel for rel in want.values()}
    ck.ok(int(xattr(top, "indexed")) >= len(files), "user.elffs.indexed below the winners")
    ck.ok(int(xattr(top, "leftout")) >= 3, "user.elffs.leftout: empty, 1-byte and 4 KiB ids")
    ck.eq(xattr(top, "debug"), "1", "user.elffs.debug: one debug file")
    ck.errno_is(errno.ENODATA, "user.elffs.nope", os.getxattr, top, "user.elffs.nope")
    print("index:", {n: xattr(top, n) for n in ("files", "indexed", "leftout", "errors",
                                                "preads", "bytes", "walk_ms")})


def check_lookups(ck, mnt):
    top = os.path.join(mnt, ".build-id")
    for bad in ("zz", "0", "000", "ZZ"):
        ck.errno_is(errno.ENOENT, f".build-id/{bad}", os.lstat, os.path.join(top, bad))
    xx = sorted(os.listdir(top))[0]
    for bad in ("x", "0", "zz" * 20, "00" * 70, ".debug", "ab.debug.debug"):
        ck.errno_is(errno.ENOENT, f".build-id/{xx}/{bad}", os.lstat, os.path.join(top, xx, bad))
    ck.errno_is(errno.EROFS, "mkdir in .build-id", os.mkdir, os.path.join(top, "new"))


MANY = 3000


def check_walk_waits(ck):
    """The first query starts the walk and waits for it: a lookup of an id
    among MANY files, made first, finds it (never ENOENT from the part indexed
    so far); meanwhile the rest of the mount answers (seen when the walk is
    still running after those calls returned)."""
    src = tempfile.mkdtemp(prefix="elffs-buildid-many-")
    try:
        ids = []
        for i in range(MANY):
            d = os.path.join(src, "d%02d" % (i // 500))
            if i % 500 == 0:
                os.makedirs(d)
            ident = bytes([0xee]) + i.to_bytes(4, "big") + bytes(15)
            ids.append(ident.hex())
            with open(os.path.join(d, "f%04d.o" % i), "wb") as f:
                f.write(buildids.note_elf(buildids.note(ident)))
        want = ids[MANY * 2 // 3]

        def body(m):
            top = os.path.join(m.path, ".build-id")
            ck.eq(xattr(top, "state"), "idle", "before any query: user.elffs.state")
            result = {}

            def lookup():
                try:
                    result["target"] = os.readlink(link_of(m.path, want))
                except OSError as e:
                    result["error"] = e

            t = threading.Thread(target=lookup)
            t.start()
            while xattr(top, "state") == "idle" and t.is_alive():
                time.sleep(0.001)
            os.listdir(m.path)
            with open(os.path.join(m.path, "d00", "f0000.o", "header"), "rb") as f:
                ck.eq(len(f.read()), 64, "header read during the walk")
            if xattr(top, "state") == "walking":
                ck.count("answered_during_walk")
            t.join(120)
            ck.ok(not t.is_alive(), "lookup during the walk never returned")
            ck.eq(result.get("target"), "../../d%02d/f%04d.o/elf" % (
                (MANY * 2 // 3) // 500, MANY * 2 // 3), f"lookup made first: {result}")
            ck.eq(xattr(top, "indexed"), str(MANY), "user.elffs.indexed after the walk")

        run_mounted(ck, src, [], body)
    finally:
        shutil.rmtree(src)


def main():
    require_fuse()
    ck = Checker("buildid")
    src = tempfile.mkdtemp(prefix="elffs-buildid-")
    try:
        buildids.write_all(src)
        fx = os.path.join(src, "fixtures")
        os.makedirs(fx)
        for name in os.listdir(fixtures_dir()):
            shutil.copy(os.path.join(fixtures_dir(), name), fx)
        # copies: the first path in byte order wins ("copies/a-pie" < "copies/a/pie")
        os.makedirs(os.path.join(src, "copies", "a"))
        shutil.copy(os.path.join(fx, "pie"), os.path.join(src, "copies", "a", "pie"))
        shutil.copy(os.path.join(fx, "pie"), os.path.join(src, "copies", "a-pie"))
        os.link(os.path.join(fx, "exec"), os.path.join(src, "copies", "exec-link"))
        os.symlink("../fixtures/pie", os.path.join(src, "copies", "symlink"))

        def body(m):
            want = check_index(ck, src, m.path, "first listing")
            ck.ok(any(k[1] for k in want), "the oracle found no debug file")
            check_state(ck, m.path, want)
            check_lookups(ck, m.path)
            check_prefixes(ck, m.path)
            same_bytes(ck, m.path, src, "dbg/prog", "elf")
            check_gdb(ck, src, m.path)
            check_info_lines(ck, src, m.path, "info")
            check_changes(ck, src, m.path)
            check_same_changes(ck, src, m.path)
            check_same_many(ck, src, m.path)
            time.sleep(TIMEOUT * 2)
            check_index(ck, src, m.path, "after the changes")
            ck.ok(m.alive(), "daemon died")

        run_mounted(ck, src, ["-o", f"timeout={TIMEOUT}"], body)

        def off(m):
            ck.ok(".build-id" not in os.listdir(m.path), "-o buildid=off: .build-id listed")
            ck.errno_is(errno.ENOENT, "-o buildid=off: lookup", os.lstat,
                        os.path.join(m.path, ".build-id"))
            check_info_lines(ck, src, m.path, "buildid=off", shown=False)

        run_mounted(ck, src, ["-o", "buildid=off"], off)

        def named(m):
            ck.ok("ids" in os.listdir(m.path) and ".build-id" not in os.listdir(m.path),
                  "-o buildid=ids: not listed as ids")
            # info neither starts nor waits for the first walk: no lines before it
            lines = read_info(ck, m.path, "copies/a-pie")
            ck.eq(lines and same_lines(lines), [], "info before the first walk")
            ck.eq(xattr(os.path.join(m.path, "ids"), "state"), "idle", "info started the walk")
            got = mounted_index(ck, m.path, "ids")
            lines = read_info(ck, m.path, "copies/a-pie")
            ck.eq(lines and same_lines(lines), ["copies/a/pie", "fixtures/pie"],
                  "info after the walk")
            ck.ok(any(v == "dbg/prog" for v in got.values()), "-o buildid=ids: dbg/prog missing")

        run_mounted(ck, src, ["-o", "buildid=ids"], named)

        # allow_other: the index (names and ids of files below directories
        # other users may not read) only when asked for by name
        def shared_off(m):
            ck.ok(".build-id" not in os.listdir(m.path), "allow_other: .build-id listed")
            ck.errno_is(errno.ENOENT, "allow_other: lookup", os.lstat,
                        os.path.join(m.path, ".build-id"))
            check_info_lines(ck, src, m.path, "allow_other", shown=False)

        run_mounted(ck, src, ["-o", "allow_other"], shared_off)

        def shared_asked(m):
            got = mounted_index(ck, m.path)
            ck.ok(any(v == "dbg/prog" for v in got.values()),
                  "allow_other,buildid=.build-id: dbg/prog missing")
            # info has no such lines on a shared mount (test_info_shared.py)
            check_info_lines(ck, src, m.path, "allow_other,buildid", shown=False)

        run_mounted(ck, src, ["-o", "allow_other,buildid=.build-id"], shared_asked)
        check_stale_open(ck, src)
        os.makedirs(os.path.join(src, ".build-id"))  # SOURCE has one: it is shown

        def hidden(m):
            top = os.path.join(m.path, ".build-id")
            ck.eq(os.listdir(top), [], "SOURCE's own .build-id (empty) is not the one shown")
            ck.errno_is(errno.ENODATA, "SOURCE's .build-id: user.elffs.state", os.getxattr,
                        top, "user.elffs.state")

        run_mounted(ck, src, [], hidden)
        # an entry of that name that the view leaves out (a file that is not
        # ELF, a FIFO) hides the index too: no .build-id at all (SPEC 6)
        os.rmdir(os.path.join(src, ".build-id"))
        for kind, make in (("a file that is not ELF", lambda p: open(p, "w").close()),
                           ("a FIFO", os.mkfifo)):
            make(os.path.join(src, ".build-id"))

            def left_out(m):
                ck.ok(".build-id" not in os.listdir(m.path),
                      f"SOURCE's .build-id is {kind}: the index is listed")
                ck.errno_is(errno.ENOENT, f"SOURCE's .build-id is {kind}: lookup", os.lstat,
                            os.path.join(m.path, ".build-id"))

            def renamed(m):
                ck.ok("ids" in os.listdir(m.path) and ".build-id" not in os.listdir(m.path),
                      f"SOURCE's .build-id is {kind}: -o buildid=ids not listed as ids")

            run_mounted(ck, src, [], left_out)
            run_mounted(ck, src, ["-o", "buildid=ids"], renamed)
            os.unlink(os.path.join(src, ".build-id"))
        check_walk_waits(ck)
        for bad in ("", "a/b", "..", "."):
            p = subprocess.run([os.environ["ELFFS"], "-o", f"buildid={bad}", src, src],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            ck.eq(p.returncode, 1, f"-o buildid={bad!r}: exit status")
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
