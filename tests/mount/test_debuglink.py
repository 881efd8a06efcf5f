#!/usr/bin/python3
"""A binary's `debug`, minidebuginfo.debug and .build-id/<xx>/<rest>.debug.

The SOURCE tree is made here from tests/fixtures/minidebug/mkminidebug.py's
fixtures, each debug file where the search looks (SPEC 6, elffs(1) DEBUG
INFORMATION), on both backends (default and -o nommap):

- `debug` of each program leads to the elf of its best debug information:
  the debug file with its build id in SOURCE (even when its debug link
  would do too), its debug link's file beside it, in .debug/ beside it
  and under usr/lib/debug/<its directory>/ (each file's bytes through the
  link), its minidebuginfo.debug (also when its debug link leads nowhere),
  and none for a program without any, for a debug link whose CRC is not
  the file's (info: "CRC 0x<file's> in the file, 0x<link's> wanted", the
  values computed here with zlib and readelf -x .gnu_debuglink), and for a
  link named "../dl-escape.debug" (a file with that CRC waits there: it is
  never followed); a debug link beats minidebuginfo.debug;
- a listing before any lookup shows `debug` where it may serve, and info
  then says the CRC was not checked yet: the listing read no file whole;
  after the lookup the listing shows it exactly where it serves;
- a debug file changed after its CRC was taken: `debug` is gone within
  the timeout, info gives the new CRC;
- minidebuginfo.debug: the binary's build-id note and section addresses
  (readelf), and every function of the MiniDebugInfo's .symtab and the
  binary's .dynsym with a size, at its address (nm of the unstripped
  program); s390x (big endian) too; none in gnu_debugdata/, and EIO for the
  hostile streams (whose `debug` is then none);
- .build-id/<xx>/<rest>.debug of a program without a debug file in SOURCE
  leads to its debug link's file or its minidebuginfo.debug, the same as
  its `debug`; none for one without;
- tools: llvm-symbolizer --debug-file-directory=MNT --obj=PROG names the
  static functions of a stripped program whose names are only in its
  MiniDebugInfo (and prints ?? without the mount); addr2line -f -e
  MNT/<prog>/debug; gdb (set debug-file-directory MNT) and eu-addr2line
  --debuginfo-path=MNT on the program without its .gnu_debugdata (so that
  they cannot read it themselves);
- allow_other: `debug` and the .build-id link that lead to a debug file
  nobody may read give nobody EACCES on readlink, and the target to root;
- a debug link's file rewritten while its CRC is computed, over and over
  under 4 readers: `debug` is a target or absent, never another error,
  the daemon alive;
- -o debuginfod (a server of the test's own on the loopback): a program
  whose debug file only the server has: before any lookup, info says the
  servers were not asked and the listing has no `debug`; then `debug`
  leads to .build-id/.remote/<id>.debug/elf, before the debug link's file
  beside it, with the server's bytes.
"""

import errno
import http.server
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

from elffs_mount import (Checker, as_nobody, build_id, require_env, require_fuse, run_mounted)

ENV = dict(os.environ, LC_ALL="C", DEBUGINFOD_URLS="")
TIMEOUT = 0.3
WAIT = 5.0


def tool(args, cwd=None):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV,
                          cwd=cwd, check=False).stdout.decode(errors="replace")


def crc_of(path):
    with open(path, "rb") as f:
        return zlib.crc32(f.read()) & 0xffffffff


def link_crc(path):
    """The CRC a program's .gnu_debuglink holds (readelf -x), little endian."""
    raw = b"".join(bytes.fromhex("".join(m.group(1).split()))
                   for m in re.finditer(r"^\s+0x[0-9a-f]+ ((?:[0-9a-f]+ ){1,4})",
                                        tool(["readelf", "-x", ".gnu_debuglink", path]), re.M))
    name_end = raw.index(b"\0")
    at = (name_end + 4) & ~3
    return struct.unpack_from("<I", raw, at)[0]


