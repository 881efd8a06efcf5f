#!/usr/bin/python3
"""Security: what other users and hostile trees cannot do through elffs.

- Symlinks: a symlink to a root-only binary (absolute, relative, and to a
  root-only directory) is a symlink in the mount, never that binary's view:
  nobody reading through it gets EACCES or ENOTDIR, never its bytes; and
  while a binary in SOURCE is swapped with such a symlink in a loop, a
  reader running as nobody only ever reads the public binary's bytes.
- Permissions, with allow_other, for users and a group made by this test
  (elffs_t1 owner, elffs_t2 in group elffs_tg, nobody other): for each of
  the owner, group and other read bits (files and directories), every
  user gets through the mount exactly the outcome (bytes or EACCES) that
  the same user gets reading the source itself.
- POSIX ACLs, with allow_other: files with named-user, group and default
  ACL entries that deny a user, and directories whose ACL denies a user
  search: that user gets EACCES through the mount for every entry of the
  binary's view (elf, info, sections/ listing, a section's bytes and
  user.elf.* attributes, the binary's directory listing, the lookup below a
  denied directory), and for the target of the .build-id link of a binary
  it cannot read; the others read them. Both backends (the daemon before
  this check honoured mode bits only).
- Every mutating call (open for writing, create, mkdir, mknod, unlink,
  rmdir, rename, link, symlink, chmod, chown, utime, truncate, setxattr,
  removexattr) on every kind of node fails with EROFS; SOURCE is unchanged;
  -o rw,suid,dev cannot make the mount anything but ro, nosuid, nodev with
  default_permissions.
- No descriptor or memory growth: 2,000 distinct binaries (real copies)
  looked up 5 times each with the kernel's caches dropped in between
  (10,000 lookups and forgets); the daemon's descriptor count after the
  last round is what it was at mount time, and RssAnon after round 2 (the
  allocator warmed up) and after the last stay within a tolerance: tight
  for a single-threaded daemon (-s, mmap), loose for a multi-threaded one
  (-o nommap, where descriptors matter).
"""

import errno
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

import elf_oracle as oracle
from elffs_mount import (Checker, Mount, MountError, daemon_status, drop_caches, fixture,
                         mount_entry, require_fuse, run_mounted, wait_for)

USERS = ["elffs_t1", "elffs_t2"]
GROUP = "elffs_tg"
BINARIES = 2000
ROUNDS = 5
FD_SLACK = 4
# RssAnon growth allowed from round 1 to the last: one daemon thread reuses
# its freed memory exactly; many threads' malloc arenas and stacks wobble
# by a few MiB (a leaked view of each binary would be ~20 MiB a round)
RSS_SLACK_KB = {"-s": 512, "-o nommap": 12 * 1024}
RACE_SECONDS = 4
# the mounts' cache timeout (timeout=0.1) and a wait well past it: a walk
# after the wait meets no entry the kernel kept from another user's walk
CACHE_WAIT = 0.5

PROBE = r"""
import errno, hashlib, json, os, sys
out = {}
for path in json.loads(sys.argv[1]):
    try:
        if os.path.isdir(path):
            os.listdir(path)
            out[path] = "ok"
        else:
            with open(path, "rb") as f:
                out[path] = hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        out[path] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(out))
"""

RACE = r"""
import collections, errno, hashlib, json, os, sys, time
path, end = sys.argv[1], time.monotonic() + float(sys.argv[2])
seen = collections.Counter()
while time.monotonic() < end:
    try:
        with open(path, "rb") as f:
            seen[hashlib.sha256(f.read()).hexdigest()] += 1
    except OSError as e:
        seen[errno.errorcode.get(e.errno, str(e.errno))] += 1
print(json.dumps(seen))
"""


def sha(data):
    return hashlib.sha256(data).hexdigest()


