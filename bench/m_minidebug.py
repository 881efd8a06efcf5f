"""Measurement 24: MiniDebugInfo.

A generated static program of FUNCS functions (assembly, 16 bytes each,
long names), given MiniDebugInfo by gdb's recipe (the fixtures' own,
tests/fixtures/minidebug/mkminidebug.py): its .gnu_debugdata holds an
ELF file of about 10 MiB (the names of every function), xz -6.

 - 24a: the first read of gnu_debugdata/elf on a fresh mount (the lookup
   decodes the section into the decompressed cache, cat reads it), page
   cache warm, against `xz -dc` of the same section's bytes to /dev/null.
 - 24b: the daemon's peak RSS over that read, above its RSS once mounted,
   against the inner file's size.
 - 24c: the first read of minidebuginfo.debug (the section decoded again,
   the functions sorted, the debug file written) on a fresh mount,
   against 24a's baseline; 24d its peak RSS above the mount's.
"""
import os
import subprocess
import sys
import time

import mounts
from benchlib import add_row, log, median, proc_status

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "fixtures", "minidebug"))
import mkminidebug  # noqa: E402

FUNCS = 125000
NAME = "minibig"


def _source(path, n):
    with open(path, "w") as f:
        f.write("\t.text\n")
        for i in range(n):
            f.write("\t.p2align 4\n\t.type bench_minidebuginfo_function_%06d_of_a_generated_program,"
                    "@function\nbench_minidebuginfo_function_%06d_of_a_generated_program:\n"
                    "\tret\n\t.size bench_minidebuginfo_function_%06d_of_a_generated_program,"
                    " 1\n" % (i, i, i))
        f.write("\t.globl _start\n_start:\n\tmov $60, %eax\n\txor %edi, %edi\n\tsyscall\n")


def program(ctx):
    """The program with MiniDebugInfo (made once, kept in the work dir):
    its directory and the size of its inner file."""
    d = ctx.path("minidebug")
    done = os.path.join(d, "DONE")
    if not os.path.isfile(done):
        os.makedirs(d, exist_ok=True)
        log("minidebug: generating %d functions" % FUNCS)
        _source(os.path.join(d, NAME + ".s"), FUNCS)
        subprocess.run(["gcc", "-nostdlib", "-static", "-Wl,--build-id", "-o", NAME,
                        NAME + ".s"], cwd=d, check=True)
        os.unlink(os.path.join(d, NAME + ".s"))
        mkminidebug.minidebuginfo(d, NAME, timeout=3600)
        os.unlink(os.path.join(d, NAME + ".full"))
        open(done, "w").close()
    inner = subprocess.run(["xz", "-dc", os.path.join(d, NAME + ".xz")], check=True,
                           capture_output=True).stdout
    return d, len(inner)


def _cpu(pid):
    """User and system CPU seconds of process pid."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _first_read(ctx, d, rel):
    """Seconds of a first cat of rel on a fresh mount, the daemon's CPU
    seconds over it, its peak RSS over it above its RSS once mounted (KiB),
    the bytes read."""
    with mounts.elffs(ctx, d, ctx.path("mnt-mini")) as m:
        rss = proc_status(m.pid)["VmRSS"]
        cpu = _cpu(m.pid)
        t0 = time.perf_counter()
        out = subprocess.run(["cat", os.path.join(m.mnt, NAME, rel)], capture_output=True,
                             check=True).stdout
        secs = time.perf_counter() - t0
        return secs, _cpu(m.pid) - cpu, proc_status(m.pid)["VmHWM"] - rss, len(out)


def _xz_cpu(xz):
    """Wall and CPU seconds (its own) of xz -dc of file xz to /dev/null."""
    t0 = time.perf_counter()
    before = os.times()
    subprocess.run(["xz", "-dc", xz], stdout=subprocess.DEVNULL, check=True)
    after = os.times()
    return time.perf_counter() - t0, (after.children_user - before.children_user +
                                      after.children_system - before.children_system)


def measure(ctx):
    d, inner = program(ctx)
    xz = os.path.join(d, NAME + ".xz")
    base, bcpu, dec, dcpu, dmem, mini, mcpu, mmem = [], [], [], [], [], [], [], []
    for r in range(ctx.runs):
        log("minidebug run %d/%d" % (r + 1, ctx.runs))
        secs, cpu = _xz_cpu(xz)
        base.append(secs)
        bcpu.append(cpu)
        secs, cpu, kib, n = _first_read(ctx, d, "gnu_debugdata/elf")
        if n != inner:
            raise RuntimeError("gnu_debugdata/elf: %d bytes, xz -dc %d" % (n, inner))
        dec.append(secs)
        dcpu.append(cpu)
        dmem.append(kib)
        secs, cpu, kib, size = _first_read(ctx, d, "minidebuginfo.debug")
        mini.append(secs)
        mcpu.append(cpu)
        mmem.append(kib)
    b, t, m = median(base), median(dec), median(mini)
    xz_size = os.path.getsize(xz)
    add_row(ctx, "24a", "first read of gnu_debugdata/elf (%.1f MiB inner file, %.1f MiB of "
            "xz, %d functions), fresh mount" % (inner / 2**20, xz_size / 2**20, FUNCS),
            t * 1e3, "ms", "xz -dc of the section", b * 1e3, "(info)", None,
            note="CPU: daemon %.0f ms, xz %.0f ms" % (median(dcpu) * 1e3, median(bcpu) * 1e3))
    add_row(ctx, "24b", "daemon peak RSS over 24a, above its RSS once mounted",
            median(dmem) / 1024, "MiB", "the inner file", inner / 2**20, "(info)", None)
    add_row(ctx, "24c", "first read of minidebuginfo.debug (%.1f MiB), fresh mount"
            % (size / 2**20), m * 1e3, "ms", "xz -dc of the section", b * 1e3, "(info)",
            None, note="CPU: daemon %.0f ms" % (median(mcpu) * 1e3))
    add_row(ctx, "24d", "daemon peak RSS over 24c, above its RSS once mounted",
            median(mmem) / 1024, "MiB", "the inner file", inner / 2**20, "(info)", None)