def make_tree(fix, src):
    """SOURCE: programs in bin/, their debug files where the search looks."""
    os.makedirs(os.path.join(src, "bin", ".debug"))
    os.makedirs(os.path.join(src, "usr", "lib", "debug", "bin"))
    cp = lambda name, to: shutil.copy(os.path.join(fix, name), os.path.join(src, to))  # noqa: E731
    for p in ("dl-beside", "dl-dotdebug", "dl-global", "dl-wrongcrc", "dl-escape", "dl-mini",
              "mini-x86", "mini-s390x", "bid-prog", "plain-x86", "hx-lie-more", "hx-cut"):
        cp(p, "bin/" + p)
    cp("dl-beside.debug", "bin/")
    cp("dl-wrongcrc.debug", "bin/")
    cp("dl-dotdebug.debug", "bin/.debug/")
    cp("dl-global.debug", "usr/lib/debug/bin/")
    cp("dl-escape.debug", ".")  # where "../dl-escape.debug" would lead from bin/
    bid = build_id(os.path.join(fix, "bid-prog"))
    d = os.path.join(src, "usr", "lib", "debug", ".build-id", bid[:2])
    os.makedirs(d)
    shutil.copy(os.path.join(fix, "bid-prog.debug"), os.path.join(d, bid[2:] + ".debug"))
    cp("bid-prog.linked.debug", "bin/bid-prog.debug")  # its debug link's: the build id wins
    # a debug link beats minidebuginfo.debug: mini-x86 with a build id of its
    # own (else the index's winner of mini-x86's id) and a link to a debug file
    work = os.path.join(src, "bin", "mini-linked")
    with open(os.path.join(fix, "mini-x86"), "rb") as f:
        data = f.read()
    old = bytes.fromhex(build_id(os.path.join(fix, "mini-x86")))
    assert data.count(old) == 1
    with open(work, "wb") as f:
        f.write(data.replace(old, bytes(reversed(old))))
    dbg = os.path.join(src, "bin", "mini-linked.debug")
    subprocess.run(["objcopy", "--only-keep-debug", "--remove-section", ".note.gnu.build-id",
                    os.path.join(fix, "mini-x86.full"), dbg], check=True, env=ENV)
    subprocess.run(["objcopy", "--add-gnu-debuglink=" + dbg, work], check=True, env=ENV)
    return bid


def lock_tree(src):
    """bin/locked/dl-global, whose debug link's file is in a directory only
    root may search (usr/lib/debug/bin/locked/, mode 0700)."""
    os.makedirs(os.path.join(src, "bin", "locked"))
    locked = os.path.join(src, "usr", "lib", "debug", "bin", "locked")
    os.makedirs(locked)
    os.rename(os.path.join(src, "bin", "dl-global"), os.path.join(src, "bin", "locked", "dl-global"))
    os.rename(os.path.join(src, "usr", "lib", "debug", "bin", "dl-global.debug"),
              os.path.join(locked, "dl-global.debug"))
    os.chmod(locked, 0o700)


# program: (what `debug` leads to from bin/<program>/, or None)
WANT = {
    "dl-beside": "../../bin/dl-beside.debug/elf",
    "dl-dotdebug": "../../bin/.debug/dl-dotdebug.debug/elf",
    "dl-global": "../../usr/lib/debug/bin/dl-global.debug/elf",
    "dl-wrongcrc": None,
    "dl-escape": None,
    "dl-mini": "minidebuginfo.debug",
    "mini-x86": "minidebuginfo.debug",
    "mini-s390x": "minidebuginfo.debug",
    "mini-linked": "../../bin/mini-linked.debug/elf",
    "plain-x86": None,
    "hx-lie-more": None,
    "hx-cut": None,
}


def info_of(mnt, prog):
    with open(os.path.join(mnt, "bin", prog, "info")) as f:
        return f.read()