def run_as(user, script, *args, timeout=60):
    """Run python code as user (setpriv with the user's groups); parsed JSON."""
    cmd = ["setpriv", f"--reuid={user}", f"--regid={user_gid(user)}", "--init-groups",
           sys.executable, "-c", script] + list(args)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"as {user}: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def user_gid(user):
    out = subprocess.run(["id", "-g", user], capture_output=True, text=True)
    return int(out.stdout) if out.returncode == 0 else 65534


def section_bytes(path, name):
    info = oracle.readelf([path])[path]
    s = [s for s in info.sections if s.name == name][0]
    with open(path, "rb") as f:
        f.seek(s.off)
        return f.read(s.size)


class Accounts:
    """elffs_t1, elffs_t2 (in group elffs_tg); removed on exit."""

    def __enter__(self):
        self.remove()
        subprocess.run(["groupadd", GROUP], check=True)
        for user, extra in ((USERS[0], []), (USERS[1], ["-G", GROUP])):
            subprocess.run(["useradd", "-M", "-N", "-g", "nogroup", "-s", "/usr/sbin/nologin",
                            "-d", "/nonexistent"] + extra + [user], check=True)
        return self

    def remove(self):
        for user in USERS:
            subprocess.run(["userdel", user], capture_output=True)
        subprocess.run(["groupdel", GROUP], capture_output=True)

    def __exit__(self, *exc):
        self.remove()
        return False


# name: (file mode, directory mode) of the permission cases; owner elffs_t1,
# group elffs_tg
PERM_CASES = {"u": (0o400, 0o755), "g": (0o040, 0o755), "o": (0o004, 0o755),
              "ugo": (0o444, 0o755), "none": (0o000, 0o755), "du": (0o444, 0o700),
              "dg": (0o444, 0o070), "do": (0o444, 0o007), "dgx": (0o444, 0o050)}


def build_perms(root):
    uid = int(subprocess.run(["id", "-u", USERS[0]], capture_output=True, text=True).stdout)
    gid = int(subprocess.run(["getent", "group", GROUP], capture_output=True,
                             text=True).stdout.split(":")[2])
    for name, (fmode, dmode) in PERM_CASES.items():
        d = os.path.join(root, "perm", name)
        os.makedirs(d)
        shutil.copy(fixture("exec"), os.path.join(d, "bin"))
        for path, mode in ((os.path.join(d, "bin"), fmode), (d, dmode)):
            os.chown(path, uid, gid)
            os.chmod(path, mode)


def check_perms(ck, src, mnt):
    """Each user's outcome through the mount equals the one on the source."""
    paths_src, paths_mnt = [], []
    for name in PERM_CASES:
        paths_src += [os.path.join(src, "perm", name, "bin"), os.path.join(src, "perm", name)]
        paths_mnt += [os.path.join(mnt, "perm", name, "bin", "sections", ".text"),
                      os.path.join(mnt, "perm", name)]
    text = sha(section_bytes(fixture("exec"), ".text"))
    whole = sha(open(fixture("exec"), "rb").read())
    for user in USERS + ["nobody"]:
        try:
            # right after the previous user's walk the kernel may still hold
            # its entries (the documented limit: a denied user then meets
            # the cached mode bits, EACCES, instead of a fresh lookup's
            # ENOENT); past the timeout every entry is looked up anew
            hot = run_as(user, PROBE, json.dumps(paths_mnt))
            on_src = run_as(user, PROBE, json.dumps(paths_src))
            time.sleep(CACHE_WAIT)
            on_mnt = run_as(user, PROBE, json.dumps(paths_mnt))
            seen = run_as(user, STATS, json.dumps(paths_src))
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
            ck.fail(str(e))
            continue
        for ps, pm in zip(paths_src, paths_mnt):
            want = {whole: text}.get(on_src[ps], on_src[ps])
            what = f"{user}: {os.path.relpath(pm, mnt)} (source: " \
                   f"{on_src[ps] if on_src[ps] != whole else 'readable'})"
            if want == "EACCES" and seen[ps] == "ok" and not os.path.isdir(ps):
                want = "ENOENT"  # a binary it may not read is absent for it
                ck.ok(hot[pm] in ("ENOENT", "EACCES"), f"{what}, cached: got {hot[pm]!r}")
            else:
                ck.eq(hot[pm], want, f"{what}, cached")
            ck.eq(on_mnt[pm], want, what)
            ck.count("perm_checks")
        ck.ok(any(v == text for v in on_mnt.values()) and
              any(v in ("EACCES", "ENOENT") for v in on_mnt.values()),
              f"{user}: the cases gave no read or no EACCES: {on_mnt}")


