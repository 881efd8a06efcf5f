#!/usr/bin/python3
"""`info` names no path another user cannot see (elffs(1), INFO and SHARED
MOUNTS). SOURCE holds pub (a 0644 program), its hard link sec/h inside a
0700 directory and a copy in a 0755 one, so pub wins the build-id index
and its `info` would list both others ("same build id: <path>").

- Under -o allow_other,buildid=.build-id (the index asked for by name),
  after the index's first walk: nobody, who cannot search sec/, reads
  pub/info without "sec/h" and without any "same build id" line, as many
  bytes as its st_size; root reads the same text (one text for every
  caller: the kernel keeps one size and one page cache per inode), and
  the index still links pub.
- The same tree without allow_other: root's pub/info lists both others
  (the lines exist: the check above can fail).

usage: test_info_shared.py
"""

import os
import shutil
import tempfile

from elffs_mount import Checker, as_nobody, fixture, require_fuse, run_mounted

SAME = "same build id: "


def build_source(root):
    os.chmod(root, 0o755)
    pub = os.path.join(root, "pub")
    shutil.copy(fixture("exec"), pub)
    os.chmod(pub, 0o644)
    os.mkdir(os.path.join(root, "sec"), 0o700)
    os.link(pub, os.path.join(root, "sec", "h"))
    os.mkdir(os.path.join(root, "shared"), 0o755)
    shutil.copy(pub, os.path.join(root, "shared", "copy"))


def walk_index(ck, mnt):
    """List .build-id (waits for the first walk); the targets of its links."""
    bid = os.path.join(mnt, ".build-id")
    targets = []
    for xx in os.listdir(bid):
        for rest in os.listdir(os.path.join(bid, xx)):
            targets.append(os.readlink(os.path.join(bid, xx, rest)))
    ck.ok(targets, "the index has no link")
    return targets


def read_info(path):
    with open(path, "rb") as f:
        data = f.read()
    return data, os.stat(path).st_size


def nobody_info(path, out):
    """pub/info as nobody, into out (a shared list) through a pipe."""
    r, w = os.pipe()

    def child():
        os.close(r)
        data, size = read_info(path)
        os.write(w, size.to_bytes(8, "little") + data)
        return True

    code = as_nobody(child)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        got = f.read()
    if code == 0 and len(got) >= 8:
        out.append((got[8:], int.from_bytes(got[:8], "little")))
    return code


def same_lines(data):
    return [ln[len(SAME):] for ln in data.decode().splitlines() if ln.startswith(SAME)]


def main():
    require_fuse()
    ck = Checker("info-shared")
    src = tempfile.mkdtemp(prefix="elffs-infoshared-")
    try:
        build_source(src)

        def shared(m):
            targets = walk_index(ck, m.path)
            ck.ok("../../pub/elf" in targets, f"allow_other: the index does not link pub: "
                                              f"{targets}")
            info = os.path.join(m.path, "pub", "info")
            got = []
            ck.eq(nobody_info(info, got), 0, "allow_other: nobody reads pub/info (exit code)")
            if got:
                data, size = got[0]
                ck.eq(len(data), size, "allow_other: nobody: bytes read against st_size")
                ck.ok(b"sec/h" not in data, f"allow_other: nobody's pub/info names sec/h: "
                                            f"{same_lines(data)}")
                ck.eq(same_lines(data), [], "allow_other: nobody: same build id lines")
                mine, size = read_info(info)
                ck.eq(mine, data, "allow_other: root's pub/info against nobody's")
            ck.ok(m.alive(), "allow_other: daemon died")

        run_mounted(ck, src, ["-o", "allow_other,buildid=.build-id"], shared)

        def alone(m):
            walk_index(ck, m.path)
            data, size = read_info(os.path.join(m.path, "pub", "info"))
            ck.eq(len(data), size, "alone: bytes read against st_size")
            ck.eq(same_lines(data), ["sec/h", "shared/copy"], "alone: same build id lines")

        run_mounted(ck, src, [], alone)
    finally:
        shutil.rmtree(src)
    ck.finish()


if __name__ == "__main__":
    main()