def check_listing_first(ck, mnt):
    """Before any lookup of debug: listed where it may serve; CRC not read."""
    top = os.path.join(mnt, "bin")
    ck.ok("debug" in os.listdir(os.path.join(top, "dl-wrongcrc")),
          "dl-wrongcrc: debug not listed before its CRC was checked")
    ck.ok("debug" in os.listdir(os.path.join(top, "mini-x86")), "mini-x86: debug not listed")
    ck.ok("debug" not in os.listdir(os.path.join(top, "dl-escape")), "dl-escape lists debug")
    ck.ok("debug" not in os.listdir(os.path.join(top, "plain-x86")), "plain-x86 lists debug")
    info = info_of(mnt, "dl-beside")
    ck.ok("debug not taken: debuglink: bin/dl-beside.debug: CRC not checked yet" in info,
          f"dl-beside: info before the lookup of debug:\n{info}")


def check_targets(ck, mnt, src):
    for prog, want in WANT.items():
        d = os.path.join(mnt, "bin", prog)
        link = os.path.join(d, "debug")
        if want is None:
            ck.errno_is(errno.ENOENT, f"{prog}: debug", os.readlink, link)
            ck.ok("debug" not in os.listdir(d), f"{prog}: debug listed once looked up")
            ck.ok("\ndebug: none\n" in info_of(mnt, prog), f"{prog}: info has no 'debug: none'")
            continue
        try:
            got = os.readlink(link)
        except OSError as e:
            ck.fail(f"{prog}: readlink debug: {e}")
            continue
        ck.eq(got, want, f"{prog}: debug")
        ck.ok("debug" in os.listdir(d), f"{prog}: debug not listed")
        ck.ok(stat.S_ISLNK(os.lstat(link).st_mode), f"{prog}: debug is no symlink")
        if want.endswith("/elf"):
            with open(link, "rb") as f, open(os.path.join(src, want[6:-4]), "rb") as g:
                ck.ok(f.read() == g.read(), f"{prog}: debug/ does not read {want[6:-4]}")
    info = info_of(mnt, "bid-prog")
    ck.ok(re.search(r"\ndebug: build id: usr/lib/debug/\.build-id/../.*\.debug\n", info),
          f"bid-prog: info:\n{info}")
    ck.ok(os.readlink(os.path.join(mnt, "bin", "bid-prog", "debug")).startswith(
        "../../usr/lib/debug/.build-id/"), "bid-prog: debug is not the build id's file")
    fix_crc = crc_of(os.path.join(src, "bin", "dl-wrongcrc.debug"))
    want_crc = link_crc(os.path.join(src, "bin", "dl-wrongcrc"))
    line = (f"debug not taken: debuglink: bin/dl-wrongcrc.debug: CRC 0x{fix_crc:08x} in the "
            f"file, 0x{want_crc:08x} wanted")
    ck.ok(line in info_of(mnt, "dl-wrongcrc"), f"dl-wrongcrc: no line {line!r}")
    ck.ok("debug not taken: debuglink: ../dl-escape.debug: not a file name"
          in info_of(mnt, "dl-escape"), "dl-escape: no 'not a file name' line")
    ck.ok("debug: minidebuginfo.debug\n" in info_of(mnt, "dl-mini") and
          "dl-mini.debug: not found" in info_of(mnt, "dl-mini"), "dl-mini: info")
    ck.ok("minidebuginfo.debug: Input/output error" in info_of(mnt, "hx-lie-more"),
          "hx-lie-more: info does not say why minidebuginfo.debug is not taken")


def nm_funcs(path, nm="nm"):
    """{name: address} of the functions nm gives (t, T, W, i)."""
    out = {}
    for line in tool([nm, "--defined-only", path]).splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTWi":
            out.setdefault(f[2], int(f[0], 16))
    return out