# name: (setfacl arguments, what they apply to: "file" or "dir"); each case
# is <src>/acl/<name>/bin, a copy of the fixture exec, mode 0644 in a 0755
# directory before the ACL
ACL_CASES = {
    "user": (["-m", "u:nobody:---"], "file"),
    "user2": (["-m", f"u:{USERS[1]}:---"], "file"),
    "group": (["-m", f"g:{GROUP}:---"], "file"),
    "dir": (["-m", "u:nobody:---"], "dir"),
    "dirx": (["-m", f"u:{USERS[0]}:r--"], "dir"),  # may list, may not search
    "default": (["-d", "-m", "u:nobody:---"], "dir"),  # the file is made after
    "none": ([], "file"),
}

ACL_PROBE = r"""
import errno, hashlib, json, os, sys
def outcome(fn):
    try:
        return fn()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def read(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
out = {}
for b in json.loads(sys.argv[1]):
    out[b] = {
        "elf": outcome(lambda: read(b + "/elf")),
        "info": outcome(lambda: "ok" if read(b + "/info") else "ok"),
        "sections": outcome(lambda: "ok" if os.listdir(b + "/sections") else "empty"),
        "text": outcome(lambda: read(b + "/sections/.text")),
        "xattr": outcome(lambda: os.getxattr(b + "/sections/.text", "user.elf.type").decode()),
        "list": outcome(lambda: "ok" if os.listdir(b) else "empty"),
        "listed": outcome(lambda: "yes" if "bin" in os.listdir(os.path.dirname(b)) else "no"),
    }
print(json.dumps(out))
"""

STATS = r"""
import errno, json, os, sys
out = {}
for p in json.loads(sys.argv[1]):
    try:
        os.stat(p)
        out[p] = "ok"
    except OSError as e:
        out[p] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(out))
"""

READLINKS = r"""
import errno, json, os, sys
out = {}
for p in json.loads(sys.argv[1]):
    try:
        out[p] = os.readlink(p)
    except OSError as e:
        out[p] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(out))
"""


def build_acls(root):
    for name, (args, what) in ACL_CASES.items():
        d = os.path.join(root, "acl", name)
        os.makedirs(d)
        os.chmod(d, 0o755)
        b = os.path.join(d, "bin")
        if what == "dir" and args:
            subprocess.run(["setfacl"] + args + [d], check=True)
        shutil.copy(fixture("exec"), b)
        with open(b, "ab") as f:
            f.write(name.encode())  # a file of its own (one view each)
        if what == "file":
            os.chmod(b, 0o644)
            if args:
                subprocess.run(["setfacl"] + args + [b], check=True)


