#!/usr/bin/python3
"""The build as a packager or a user installs it.

`meson install --destdir D` of the build under test puts in D (under the
build's prefix): elffs, the links sbin/mount.fuse.elffs and mount.elffs to
it, elffs.1 with the project version in its footer, libpfelf.so with its
soname, pfelf.h and the pfelf_version.h it includes, and pfelf.pc.

- examples/list_sections.c is compiled with nothing but
  `cc $(pkg-config --cflags --libs pfelf)` against D (PKG_CONFIG_PATH and
  PKG_CONFIG_SYSROOT_DIR into D), runs on D's libpfelf.so, and lists the
  sections readelf -SW lists, with the same types.
- Then, as root, in a private mount namespace of its own (nothing outside
  it sees a change; the copies of other tests' FUSE mounts it starts with
  are detached at once, or their daemons would outlive their unmount):
  mount(8) clears PATH for its helpers and Debian's
  /sbin/mount.fuse runs `elffs` through /bin/sh's default PATH, whose first
  directory is /usr/local/sbin; the test bind-mounts over it a directory of
  its own holding `elffs` -> D's elffs. Then `mount -t fuse.elffs SOURCE MNT
  -o ro`, an fstab line (mount -T FSTAB MNT), and the installed helper links
  run the way mount(8) runs them: the daemon is D's elffs (/proc/PID/exe),
  a section reads right, umount ends it. mount(8) passes elffs's exit
  statuses through (66, 32, 1).

Writes nothing outside its temporary directories, except meson's
install-log.txt in the build's meson-logs/.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from elffs_mount import (Checker, _unescape_mountinfo, fixture, force_unmount, mode_options,
                         mount_entry, require_env, wait_for)

NS_MARK = "ELFFS_INSTALL_NAMESPACE"
EXAMPLE_FIXTURES = ["exec", "libshared.so", "comdat.o", "bigendian.o", "armhf-libc.so.6"]


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def build_options(build):
    out = sh([require_env("ELFFS_MESON"), "introspect", build, "--buildoptions"])
    if out.returncode != 0:
        print(f"FAIL: meson introspect --buildoptions: {out.stderr}")
        sys.exit(1)
    return {o["name"]: o["value"] for o in json.loads(out.stdout)}


class Layout:
    """Where the build's options put each file, inside D."""

    def __init__(self, destdir, opts):
        prefix = opts["prefix"]
        self.destdir = destdir
        self.prefix = os.path.join(destdir, prefix.lstrip("/"))

        def at(name):
            return os.path.join(self.prefix, opts[name]) if not opts[name].startswith("/") \
                else os.path.join(destdir, opts[name].lstrip("/"))

        self.bin, self.sbin, self.lib = at("bindir"), at("sbindir"), at("libdir")
        self.include, self.man = at("includedir"), at("mandir")
        self.elffs = os.path.join(self.bin, "elffs")
        self.pkgconfig = os.path.join(self.lib, "pkgconfig")


def install(ck, build, destdir):
    out = sh([require_env("ELFFS_MESON"), "install", "-C", build, "--no-rebuild", "--quiet",
              "--destdir", destdir])
    return ck.eq(out.returncode, 0, f"meson install --destdir: {out.stdout[-500:]}"
                                    f"{out.stderr[-1500:]}")


def check_files(ck, lay, version):
    major = version.split(".")[0]
    files = {
        lay.elffs: "executable",
        os.path.join(lay.sbin, "mount.fuse.elffs"): "link to elffs",
        os.path.join(lay.sbin, "mount.elffs"): "link to elffs",
        os.path.join(lay.man, "man1", "elffs.1"): "file",
        os.path.join(lay.lib, "libpfelf.so"): "file",
        os.path.join(lay.lib, f"libpfelf.so.{major}"): "file",
        os.path.join(lay.include, "pfelf.h"): "file",
        os.path.join(lay.include, "pfelf_version.h"): "file",
        os.path.join(lay.pkgconfig, "pfelf.pc"): "file",
    }
    for path, kind in files.items():
        rel = os.path.relpath(path, lay.destdir)
        if not ck.ok(os.path.exists(path), f"not installed: {rel}"):
            continue
        if kind == "executable":
            ck.ok(os.access(path, os.X_OK), f"{rel} is not executable")
        if kind == "link to elffs":
            ck.ok(os.path.islink(path) and not os.path.isabs(os.readlink(path)),
                  f"{rel} is not a relative symbolic link")
            ck.eq(os.path.realpath(path), os.path.realpath(lay.elffs), f"{rel} points to")
    for root, _, names in os.walk(lay.destdir):
        for n in names:
            p = os.path.join(root, n)
            ck.ok(p.startswith(lay.prefix + "/"), f"installed outside the prefix: {p}")
    check_contents(ck, lay, version, major)