def check_minidbg(ck, mnt, fix, prog, nm):
    d = os.path.join(mnt, "bin", prog)
    mdbg = os.path.join(d, "minidebuginfo.debug")
    ck.eq(build_id(mdbg), build_id(os.path.join(fix, prog)), f"{prog}: build id of its debug file")
    got = nm_funcs(mdbg, nm)
    full = nm_funcs(os.path.join(fix, prog + ".full"), nm)
    for name in ("mini_static_alpha", "mini_static_beta"):
        ck.eq(got.get(name), full.get(name), f"{prog}: {name} in minidebuginfo.debug")
    ck.ok(len(got) >= 4, f"{prog}: minidebuginfo.debug names {sorted(got)}")
    for name, addr in got.items():
        ck.eq(addr, full.get(name), f"{prog}: {name} in minidebuginfo.debug vs nm of .full")
    secs = tool(["readelf", "-SW", mdbg])
    text = re.search(r"\]\s+\.text\s+NOBITS\s+([0-9a-f]+)", secs)
    orig = re.search(r"\]\s+\.text\s+PROGBITS\s+([0-9a-f]+)",
                     tool(["readelf", "-SW", os.path.join(fix, prog)]))
    if ck.ok(text and orig, f"{prog}: .text of minidebuginfo.debug:\n{secs}"):
        ck.eq(text.group(1), orig.group(1), f"{prog}: address of .text")
    ck.ok("minidebuginfo.debug" not in os.listdir(os.path.join(d, "gnu_debugdata")),
          f"{prog}: gnu_debugdata/ has a minidebuginfo.debug")
    ck.ok("debug" not in os.listdir(os.path.join(d, "gnu_debugdata")),
          f"{prog}: gnu_debugdata/ has a debug")


def check_index(ck, mnt, fix, bid):
    top = os.path.join(mnt, ".build-id")
    for prog, want in (("mini-x86", "../../bin/mini-x86/minidebuginfo.debug"),
                       ("dl-beside", "../../bin/dl-beside.debug/elf"),
                       ("mini-linked", "../../bin/mini-linked.debug/elf"),
                       ("plain-x86", None)):
        i = build_id(os.path.join(mnt, "bin", prog, "elf"))
        link = os.path.join(top, i[:2], i[2:] + ".debug")
        if want is None:
            ck.errno_is(errno.ENOENT, f".build-id .debug of {prog}", os.readlink, link)
        else:
            ck.eq(os.readlink(link), want, f".build-id .debug of {prog}")
            with open(link, "rb") as f, open(os.path.join(mnt, "bin", prog, "debug"), "rb") as g:
                ck.ok(f.read() == g.read(), f".build-id .debug of {prog}: not its debug's bytes")
    link = os.path.join(top, bid[:2], bid[2:] + ".debug")
    ck.eq(os.readlink(link), f"../../usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug/elf",
          ".build-id .debug of bid-prog")


def check_tools(ck, mnt, fix, work):
    prog = os.path.join(fix, "mini-x86")
    full = nm_funcs(os.path.join(fix, "mini-x86.full"))
    addrs = [hex(full[n] + 1) for n in ("mini_static_alpha", "mini_static_beta")]
    without = tool(["llvm-symbolizer", "--obj=" + prog] + addrs)
    ck.ok("mini_static" not in without and "??" in without,
          f"llvm-symbolizer without the mount names them: {without!r}")
    got = tool(["llvm-symbolizer", "--debug-file-directory=" + mnt, "--obj=" + prog] + addrs)
    ck.eq(re.findall(r"^(mini_static_\w+)$", got, re.M), ["mini_static_alpha", "mini_static_beta"],
          f"llvm-symbolizer --debug-file-directory=MNT: {got!r}")
    got = tool(["addr2line", "-f", "-e", os.path.join(mnt, "bin", "mini-x86", "debug")] + addrs)
    ck.eq(got.splitlines()[0::2], ["mini_static_alpha", "mini_static_beta"],
          f"addr2line -f -e MNT/bin/mini-x86/debug: {got!r}")
    # gdb and elfutils read .gnu_debugdata themselves: a copy without it
    bare = os.path.join(work, "mini-bare")
    subprocess.run(["objcopy", "--remove-section", ".gnu_debugdata", prog, bare], check=True,
                   env=ENV)
    cmd = ["gdb", "-nx", "-batch", "-ex", f"info symbol {addrs[1]}", bare]
    alone = tool(cmd)
    ck.ok("mini_static_beta" not in alone, f"gdb names it without the mount: {alone!r}")
    got = tool(cmd[:3] + ["-iex", "set debug-file-directory " + mnt] + cmd[3:])
    ck.ok("mini_static_beta + 1 in section .text" in got, f"gdb through MNT/.build-id: {got!r}")
    got = tool(["eu-addr2line", "--debuginfo-path=" + mnt, "-f", "-e", bare] + addrs)
    ck.eq(got.splitlines()[0::2], ["mini_static_alpha", "mini_static_beta"],
          f"eu-addr2line --debuginfo-path=MNT: {got!r}")
    mdbg = os.path.join(mnt, "bin", "mini-s390x", "minidebuginfo.debug")
    hdr = tool(["readelf", "-h", mdbg])
    ck.ok("big endian" in hdr and "S/390" in hdr, f"mini-s390x: minidebuginfo.debug:\n{hdr}")