def check_acls(ck, src, args):
    """Each user gets through the mount what the source's ACLs give them."""
    bins_src = [os.path.join(src, "acl", n, "bin") for n in ACL_CASES]
    whole = {b: sha(open(b, "rb").read()) for b in bins_src}
    text = sha(section_bytes(fixture("exec"), ".text"))
    tag = " ".join(args)

    def body(m):
        bins_mnt = [os.path.join(m.path, "acl", n, "bin") for n in ACL_CASES]
        root_links = {}
        bid = os.path.join(m.path, ".build-id")
        for xx in os.listdir(bid):
            for rest in os.listdir(os.path.join(bid, xx)):
                p = os.path.join(bid, xx, rest)
                root_links[p] = os.readlink(p)
        ck.ok(any("acl/" in t for t in root_links.values()), f"{tag}: no .build-id link "
              f"leads into acl/: {sorted(root_links.values())[:4]}")
        link_src = {}
        for p, target in root_links.items():
            rel = os.path.relpath(os.path.normpath(os.path.join(os.path.dirname(p), target)),
                                  m.path)
            link_src[p] = os.path.join(src, os.path.dirname(rel))
        for user in USERS + ["nobody"]:
            try:
                on_src = run_as(user, PROBE, json.dumps(bins_src + sorted(link_src.values())))
                seen = run_as(user, STATS, json.dumps(bins_src))
                time.sleep(CACHE_WAIT)  # no entry left of the previous user's walk
                on_mnt = run_as(user, ACL_PROBE, json.dumps(bins_mnt))
                links = run_as(user, READLINKS, json.dumps(sorted(root_links)))
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                ck.fail(f"{tag}: {e}")
                continue
            for bs, bm in zip(bins_src, bins_mnt):
                ok = on_src[bs] == whole[bs]
                # a binary the user may not read is absent for it (ENOENT,
                # not listed: as a non-ELF file it cannot read), unless its
                # directory already denies the search (EACCES)
                gone = "ENOENT" if seen[bs] == "ok" else "EACCES"
                want = {"elf": whole[bs], "info": "ok", "sections": "ok", "text": text,
                        "xattr": "PROGBITS", "list": "ok", "listed": "yes"} if ok else \
                    {k: gone for k in ("elf", "info", "sections", "text", "xattr", "list")}
                if not ok:
                    want["listed"] = "no" if gone == "ENOENT" else "EACCES"
                what = f"{tag}: {user}: {os.path.relpath(bm, m.path)} (source: " \
                       f"{'readable' if ok else on_src[bs]}, stat {seen[bs]})"
                ck.eq(on_mnt[bm], want, what)
                ck.count("acl_checks")
            for p, target in root_links.items():
                ok = len(on_src[link_src[p]]) == 64  # a digest: the user read it
                ck.eq(links[p], target if ok else "EACCES",
                      f"{tag}: {user}: readlink {os.path.relpath(p, m.path)} -> {target}")
            ck.ok(any(v["elf"] in ("EACCES", "ENOENT") for v in on_mnt.values()),
                  f"{tag}: {user}: no case was denied: {on_mnt}")

    run_mounted(ck, src, ["-o", "allow_other,buildid=.build-id,timeout=0.1"] + args, body)


def build_links(root, secret_dir):
    """Symlinks to the root-only binary; returns {name: target}."""
    links = {"abs": os.path.join(secret_dir, "secret"), "dir": secret_dir,
             "rel": "../private/secret"}
    os.mkdir(os.path.join(root, "links"))
    os.mkdir(os.path.join(root, "private"), 0o700)
    shutil.copy(fixture("libshared.so"), os.path.join(root, "private", "secret"))
    os.chmod(os.path.join(root, "private", "secret"), 0o600)
    for name, target in links.items():
        os.symlink(target, os.path.join(root, "links", name))
    return links


def check_links(ck, src, mnt, links):
    for name in ("abs", "dir", "rel"):
        path = os.path.join(mnt, "links", name)
        st = os.lstat(path)
        ck.ok(stat.S_ISLNK(st.st_mode), f"links/{name}: not a symlink in the mount")
        ck.eq(os.readlink(path), links[name], f"links/{name}: target")
        entry = [e for e in os.scandir(os.path.join(mnt, "links")) if e.name == name]
        ck.ok(entry and entry[0].is_symlink(), f"links/{name}: readdir type is not a symlink")
    ck.ok(os.path.isfile(os.path.join(mnt, "links", "abs")),
          "links/abs does not lead to the real file (the kernel follows it, not the daemon)")
    ck.ok(not os.path.exists(os.path.join(mnt, "links", "abs", "sections")),
          "links/abs shows a binary's view")
    paths = [os.path.join(mnt, "links", n, "sections", ".text") for n in ("abs", "rel")]
    paths += [os.path.join(mnt, "links", "dir", "secret", "sections", ".text"),
              os.path.join(mnt, "links", "dir"), os.path.join(mnt, "links", "rel")]
    secret = sha(section_bytes(fixture("libshared.so"), ".text"))
    whole = sha(open(fixture("libshared.so"), "rb").read())
    got = run_as("nobody", PROBE, json.dumps(paths))
    for p in paths:
        ck.ok(got[p] in ("EACCES", "ENOTDIR"),
              f"nobody through {os.path.relpath(p, mnt)}: {got[p]} "
              f"({'the secret' if got[p] in (secret, whole) else 'want EACCES or ENOTDIR'})")
        ck.count("link_checks")


