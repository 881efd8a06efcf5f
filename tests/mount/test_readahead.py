#!/usr/bin/python3
"""-o readahead=KB: the mount's readahead window. With the option, the
mount's backing device (/sys/class/bdi/MAJOR:MINOR of st_dev of the mount
point) says that many KiB once the mount is live, and reads give the same
bytes; without it a root daemon sets 1024 KiB; -o readahead=0 keeps the
kernel's window (128 KiB); a value outside 0 and 4..1048576 is refused at
start with a message and a non-zero status. Needs root (sysfs).
"""

import os
import subprocess
import time

from elffs_mount import Checker, Mount, MountError, elffs_path, fixture, require_fuse


def window(path):
    st = os.stat(path)
    bdi = "/sys/class/bdi/%d:%d/read_ahead_kb" % (os.major(st.st_dev), os.minor(st.st_dev))
    with open(bdi) as f:
        return int(f.read())


def settled(path, want, timeout=5.0):
    """The window, once it equals want or timeout seconds passed (the
    daemon sets it from a thread once INIT is done)."""
    end = time.monotonic() + timeout
    got = window(path)
    while got != want and time.monotonic() < end:
        time.sleep(0.05)
        got = window(path)
    return got


def main():
    require_fuse()
    ck = Checker("readahead")
    src = fixture("libshared.so")
    with open(src, "rb") as f:
        whole = f.read()
    try:
        with Mount(ck, src, ["-o", "readahead=0"]) as m:
            kernel = window(m.path)
            ck.ok(0 < kernel < 1024, f"-o readahead=0: the kernel's window is {kernel} KiB")
        if os.geteuid() == 0:
            with Mount(ck, src) as m:
                ck.eq(settled(m.path, 1024), 1024, "no option, as root: read_ahead_kb")
        for kb in (1024, 4096, 64):
            with Mount(ck, src, ["-o", f"readahead={kb}"]) as m:
                ck.eq(settled(m.path, kb), kb, f"-o readahead={kb}: read_ahead_kb")
                with open(os.path.join(m.path, "header"), "rb") as f:
                    ck.eq(f.read(), whole[:64], "header bytes with a readahead window")
            ck.count("mounts")
    except (MountError, OSError) as e:
        ck.fail(f"mount: {e}")
    for bad in ("3", "1048577", "-5", "12x", ""):
        out = subprocess.run([elffs_path(), "-f", "-o", f"readahead={bad}", src, "/nonexistent"],
                             capture_output=True, text=True, timeout=20)
        ck.ok(out.returncode != 0 and "readahead" in out.stderr,
              f"-o readahead={bad!r}: status {out.returncode}, stderr {out.stderr!r}")
    ck.finish()


if __name__ == "__main__":
    main()