def check_change(ck, mnt, src):
    """The debug file changes after its CRC was taken: debug goes."""
    dbg = os.path.join(src, "bin", "dl-beside.debug")
    with open(dbg, "ab") as f:
        f.write(b"\0" * 8)
    link = os.path.join(mnt, "bin", "dl-beside", "debug")
    end = time.monotonic() + WAIT
    while time.monotonic() < end and os.path.lexists(link):
        time.sleep(0.05)
    ck.ok(not os.path.lexists(link), "dl-beside: debug still there after its file changed")
    line = f"bin/dl-beside.debug: CRC 0x{crc_of(dbg):08x} in the file"
    ck.ok(line in info_of(mnt, "dl-beside"), f"dl-beside: info without {line!r}")


def check_race(ck, mnt, src):
    """A debug link's file rewritten while its CRC is read, under 4 readers."""
    dbg = os.path.join(src, "bin", ".debug", "dl-dotdebug.debug")
    with open(dbg, "rb") as f:
        good = f.read()
    big = good + b"\0" * (48 << 20)  # a CRC that takes a while
    stop = threading.Event()
    bad = []

    def writer():
        flip = 0
        while not stop.is_set():
            with open(dbg, "r+b") as f:  # in place: the identity changes under the read
                f.seek(len(good) + (flip % (40 << 20)))
                f.write(b"x")
            flip += 4099
            time.sleep(0.002)

    def reader():
        link = os.path.join(mnt, "bin", "dl-dotdebug", "debug")
        while not stop.is_set():
            try:
                os.readlink(link)
            except OSError as e:
                if e.errno != errno.ENOENT:
                    bad.append(e.errno)

    with open(dbg, "wb") as f:
        f.write(big)
    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader)
                                                     for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(4)
    stop.set()
    for t in threads:
        t.join()
    ck.eq(bad, [], "dl-dotdebug: readlink of debug while its file changes")
    with open(dbg, "wb") as f:
        f.write(good)
    link = os.path.join(mnt, "bin", "dl-dotdebug", "debug")
    end = time.monotonic() + WAIT
    while time.monotonic() < end and not os.path.lexists(link):
        time.sleep(0.05)
    ck.eq(os.readlink(link) if os.path.lexists(link) else None,
          WANT["dl-dotdebug"], "dl-dotdebug: debug once its file is back")


def check_nobody(ck, mnt, src):
    """allow_other: a debug file nobody may read: its links are EACCES for nobody."""
    link = os.path.join(mnt, "bin", "locked", "dl-global", "debug")
    want = "../../../usr/lib/debug/bin/locked/dl-global.debug/elf"
    ck.eq(os.readlink(link) if os.path.lexists(link) else None, want, "root: locked debug")
    ck.eq(as_nobody(lambda: os.readlink(link) == want), errno.EACCES,
          "nobody: readlink of a debug link to a file it may not read")
    mini = os.path.join(mnt, "bin", "mini-x86", "debug")
    ck.eq(as_nobody(lambda: os.readlink(mini) == "minidebuginfo.debug"), 0,
          "nobody: readlink of debug of a readable binary")
    bid = build_id(os.path.join(src, "bin", "locked", "dl-global"))
    idx = os.path.join(mnt, ".build-id", bid[:2], bid[2:] + ".debug")
    ck.eq(as_nobody(lambda: os.readlink(idx) is not None), errno.EACCES,
          "nobody: readlink of the .build-id link to that file")