def check_link_race(ck, src, mnt, secret_dir):
    """src/x flips between a public binary and a symlink to the secret one
    while nobody reads x/sections/.text: only the public bytes, or errors."""
    pub, x = os.path.join(src, "pub"), os.path.join(src, "x")
    public = sha(section_bytes(fixture("exec"), ".text"))
    secret = sha(section_bytes(fixture("libshared.so"), ".text"))
    stop, flips = threading.Event(), [0]

    def flipper():
        while not stop.is_set():
            tmp = x + ".tmp"
            if flips[0] % 2:
                os.symlink(os.path.join(secret_dir, "secret"), tmp)
            else:
                os.link(pub, tmp)
            os.rename(tmp, x)
            flips[0] += 1
            time.sleep(0.002)

    t = threading.Thread(target=flipper)
    t.start()
    try:
        seen = run_as("nobody", RACE, os.path.join(mnt, "x", "sections", ".text"),
                      str(RACE_SECONDS), timeout=RACE_SECONDS + 60)
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
        ck.fail(f"symlink race reader: {e}")
        seen = {}
    finally:
        stop.set()
        t.join()
    ck.ok(secret not in seen, f"nobody read the root-only binary's bytes through the race "
                              f"{seen.get(secret)} times")
    # EACCES: the kernel followed the symlink to the 0700 directory
    bad = {k: v for k, v in seen.items()
           if k not in (public, "ENOENT", "EIO", "ENOTDIR", "EACCES")}
    ck.ok(not bad, f"symlink race: unexpected outcomes {bad}")
    ck.ok(seen.get(public, 0) > 0, f"symlink race: no successful read {seen}")
    ck.count("race_reads", sum(seen.values()))
    ck.count("race_flips", flips[0])


def erofs_calls(node, parent, is_dir, is_link):
    """(description, fn, args, kwargs) of every mutating call on node."""
    new = os.path.join(parent, "new")
    calls = [("create", os.open, (new, os.O_CREAT | os.O_WRONLY, 0o644)),
             ("create excl rdonly", os.open, (new, os.O_CREAT | os.O_EXCL | os.O_RDONLY)),
             ("mkdir", os.mkdir, (new,)), ("mkfifo", os.mkfifo, (new,)),
             ("mknod chr", os.mknod, (new, 0o600 | stat.S_IFCHR, os.makedev(1, 3))),
             ("mknod reg", os.mknod, (new, 0o600 | stat.S_IFREG)),
             ("symlink", os.symlink, ("x", new)),
             ("rename", os.rename, (node, new)),
             ("chown", os.chown, (node, 1, 1), {"follow_symlinks": False}),
             ("utime", os.utime, (node, (1, 1)), {"follow_symlinks": False}),
             ("utime now", os.utime, (node, None), {"follow_symlinks": False}),
             ("removexattr", os.removexattr, (node, "user.elf.index"),
              {"follow_symlinks": False})]
    for ns in ("user", "trusted", "security"):
        calls.append((f"setxattr {ns}", os.setxattr, (node, f"{ns}.x", b"1"),
                      {"follow_symlinks": False}))
    if not is_link:
        calls.append(("chmod", os.chmod, (node, 0o777)))
    if is_dir:
        calls.append(("rmdir", os.rmdir, (node,)))
    else:
        calls += [("unlink", os.unlink, (node,)),
                  ("link", os.link, (node, new), {"follow_symlinks": False})]
    if not is_dir and not is_link:
        for flags, what in ((os.O_WRONLY, "O_WRONLY"), (os.O_RDWR, "O_RDWR"),
                            (os.O_RDONLY | os.O_TRUNC, "O_TRUNC"),
                            (os.O_WRONLY | os.O_APPEND, "O_APPEND")):
            calls.append((f"open {what}", os.open, (node, flags)))
        calls.append(("truncate", os.truncate, (node, 0)))
    return calls