def check_contents(ck, lay, version, major):
    soname = sh(["readelf", "-dW", os.path.join(lay.lib, "libpfelf.so")]).stdout
    ck.ok(f"Library soname: [libpfelf.so.{major}]" in soname,
          f"libpfelf.so: no soname libpfelf.so.{major}: {soname[:400]}")
    with open(os.path.join(lay.man, "man1", "elffs.1")) as f:
        th = f.readline()
    ck.ok(th.startswith(".TH ELFFS 1") and f'"elffs {version}"' in th,
          f"installed elffs.1: no version {version} in {th!r}")
    with open(os.path.join(lay.include, "pfelf_version.h")) as f:
        ck.ok(f'#define PFELF_VERSION_STRING "{version}"' in f.read(),
              "installed pfelf_version.h: no PFELF_VERSION_STRING of this version")
    with open(os.path.join(lay.pkgconfig, "pfelf.pc")) as f:
        ck.ok(f"Version: {version}\n" in f.read(), f"pfelf.pc: no 'Version: {version}'")
    out = sh([lay.elffs, "-V"])
    ck.ok(out.returncode == 0 and f"elffs {version}" in out.stdout,
          f"installed elffs -V: {out.returncode} {out.stdout!r}")


def pkg_env(lay):
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = lay.pkgconfig
    env["PKG_CONFIG_SYSROOT_DIR"] = lay.destdir
    env["LD_LIBRARY_PATH"] = lay.lib
    return env


def build_example(ck, lay, tmp):
    env = pkg_env(lay)
    flags = sh(["pkg-config", "--cflags", "--libs", "pfelf"], env=env)
    if not ck.eq(flags.returncode, 0, f"pkg-config pfelf: {flags.stderr}"):
        return None
    args = shlex.split(flags.stdout)
    for a in args:
        if a.startswith(("-I", "-L")):
            ck.ok(a[2:].startswith(lay.destdir + "/"), f"pkg-config points outside D: {a}")
    san = os.environ.get("ELFFS_SANITIZE", "none")
    if san != "none":  # a sanitized libpfelf.so wants its runtime first
        args = [f"-fsanitize={san}"] + args
    exe = os.path.join(tmp, "list_sections")
    src = os.path.join(require_env("ELFFS_EXAMPLES"), "list_sections.c")
    cc = os.environ.get("CC", "cc")
    out = sh([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe, src] + args, env=env)
    if not ck.eq(out.returncode, 0, f"cc list_sections.c $(pkg-config ...): {out.stderr}"):
        return None
    trace = sh([exe], env=dict(env, LD_TRACE_LOADED_OBJECTS="1")).stdout
    major = require_env("ELFFS_VERSION").split(".")[0]
    want = os.path.realpath(os.path.join(lay.lib, f"libpfelf.so.{major}"))
    m = re.search(r"libpfelf\.so\.\S+ => (\S+)", trace)
    ck.ok(m and os.path.realpath(m.group(1)) == want,
          f"list_sections does not load {want}: {trace}")
    return exe


def readelf_sections(path):
    """[(index, type, name)] of readelf -SW, index 0 left out."""
    out = sh(["readelf", "-SW", path]).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s", line)
        if m and m.group(1) != "0":
            rows.append((int(m.group(1)), m.group(3), m.group(2)))
    return rows


def run_example(ck, lay, exe):
    for name in EXAMPLE_FIXTURES:
        path = fixture(name)
        out = sh([exe, path], env=pkg_env(lay))
        if not ck.eq(out.returncode, 0, f"list_sections {name}: {out.stderr}"):
            continue
        got = []
        for line in out.stdout.splitlines():
            m = re.match(r"^\[(\d+)\] (\S+) (.*)$", line)
            got.append((int(m.group(1)), m.group(2), m.group(3)) if m else line)
        want = readelf_sections(path)
        ck.ok(len(want) > 3, f"readelf -SW {name}: only {len(want)} sections")
        ck.eq(got, want, f"list_sections {name} vs readelf -SW")


# ---------------------------------------------------------------- mounting


def daemons(lay, mnt):
    exe = os.path.realpath(lay.elffs)
    pids = []
    for e in os.listdir("/proc"):
        try:
            if not e.isdigit() or os.path.realpath(f"/proc/{e}/exe") != exe:
                continue
            with open(f"/proc/{e}/cmdline", "rb") as f:
                if os.fsencode(mnt) in f.read().split(b"\0"):
                    pids.append(int(e))
        except OSError:
            pass
    return pids