class Served(http.server.BaseHTTPRequestHandler):
    """A debuginfod server: GET /buildid/<id>/debuginfo of the files given."""
    files = {}

    def do_GET(self):
        data = self.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def check_debuginfod(ck, fix, tmp):
    """debug of a program whose debug file only a server has."""
    src = os.path.join(tmp, "src-dbgd")
    os.makedirs(os.path.join(src, "bin"))
    shutil.copy(os.path.join(fix, "bid-prog"), os.path.join(src, "bin"))
    shutil.copy(os.path.join(fix, "bid-prog.linked.debug"), os.path.join(src, "bin", "bid-prog.debug"))
    bid = build_id(os.path.join(fix, "bid-prog"))
    with open(os.path.join(fix, "bid-prog.debug"), "rb") as f:
        served = f.read()
    Served.files = {f"/buildid/{bid}/debuginfo": served}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Served)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    os.environ["DEBUGINFOD_CACHE_PATH"] = os.path.join(tmp, "dbgd-cache")
    url = f"http://127.0.0.1:{server.server_address[1]}"

    def run(m):
        d = os.path.join(m.path, "bin", "bid-prog")
        ck.ok("debug not taken: debuginfod: not asked yet" in info_of(m.path, "bid-prog"),
              f"bid-prog: info before any lookup:\n{info_of(m.path, 'bid-prog')}")
        want = f"../../.build-id/.remote/{bid}.debug/elf"
        ck.eq(os.readlink(os.path.join(d, "debug")), want, "bid-prog: debug from the server")
        with open(os.path.join(d, "debug"), "rb") as f:
            ck.ok(f.read() == served, "bid-prog: debug does not read the server's file")
        ck.ok(f"\ndebug: debuginfod: {bid}.debug\n" in info_of(m.path, "bid-prog"),
              f"bid-prog: info:\n{info_of(m.path, 'bid-prog')}")
        ck.ok("debug" in os.listdir(d), "bid-prog: debug not listed once fetched")
    try:
        run_mounted(ck, src, ["-o", f"buildid=.build-id,debuginfod={url},timeout={TIMEOUT}"],
                    run)
    finally:
        server.shutdown()
        del os.environ["DEBUGINFOD_CACHE_PATH"]


def body(ck, fix, src, bid, work):
    def run(m):
        check_listing_first(ck, m.path)
        check_targets(ck, m.path, src)
        check_minidbg(ck, m.path, fix, "mini-x86", "nm")
        check_minidbg(ck, m.path, fix, "mini-s390x", "s390x-linux-gnu-nm")
        check_index(ck, m.path, fix, bid)
        check_tools(ck, m.path, fix, work)
        check_change(ck, m.path, src)
        check_race(ck, m.path, src)
        ck.ok(m.alive(), "the daemon died")
    return run


def main():
    require_fuse()
    fix = require_env("ELFFS_MINIDEBUG_FIXTURES")
    ck = Checker("mount-debuglink")
    for args in ([], ["-o", "nommap"]):
        print(f"backend: {args or 'default'}", flush=True)
        with tempfile.TemporaryDirectory(prefix="elffs-dbg-") as tmp:
            src = os.path.join(tmp, "src")
            work = os.path.join(tmp, "work")
            os.makedirs(work)
            bid = make_tree(fix, src)
            opts = ["-o", f"buildid=.build-id,timeout={TIMEOUT}"] + args
            run_mounted(ck, src, opts, body(ck, fix, src, bid, work))
    with tempfile.TemporaryDirectory(prefix="elffs-dbg-") as tmp:
        os.chmod(tmp, 0o755)
        src = os.path.join(tmp, "src")
        make_tree(fix, src)
        lock_tree(src)
        opts = ["-o", f"allow_other,buildid=.build-id,timeout={TIMEOUT}"]
        run_mounted(ck, src, opts, lambda m: check_nobody(ck, m.path, src))
    with tempfile.TemporaryDirectory(prefix="elffs-dbg-") as tmp:
        check_debuginfod(ck, fix, tmp)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
