#!/usr/bin/python3
"""The daemon's memory (issue 10, item 3): one parsed view per file identity.

links: 8 hard links of symbomb.o, in two directories, read one after the
other (symbols, info, symbol/ listed, a symbol's bytes): they share one view,
so what the other seven add to the daemon's RSS is less than half of what
the first one cost (before: each link its own view, 8 x 6 MB here, 1.4 GB
for 8 links when the texts were kept whole). Then one link is replaced by
rename (another file, 100 symbols) while the others stay: files opened
before (on the replaced link and on another) read the old text, the
replaced link shows the new file (text, symbol/ names, bytes), the others
the old one. Both backends.

Under AddressSanitizer (its allocator keeps freed memory in quarantine,
adds redzones and shadow) the links' bound is half the first link's cost
plus 64 MiB.
"""

import hashlib
import os
import shutil
import sys
import tempfile
import time

from elffs_mount import Checker, Mount, MountError, require_fuse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import bombs  # noqa: E402

MiB = 1 << 20
LINKS = 8


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as fh:
        for ln in fh:
            k, _, v = ln.partition(":")
            if k in ("VmHWM", "VmRSS"):
                out[k] = int(v.split()[0]) * 1024
    return out


def asan(pid):
    with open(f"/proc/{pid}/maps") as fh:
        return "libasan" in fh.read()


def read_all(path):
    h, n = hashlib.sha256(), 0
    with open(path, "rb", buffering=0) as fh:
        while True:
            data = fh.read(MiB)
            if not data:
                return n, h.hexdigest()
            h.update(data)
            n += len(data)


def link_tree(root):
    """a/l0..l3 and b/l4..l7: hard links of symbomb.o."""
    first = bombs.write(root, "symbomb.o")
    paths = []
    for i in range(LINKS):
        d = os.path.join(root, "src", "ab"[i * 2 // LINKS])
        os.makedirs(d, exist_ok=True)
        paths.append(os.path.join(d, f"l{i}.o"))
        os.link(first, paths[-1])
    return [os.path.relpath(p, os.path.join(root, "src")) for p in paths]


def visit(ck, view):
    """(symbols, info, symbol/ names, bytes of one symbol) of a view."""
    names = sorted(os.listdir(os.path.join(view, "symbol")))
    with open(os.path.join(view, "symbol", names[0]), "rb") as fh:
        first = fh.read()
    return (read_all(os.path.join(view, "symbols")), read_all(os.path.join(view, "info")),
            len(names), first)


def replace_check(ck, m, src, rels, old, label):
    """Replace link 3 by rename while files of it and of link 5 are open."""
    rep, stay = rels[3], rels[5]
    keep = [open(os.path.join(m.path, r, t), "rb") for r in (rep, stay) for t in ("symbols", "info")]
    tmp = os.path.join(src, os.path.dirname(rep), ".new")
    with open(tmp, "wb") as fh:
        fh.write(bombs.symbomb(100))
    os.rename(tmp, os.path.join(src, rep))
    time.sleep(0.6)  # -o timeout=0.3
    for fh, want in zip(keep, (old[0], old[1], old[0], old[1])):
        h, n = hashlib.sha256(), 0
        while True:
            data = fh.read(MiB)
            if not data:
                break
            h.update(data)
            n += len(data)
        fh.close()
        ck.eq((n, h.hexdigest()), want, f"{label}: a file opened before the replacement")
    new = visit(ck, os.path.join(m.path, rep))
    ck.eq(new[2], 100, f"{label}: the replaced link's symbol/")
    ck.ok(new[0] != old[0], f"{label}: the replaced link's symbols are the new file's")
    with open(os.path.join(m.path, rep, "sections", ".text"), "rb") as fh:
        ck.eq(new[3], fh.read(16), f"{label}: the replaced link's symbol bytes")
    ck.eq(visit(ck, os.path.join(m.path, stay)), old, f"{label}: the link that stayed")


def links_round(ck, args, label):
    tmp = tempfile.mkdtemp(prefix="elffs-links-")
    try:
        rels = link_tree(tmp)
        src = os.path.join(tmp, "src")
        with Mount(ck, src, ["-o", "timeout=0.3"] + args) as m:
            pid = m.proc.pid
            r0 = status(pid)["VmRSS"]
            old = visit(ck, os.path.join(m.path, rels[0]))
            r1 = status(pid)["VmRSS"]
            for rel in rels[1:]:
                ck.eq(visit(ck, os.path.join(m.path, rel)), old, f"{label}: {rel} as l0")
            r8, peak = status(pid)["VmRSS"], status(pid)["VmHWM"]
            one, more = r1 - r0, r8 - r1
            bound = one // 2 + (64 * MiB if asan(pid) else 0)
            print(f"{label}: {LINKS} hard links of symbomb.o: the first {one / MiB:.1f} MiB, the "
                  f"other {LINKS - 1} {more / MiB:.1f} MiB (bound {bound / MiB:.1f}), VmHWM "
                  f"{peak / MiB:.1f} MiB")
            ck.ok(more < bound, f"{label}: links 2-{LINKS} added {more} bytes, bound {bound}")
            replace_check(ck, m, src, rels, old, label)
    except (MountError, OSError) as e:
        ck.fail(f"{label}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    require_fuse()
    ck = Checker("memory")
    links_round(ck, [], "links mmap")
    links_round(ck, ["-o", "nommap"], "links nommap")
    ck.finish()


if __name__ == "__main__":
    main()
