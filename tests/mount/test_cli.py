#!/usr/bin/python3
"""The daemon's own command line: -h/--help and -V/--version exit 0 and
print a usage naming SOURCE, MOUNTPOINT and elffs's own options, and the
project version. (mount -t fuse.elffs needs `meson install`: not tested
here.) Needs no FUSE.
"""

import subprocess

from elffs_mount import Checker, elffs_path, require_env


def run(args):
    out = subprocess.run([elffs_path()] + args, capture_output=True, text=True, timeout=20)
    return out.returncode, out.stdout + out.stderr


def main():
    ck = Checker("cli")
    version = require_env("ELFFS_VERSION")
    for flag in ("-h", "--help"):
        rc, text = run([flag])
        ck.eq(rc, 0, f"elffs {flag}: exit status")
        low = text.lower()
        ck.ok("usage" in low and "source" in low and "mountpoint" in low,
              f"elffs {flag}: no usage line with SOURCE and MOUNTPOINT:\n{text}")
        for opt in ("nommap", "timeout", "-f", "-o"):
            ck.ok(opt in text, f"elffs {flag}: does not mention {opt}")
    for flag in ("-V", "--version"):
        rc, text = run([flag])
        ck.eq(rc, 0, f"elffs {flag}: exit status")
        ck.ok("elffs" in text and version in text,
              f"elffs {flag}: no 'elffs' and version {version}:\n{text}")
    rc, text = run([])
    ck.ok(rc != 0 and text.strip(), f"elffs without arguments: status {rc}, output {text!r}")
    print("note: mount -t fuse.elffs needs the daemon installed (meson install): not run")
    ck.finish()


if __name__ == "__main__":
    main()
