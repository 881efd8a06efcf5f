"""FUSE mounts for the benchmarks: elffs and the bare ceiling server.

Both run in the foreground (-f) as our child, so that we know their pid (for
/proc/PID/status) and can end them cleanly with fusermount3 -u.
"""
import os
import subprocess
import time

from benchlib import log


class FuseMount:
    def __init__(self, argv, mnt, logname):
        self.argv = argv
        self.mnt = mnt
        self.logname = logname
        self.proc = None

    def __enter__(self):
        os.makedirs(self.mnt, exist_ok=True)
        if os.path.ismount(self.mnt):
            subprocess.run(["fusermount3", "-u", "-z", self.mnt], capture_output=True)
        self.logf = open(self.logname, "a")
        self.log_start = self.logf.tell()
        self.proc = subprocess.Popen(self.argv, stdout=self.logf, stderr=self.logf,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while not os.path.ismount(self.mnt):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self._stop()
                raise RuntimeError("mount failed: %s: %s (see %s)" % (
                    " ".join(self.argv), self.log_text().strip()[-500:], self.logname))
            time.sleep(0.01)
        return self

    def log_text(self):
        """What this mount's daemon has logged so far."""
        with open(self.logname) as f:
            f.seek(self.log_start)
            return f.read()

    @property
    def pid(self):
        return self.proc.pid

    def bdi_dir(self):
        st = os.stat(self.mnt)
        return "/sys/class/bdi/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))

    def readahead_kb(self):
        with open(os.path.join(self.bdi_dir(), "read_ahead_kb")) as f:
            return int(f.read())

    def set_readahead_kb(self, kb):
        with open(os.path.join(self.bdi_dir(), "read_ahead_kb"), "w") as f:
            f.write("%d\n" % kb)

    def _stop(self):
        if self.proc.poll() is None:
            subprocess.run(["fusermount3", "-u", self.mnt], capture_output=True)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                log("%s did not exit; killing it" % self.argv[0])
                self.proc.kill()
                self.proc.wait()
                subprocess.run(["fusermount3", "-u", "-z", self.mnt], capture_output=True)
        self.logf.close()

    def __exit__(self, *exc):
        self._stop()
        return False


def elffs(ctx, source, mnt, opts=(), single=False):
    """An elffs mount of source at mnt; opts are extra -o options (after
    ELFFS_BENCH_OPTS', so that they win)."""
    argv = [ctx.elffs, "-f"]
    if single:
        argv.append("-s")
    allopts = list(ctx.elffs_opts) + list(opts)
    if allopts:
        argv += ["-o", ",".join(allopts)]
    argv += [source, mnt]
    return FuseMount(argv, mnt, ctx.path("elffs.log"))


def ceiling(ctx, source, offset, size, mnt, args=()):
    """The bare FUSE server serving [offset, offset+size) of source as mnt/data."""
    argv = [ctx.ceiling, "--source=%s" % source, "--offset=%d" % offset,
            "--size=%d" % size] + list(args) + [mnt]
    return FuseMount(argv, mnt, ctx.path("ceiling.log"))