def text_bytes(path):
    """(offset, size) of .text from readelf -SW."""
    for line in sh(["readelf", "-SW", path]).stdout.splitlines():
        m = re.match(r"^\s*\[\s*\d+\]\s+\.text\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            return int(m.group(1), 16), int(m.group(2), 16)
    return None


def threads_of(pids):
    rows = []
    for pid in pids:
        for t in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{t}/comm") as f, \
                        open(f"/proc/{pid}/task/{t}/wchan") as g, \
                        open(f"/proc/{pid}/task/{t}/syscall") as h:
                    rows.append(f"{t} {f.read().strip()} {g.read().strip()} {h.read().split()[0]}")
            except OSError:
                pass
    return rows


def umount(lay, mnt):
    """umount(8) of mnt; EBUSY (a request of the daemon's own still in
    flight under load) is retried for up to 5 s, with a note."""
    for attempt in range(11):
        out = sh(["umount", mnt])
        if out.returncode == 0:
            return True
        print(f"note: umount {mnt}: {out.stderr.strip()}; daemon threads: "
              f"{threads_of(daemons(lay, mnt))}")
        time.sleep(0.5)
    return False


def check_mounted(ck, lay, src, mnt, what, opts=()):
    """Mounted by D's elffs, with a right .text; then umount ends it."""
    ent = mount_entry(mnt)
    if not ck.ok(ent is not None, f"{what}: nothing mounted at {mnt}"):
        return
    ck.ok("fuse.elffs" in ent, f"{what}: mount type is not fuse.elffs: {ent}")
    for o in opts:
        ck.ok(o in ent[-1].split(","), f"{what}: no {o} in the mount's options {ent[-1]}")
    ck.eq(len(daemons(lay, mnt)), 1, f"{what}: daemons that run D's elffs for this mount")
    off, size = text_bytes(os.path.join(src, "exec"))
    with open(os.path.join(src, "exec"), "rb") as f:
        want = os.pread(f.fileno(), size, off)
    try:
        with open(os.path.join(mnt, "exec", "sections", ".text"), "rb") as f:
            ck.ok(f.read() == want, f"{what}: exec/sections/.text differs from the source's")
    except OSError as e:
        ck.fail(f"{what}: reading exec/sections/.text: {e}")
    ck.ok(umount(lay, mnt), f"{what}: umount failed")
    ck.ok(wait_for(lambda: not daemons(lay, mnt), 10), f"{what}: daemon still running after umount")
    ck.ok(mount_entry(mnt) is None, f"{what}: mount left after umount")


def through_mount8(ck, lay, tmp, src, mnt):
    pathdir = os.path.join(tmp, "path")
    os.mkdir(pathdir)
    os.symlink(lay.elffs, os.path.join(pathdir, "elffs"))
    out = sh(["mount", "--bind", pathdir, "/usr/local/sbin"])
    if not ck.eq(out.returncode, 0, f"bind mount over /usr/local/sbin: {out.stderr}"):
        return
    # the test mode's options too: mount(8) hands them to the helper
    out = sh(["mount", "-t", "fuse.elffs", src, mnt, "-o", ",".join(filter(None, ["ro", mode_options()]))])
    ck.eq(out.returncode, 0, f"mount -t fuse.elffs: {out.stderr}")
    check_mounted(ck, lay, src, mnt, "mount -t fuse.elffs")
    fstab = os.path.join(tmp, "fstab")
    with open(fstab, "w") as f:
        f.write(f"# elffs, as /etc/fstab would have it\n{src} {mnt} fuse.elffs "
                "ro,allow_other,nofail 0 0\n")
    out = sh(["mount", "-T", fstab, mnt])
    ck.eq(out.returncode, 0, f"mount -T FSTAB MNT: {out.stderr}")
    check_mounted(ck, lay, src, mnt, "fstab line", ["allow_other"])
    regular = os.path.join(tmp, "regular")
    with open(regular, "w") as f:
        f.write("not a directory\n")
    for args, status, what in (([os.path.join(tmp, "missing"), mnt], 66, "missing SOURCE"),
                               ([src, regular], 32, "MOUNTPOINT a regular file"),
                               ([src, mnt, "-o", "ro,no_such_option"], 1, "unknown option")):
        out = sh(["mount", "-t", "fuse.elffs"] + args)
        ck.eq(out.returncode, status, f"mount -t fuse.elffs, {what}: status ({out.stderr!r})")
        ck.ok(mount_entry(mnt) is None and mount_entry(regular) is None,
              f"mount -t fuse.elffs, {what}: mounted anyway")
        force_unmount(mnt)
        force_unmount(regular)


def helper_links(ck, lay, src, mnt):
    """The installed links, called the way mount(8) calls a helper."""
    for name, args in (("mount.fuse.elffs", ["-o", "rw", "-t", "fuse.elffs"]),
                       ("mount.elffs", ["-o", "rw"])):
        out = sh([os.path.join(lay.sbin, name), src, mnt] + args)
        ck.eq(out.returncode, 0, f"{name} SOURCE MNT {' '.join(args)}: {out.stderr}")
        check_mounted(ck, lay, src, mnt, name)


def fuse_usable(ck):
    try:
        os.close(os.open("/dev/fuse", os.O_RDWR))
        return True
    except OSError as e:
        if os.environ.get("ELFFS_REQUIRE_FUSE") == "1":
            ck.fail(f"/dev/fuse: {e.strerror}, and ELFFS_REQUIRE_FUSE=1")
        else:
            print(f"note: /dev/fuse: {e.strerror}: the mounts are not tried")
        return False


def mounting(ck, lay, tmp):
    if not fuse_usable(ck):
        return
    src = os.path.join(tmp, "src")
    os.mkdir(src)
    shutil.copyfile(fixture("exec"), os.path.join(src, "exec"))
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    try:
        helper_links(ck, lay, src, mnt)
        through_mount8(ck, lay, tmp, src, mnt)
    finally:
        force_unmount(mnt)
        for pid in daemons(lay, mnt):
            os.kill(pid, 9)


def drop_copied_fuse_mounts():
    """A new mount namespace starts with a copy of every mount, the FUSE
    mounts of tests running beside this one included: a copy keeps their
    connection alive, so their daemons would not end on fusermount3 -u while
    this test runs. Detach every copied FUSE mount first thing."""
    with open("/proc/self/mountinfo") as f:
        entries = [line.split() for line in f]
    points = []
    for fields in entries:
        fstype = fields[fields.index("-") + 1]
        if fstype == "fuse" or fstype.startswith(("fuse.", "fuseblk")):
            points.append(_unescape_mountinfo(fields[4]))
    for point in sorted(points, key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True)


def reexec_in_namespace():
    """Root: the whole test in a private mount namespace (unshare -m), so
    that its bind mount over /usr/local/sbin is seen by nobody else."""
    if os.geteuid() != 0 or os.environ.get(NS_MARK) == "1":
        return
    unshare = shutil.which("unshare")
    if not unshare:
        print("FAIL: unshare (util-linux) not found")
        sys.exit(1)
    os.environ[NS_MARK] = "1"
    sys.stdout.flush()
    # In a chroot whose / is no mount point, unshare cannot make / private
    # (EINVAL): the mounts are then made private one by one inside.
    prop = "private" if "/" in mount_points() else "unchanged"
    os.execv(unshare, [unshare, "--mount", "--propagation", prop, sys.executable,
                       os.path.abspath(__file__)] + sys.argv[1:])


def mount_points():
    with open("/proc/self/mountinfo") as f:
        return [_unescape_mountinfo(line.split()[4]) for line in f]


def make_mounts_private():
    """Each mount this namespace sees private (a no-op after unshare
    --propagation private), so that the bind mount is seen by nobody else."""
    for point in sorted(set(mount_points()), key=len):
        subprocess.run(["mount", "--make-private", point], capture_output=True)


def main():
    reexec_in_namespace()
    if os.environ.get(NS_MARK) == "1":
        make_mounts_private()
        drop_copied_fuse_mounts()
    ck = Checker("install")
    version = require_env("ELFFS_VERSION")
    build = require_env("ELFFS_BUILD_ROOT")
    tmp = tempfile.mkdtemp(prefix="elffs-install-")
    try:
        destdir = os.path.join(tmp, "destdir")
        lay = Layout(destdir, build_options(build))
        if install(ck, build, destdir):
            check_files(ck, lay, version)
            exe = build_example(ck, lay, tmp)
            if exe:
                run_example(ck, lay, exe)
            if os.environ.get(NS_MARK) == "1":
                mounting(ck, lay, tmp)
            else:
                print("note: not root: mount -t fuse.elffs and the helper links are not tried")
    finally:
        for d in ("mnt", "regular"):
            force_unmount(os.path.join(tmp, d))
        shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