def snapshot(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.lstat(os.path.join(d, name))
            out[os.path.relpath(os.path.join(d, name), root)] = (st.st_mode, st.st_uid,
                                                                  st.st_size, st.st_mtime_ns)
    return out


def check_erofs(ck, mnt):
    b = os.path.join(mnt, "pub")
    nodes = [(os.path.join(mnt, "perm"), mnt, True, False),
             (os.path.join(mnt, "links", "abs"), os.path.join(mnt, "links"), False, True),
             (b, mnt, True, False), (os.path.join(b, "info"), b, False, False),
             (os.path.join(b, "header"), b, False, False),
             (os.path.join(b, "sections"), b, True, False),
             (os.path.join(b, "sections", ".text"), os.path.join(b, "sections"), False, False),
             (os.path.join(b, "segments", "02-LOAD"), os.path.join(b, "segments"), False,
              False)]
    for node, parent, is_dir, is_link in nodes:
        for call in erofs_calls(node, parent, is_dir, is_link):
            what, fn, args = call[:3]
            kwargs = call[3] if len(call) > 3 else {}
            ck.errno_is(errno.EROFS, f"{what} {os.path.relpath(node, mnt)}", fn, *args,
                        **kwargs)
            ck.count("erofs_checks")


def check_forced_options(ck, src):
    """-o rw,suid,dev cannot weaken the mount: it stays ro, nosuid, nodev
    with default_permissions, and writes still give EROFS."""
    def body(m):
        fields = mount_entry(m.path)
        if not ck.ok(fields is not None, "forced options: mount not in mountinfo"):
            return
        sep = fields.index("-")
        opts, sopts = fields[5].split(","), fields[sep + 3].split(",")
        for want in ("ro", "nosuid", "nodev"):
            ck.ok(want in opts, f"-o rw,suid,dev: mount options {fields[5]} lack {want}")
        ck.ok("default_permissions" in sopts, f"-o rw,suid,dev: {fields[sep + 3]}")
        ck.errno_is(errno.EROFS, "-o rw,suid,dev: mkdir", os.mkdir, os.path.join(m.path, "d"))

    run_mounted(ck, src, ["-o", "rw,suid,dev"], body)


def status_kb(pid, key):
    return daemon_status(pid).get(key, -1024) // 1024


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def check_growth(ck, args, tree):
    """10,000 lookups and forgets of distinct binaries: no fd/memory growth.
    A sanitized daemon runs without ASan's quarantine of freed memory (it
    would grow RssAnon by design; LeakSanitizer checks leaks at exit) and
    without its allocator's periodic release of free pages to the system
    (every 5 s by default: a round measured just after one read 18-26 MB
    against a steady 39, so a later round looked like growth)."""
    figures = []
    saved = os.environ.get("ASAN_OPTIONS")
    os.environ["ASAN_OPTIONS"] = (saved + ":" if saved else "") + \
        "quarantine_size_mb=0:thread_local_quarantine_size_kb=0" + \
        ":allocator_release_to_os_interval_ms=-1"
    try:
        with Mount(ck, tree, args) as m:
            pid = m.proc.pid
            with open(f"/proc/{pid}/maps") as f:
                sanitized = "libasan" in f.read()
            figures.append(("mounted", fd_count(pid),
                            status_kb(pid, "VmRSS"), status_kb(pid, "RssAnon")))
            peak = 0  # descriptors with the binaries of a round looked up
            for r in range(ROUNDS):
                bad = 0
                for i in range(BINARIES):
                    try:
                        os.stat(os.path.join(m.path, f"{i:04d}", "sections", ".text"))
                    except OSError:
                        bad += 1
                ck.eq(bad, 0, f"round {r}: failed lookups")
                ck.count("growth_lookups", BINARIES)
                peak = max(peak, fd_count(pid))
                drop_caches()
                # the kernel's forgets reach the daemon asynchronously
                wait_for(lambda: fd_count(pid) <= figures[0][1] + FD_SLACK, 3)
                time.sleep(0.2)
                figures.append((f"round {r + 1}", fd_count(pid),
                                status_kb(pid, "VmRSS"), status_kb(pid, "RssAnon")))
            ck.ok(m.alive(), "daemon died")
    except MountError as e:
        ck.fail(str(e))
        return
    finally:
        if saved is None:
            del os.environ["ASAN_OPTIONS"]
        else:
            os.environ["ASAN_OPTIONS"] = saved
    mode = " ".join(args) or "mmap"
    for what, fds, rss, anon in figures:
        print(f"{mode}: {what}: {fds} descriptors, VmRSS {rss} kB, RssAnon {anon} kB",
              flush=True)
    first, last = figures[2], figures[-1]  # round 1 and 2 warm the allocator up
    print(f"{mode}: at most {peak} descriptors with {BINARIES} binaries looked up", flush=True)
    ck.ok(last[1] <= figures[0][1] + FD_SLACK, f"{mode}: descriptors grew: {figures}")
    # mmap: the descriptor is closed once mapped; pread: a bounded set stays open
    ck.ok(peak <= figures[0][1] + (512 if "nommap" in args else FD_SLACK),
          f"{mode}: {peak} descriptors open with {BINARIES} binaries looked up")
    # ASan's allocator keeps and returns memory in its own way (LeakSanitizer
    # checks leaks at exit there): the loose tolerance only
    slack = max(RSS_SLACK_KB.values()) if sanitized else RSS_SLACK_KB[mode]
    ck.ok(last[3] <= first[3] + slack,
          f"{mode}: RssAnon grew by {last[3] - first[3]} kB from round 2 to {ROUNDS}")


def main():
    require_fuse()
    ck = Checker("security")
    src = tempfile.mkdtemp(prefix="elffs-sec-")
    secret_dir = tempfile.mkdtemp(prefix="elffs-secret-")
    tree = tempfile.mkdtemp(prefix="elffs-many-")
    try:
        with Accounts():
            os.chmod(src, 0o755)
            shutil.copy(fixture("libshared.so"), os.path.join(secret_dir, "secret"))
            os.chmod(os.path.join(secret_dir, "secret"), 0o600)
            os.chmod(secret_dir, 0o700)
            shutil.copy(fixture("exec"), os.path.join(src, "pub"))
            os.chmod(os.path.join(src, "pub"), 0o644)
            build_perms(src)
            build_acls(src)
            links = build_links(src, secret_dir)
            before = snapshot(src)

            def body(m):
                check_links(ck, src, m.path, links)
                check_perms(ck, src, m.path)
                check_erofs(ck, m.path)
                check_link_race(ck, src, m.path, secret_dir)
                ck.ok(m.alive(), "daemon died")

            run_mounted(ck, src, ["-o", "allow_other,timeout=0.1"], body)
            for args in ([], ["-o", "nommap"]):
                check_acls(ck, src, args)
            check_forced_options(ck, src)
            after = snapshot(src)
            after.pop("x", None)
            ck.eq(after, before, "SOURCE changed (other than the race file x)")
        for i in range(BINARIES):
            shutil.copyfile(fixture("exec"), os.path.join(tree, f"{i:04d}"))
        for args in (["-s"], ["-o", "nommap"]):
            check_growth(ck, args, tree)
    finally:
        for d in (src, secret_dir, tree):
            shutil.rmtree(d, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
