#!/usr/bin/env python3
"""The debug files of pfelf's writer (pfelf_dbgw_*) in the tools people use.

For each target the test builds a small program with debug information (a C
program by gcc for x86-64, PIE and not; generated assembly with .loc lines
for i386, s390x and 32-bit PowerPC, by the binutils the suite installs),
and a stripped copy. The program's own DWARF, through the tools, is the
oracle: its functions from `readelf -sW`, its units from `readelf -wi`, the
file:line of every byte of every function from `addr2line`. dbgw_write
(tests/unit/dbgw_write.c) writes a debug file from the stripped copy's
layout and those functions, units and rows. Then each tool must read it as
it reads the original:
  - readelf -sW: every function at its entry, with its size, binding and
    section; nm -n the same;
  - addr2line -f -e DEBUG at every byte of every function: the function and
    file:line that addr2line gives on the unstripped program;
  - llvm-symbolizer --obj=DEBUG, and through the build-id directory with
    --debug-file-directory on the stripped program: the same;
  - eu-addr2line -f --debuginfo-path=DIR -e STRIPPED: the same;
  - gdb -iex 'set debug-file-directory DIR' STRIPPED: info symbol and
    info line at a few addresses of each function;
  - readelf -a -w, eu-readelf -a -w and llvm-dwarfdump --verify: no
    warning, no error.
Cross binutils are those of scripts/test's PACKAGES; a missing one fails.
Usage: test_dbgw_tools.py (DBGW_WRITE names the dbgw_write program).
"""
import os
import random
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from common import Fail, run  # noqa: E402

C_MAIN = r"""
#include "inc.h"
static int sq(int x) { return x * x + helper(x); }
int twice(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += sq(i);
	return s;
}
int main(int argc, char **argv) { (void)argv; return twice(argc) + other(argc); }
"""
C_OTHER = r"""
#include "inc.h"
int other(int x)
{
	int t = helper(x);
	while (t > 10)
		t /= 3;
	return t;
}
"""
C_INC = r"""
static int helper(int x)
{
	if (x > 3)
		return x - 1;
	return x + 2;
}
int other(int x);
"""

# Targets built from generated assembly: assembler, linker, a no-op
# instruction, the binutils prefix of the tools that read them.
ASM_TARGETS = {
    "i386": dict(asm=["as", "--32"], ld=["ld", "-m", "elf_i386"], nop="nop", prefix=""),
    "s390x": dict(asm=["s390x-linux-gnu-as"], ld=["s390x-linux-gnu-ld"], nop="nopr %r7",
                  prefix="s390x-linux-gnu-"),
    "ppc32": dict(asm=["powerpc64-linux-gnu-as", "-a32", "-mbig"],
                  ld=["powerpc64-linux-gnu-ld", "-m", "elf32ppc"], nop="nop",
                  prefix="powerpc64-linux-gnu-"),
}

DW_LANG_C99 = 0x0c
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what)
    return cond


def tool(cmd, cwd):
    """stdout of a tool that must succeed and say nothing on stderr."""
    _, out, err = run(cmd, cwd, timeout=120)
    check(err.strip() == "", "%s wrote on stderr:\n%s" % (" ".join(cmd[:3]), err[:2000]))
    return out


# ------------------------------------------------------------ the programs


def build_c(work, pie):
    for name, text in (("main.c", C_MAIN), ("other.c", C_OTHER), ("inc.h", C_INC)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    flags = ["-fPIE", "-pie"] if pie else ["-no-pie"]
    run(["gcc", "-g", "-O1", "-fno-inline", "-Wl,--build-id"] + flags +
        ["-o", "prog", "main.c", "other.c"], work)
    run(["strip", "-o", "stripped", "prog"], work)
    return ""


def asm_unit(rng, unit, nop, funcs):
    """Assembly of one unit: functions with .loc rows of two files, lines
    going up and down by small and large steps, runs of many instructions
    under one row (long address advances), repeated rows."""
    out = ['\t.file 1 "/src/unit%d.c"' % unit, '\t.file 2 "/src/include/common %d.h"' % unit,
           "\t.text"]
    line = 10 + 100 * unit
    for name, bind in funcs:
        if bind == "global":
            out.append("\t.globl %s" % name)
        out += ["\t.type %s, @function" % name, "%s:" % name]
        for row in range(rng.randint(3, 9)):
            line = max(1, line + rng.choice([1, 2, -1, -3, 7, 8, 9, -6, 40, -35, 1000]))
            out.append("\t.loc %d %d" % (rng.choice([1, 1, 2]), line))
            out += ["\t" + nop] * rng.choice([1, 1, 2, 3, 17, 18, 40, 300])
        out.append("\t.size %s, .-%s" % (name, name))
    return "\n".join(out) + "\n"


def build_asm(work, t):
    rng = random.Random(1234)
    units = [[("start", "global"), ("local_one", "local"), ("same_name", "local")],
             [("two", "global"), ("same_name", "local"), ("three", "global")]]
    objs = []
    for i, funcs in enumerate(units):
        src = os.path.join(work, "u%d.s" % i)
        with open(src, "w") as f:
            f.write(asm_unit(rng, i, t["nop"], funcs))
        run(t["asm"] + ["--gdwarf-4", "-o", "u%d.o" % i, src], work)
        objs.append("u%d.o" % i)
    run(t["ld"] + ["--build-id", "-e", "start", "-o", "prog"] + objs, work)
    run([t["prefix"] + "strip", "-o", "stripped", "prog"], work)
    return t["prefix"]


# ---------------------------------------------------------------- the oracle


def functions(work, prefix):
    """[(value, size, bind, name, section)] of the .symtab FUNC symbols with a size."""
    secs = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", tool(["readelf", "-SW", "prog"], work), re.M):
        secs[m.group(1)] = m.group(2)
    out, in_symtab = [], False
    for line in tool(["readelf", "-sW", "prog"], work).splitlines():
        if line.startswith("Symbol table"):
            in_symtab = "'.symtab'" in line
            continue
        f = line.split(None, 7)
        if not in_symtab or len(f) < 8 or f[3] != "FUNC" or f[6] == "UND":
            continue
        size = int(f[2], 0)
        if size:
            out.append((int(f[1], 16), size, f[4], f[7], secs[f[6]]))
    return out


def units(work):
    """[(name, lo, hi)] of the compile units, from readelf -wi."""
    out = []
    text = tool(["readelf", "--debug-dump=info", "prog"], work)
    for cu in text.split("(DW_TAG_compile_unit)")[1:]:
        attrs = {}
        for m in re.finditer(r"DW_AT_(\w+)\s*:\s*(.*)", cu.split("Abbrev Number")[0]):
            attrs[m.group(1)] = m.group(2).strip()
        lo = int(attrs["low_pc"], 0)
        out.append((attrs["name"].split(": ")[-1], lo, lo + int(attrs["high_pc"], 0)))
    return out


def symbolize(work, prefix, exe, pcs):
    """{pc: (function, file:line)} from addr2line -f -e exe."""
    out = tool([prefix + "addr2line", "-f", "-e", exe] + ["%#x" % pc for pc in pcs], work)
    lines = out.splitlines()
    check(len(lines) == 2 * len(pcs), "addr2line -e %s: %d lines for %d pcs" %
          (exe, len(lines), len(pcs)))
    return {pc: (lines[2 * i], re.sub(r" \(discriminator \d+\)$", "", lines[2 * i + 1]))
            for i, pc in enumerate(pcs)}


def spec(work, prefix, funcs, cus, interleave):
    """The directives of dbgw_write, and {pc: (function, file:line or None)}.
    Each function goes to the unit of its compile unit; with interleave, the
    units are two others, "even" and "odd", which take every other function
    by address (so that each has many address ranges)."""
    pcs = [pc for v, s, *_ in funcs for pc in range(v, v + s)]
    if interleave:
        order = sorted(v for v, *_ in funcs)
        cus = [(n, -1, -1) for n in ("even", "odd")]
    truth = symbolize(work, prefix, "prog", pcs)
    head, file_lines, body = ["layout\tstripped"], [], []
    for name, lo, hi in cus:
        head.append("unit\t%d\t%s" % (DW_LANG_C99, name))
    head.append("unit\t0\tno lines")
    files, expect = {}, {}
    binds = {"LOCAL": 0, "GLOBAL": 1, "WEAK": 2}
    for value, size, bind, name, _ in funcs:
        u = next((i for i, (_, lo, hi) in enumerate(cus) if lo <= value < hi), len(cus))
        if interleave:
            u = order.index(value) % 2
        body.append("func\t%d\t%#x\t%#x\t%d\t%s" % (u, value, value + size, binds[bind], name))
        last = None
        for pc in range(value, value + size):
            fn, where = truth[pc]
            check(fn == name, "addr2line on prog names %s at %#x, not %s" % (fn, pc, name))
            expect[pc] = (name, where if u < len(cus) else None)
            if u == len(cus) or where == last:
                continue
            last = where
            path, line = where.rsplit(":", 1)
            if (u, path) not in files:
                files[(u, path)] = len(files)
                file_lines.append("file\t%d\t%s" % (u, path))
            body.append("line\t%#x\t%d\t%s" % (pc, files[(u, path)], line))
    return head + file_lines + body, expect


# ---------------------------------------------------------------- the checks


def same(label, got, want):
    """Compare two {pc: (function, where)}; where None in want: no line wanted."""
    bad = []
    for pc, (fn, where) in sorted(want.items()):
        g = got.get(pc)
        ok = g is not None and g[0] == fn and (
            g[1] == where if where is not None else g[1] in ("??:0", "??:?", "??", None))
        if not ok:
            bad.append("%#x: %s, want %s" % (pc, g, (fn, where)))
    check(not bad, "%s: %d of %d pcs differ, e.g.\n  %s" % (label, len(bad), len(want),
                                                           "\n  ".join(bad[:8])))


def check_symbols(work, prefix, funcs):
    secs = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", tool(["readelf", "-SW", "debug"], work), re.M):
        secs[m.group(1)] = m.group(2)
    got = []
    for line in tool(["readelf", "-sW", "debug"], work).splitlines():
        f = line.split(None, 7)
        if len(f) == 8 and f[3] == "FUNC":
            got.append((int(f[1], 16), int(f[2], 0), f[4], f[7], secs.get(f[6], f[6])))
    check(sorted(got) == sorted(funcs), "readelf -sW debug: %s, want %s" % (sorted(got), sorted(funcs)))
    letters = {"LOCAL": "t", "GLOBAL": "T", "WEAK": "W"}
    want = sorted((v, letters[b], n) for v, _, b, n, _ in funcs)
    got = []
    for line in tool([prefix + "nm", "-n", "debug"], work).splitlines():
        v, letter, name = line.split(None, 2)
        got.append((int(v, 16), letter, name))
    check(got == want, "nm -n debug: %s, want %s" % (got, want))


def llvm_blocks(out, pcs):
    blocks = [b.splitlines() for b in out.strip("\n").split("\n\n")]
    check(len(blocks) == len(pcs), "llvm-symbolizer: %d answers for %d pcs" % (len(blocks), len(pcs)))
    return {pc: (b[0], re.sub(r":\d+$", "", b[1]) if len(b) > 1 else None)
            for pc, b in zip(pcs, blocks)}


def check_symbolizers(work, prefix, dbgdir, expect):
    pcs = sorted(expect)
    addrs = ["%#x" % pc for pc in pcs]
    same("addr2line -f -e debug", symbolize(work, prefix, "debug", pcs), expect)
    out = tool(["llvm-symbolizer", "--obj=debug"] + addrs, work)
    same("llvm-symbolizer --obj=debug", llvm_blocks(out, pcs), expect)
    out = tool(["llvm-symbolizer", "--debug-file-directory=" + dbgdir, "--obj=stripped"] + addrs,
               work)
    same("llvm-symbolizer --debug-file-directory --obj=stripped", llvm_blocks(out, pcs), expect)
    out = tool(["eu-addr2line", "-f", "--debuginfo-path=" + dbgdir, "-e", "stripped"] + addrs, work)
    lines = out.splitlines()
    got = {pc: (lines[2 * i], re.sub(r"(:\d+):\d+$", r"\1", lines[2 * i + 1]) if 2 * i + 1 < len(lines)
                else None) for i, pc in enumerate(pcs) if 2 * i < len(lines)}
    same("eu-addr2line --debuginfo-path -e stripped", got, expect)


def check_gdb(work, dbgdir, funcs, expect):
    """info symbol and info line at the entry and the middle of each function."""
    pcs = sorted({v for v, *_ in funcs} | {v + s // 2 for v, s, *_ in funcs})
    cmd = ["gdb", "-batch", "-nx", "-iex", "set debuginfod enabled off",
           "-iex", "set debug-file-directory " + dbgdir]
    for pc in pcs:
        cmd += ["-ex", "echo @@\\n", "-ex", "info symbol %#x" % pc, "-ex", "info line *%#x" % pc]
    cmd.append("stripped")
    _, out, err = run(cmd, work, timeout=120)
    check("warning" not in err.lower() and "error" not in err.lower(), "gdb: " + err[:2000])
    answers = out.split("@@\n")[1:]
    check(len(answers) == len(pcs), "gdb: %d answers for %d pcs" % (len(answers), len(pcs)))
    bad = []
    for pc, a in zip(pcs, answers):
        fn, where = expect[pc]
        m = re.match(r"(\S+)(?: \+ \d+)? in section \.text( of \S+)?\n", a)
        if not m or m.group(1) != fn:
            bad.append("%#x: info symbol: %r, want %s" % (pc, a, fn))
        if where is None:
            ok = "No line number information" in a
        else:
            path, line = where.rsplit(":", 1)
            ok = 'Line %s of "%s"' % (line, path) in a
        if not ok:
            bad.append("%#x: info line: %r, want %s" % (pc, a, where))
    check(not bad, "gdb: %d answers differ, e.g.\n  %s" % (len(bad), "\n  ".join(bad[:8])))


def check_clean(work):
    """Every reader of ELF and DWARF takes the file without a word."""
    # Not readelf's -wf: the frames are in the binary (its .eh_frame is a
    # NOBITS copy here, as in objcopy --only-keep-debug's output).
    tool(["readelf", "-a", "-wilLasrR", "debug"], work)
    tool(["eu-readelf", "-a", "-w", "debug"], work)
    out = tool(["llvm-dwarfdump", "--verify", "debug"], work)
    check("No errors." in out, "llvm-dwarfdump --verify debug:\n" + out[-3000:])


def build_id_dir(work):
    """A debug-file directory holding debug as .build-id/xx/rest.debug."""
    m = re.search(r"Build ID: ([0-9a-f]+)", tool(["readelf", "-n", "stripped"], work))
    bid = m.group(1)
    d = os.path.join(work, "dbgdir", ".build-id", bid[:2])
    os.makedirs(d)
    shutil.copy(os.path.join(work, "debug"), os.path.join(d, bid[2:] + ".debug"))
    return os.path.join(work, "dbgdir")


def one(label, build, work):
    print("== %s" % label)
    prefix = build(work)
    funcs = functions(work, prefix)
    cus = units(work)
    directives, expect = spec(work, prefix, funcs, cus, "(as)" in label)
    with open(os.path.join(work, "spec"), "w") as f:
        f.write("\n".join(directives) + "\n")
    out = tool([os.environ["DBGW_WRITE"], "spec", "debug"], work)
    print("   %d functions, %d units, %d rows: %s" % (
        len(funcs), len(cus) + 1, sum(d.startswith("line") for d in directives), out.strip()))
    dbgdir = build_id_dir(work)
    check_symbols(work, prefix, funcs)
    check_symbolizers(work, prefix, dbgdir, expect)
    check_gdb(work, dbgdir, funcs, expect)
    check_clean(work)


def main():
    targets = [("x86-64 PIE (gcc)", lambda w: build_c(w, True)),
               ("x86-64 EXEC (gcc)", lambda w: build_c(w, False))]
    targets += [("%s (as)" % k, lambda w, t=t: build_asm(w, t)) for k, t in ASM_TARGETS.items()]
    only = sys.argv[1:]
    top = tempfile.mkdtemp(prefix="test_dbgw_tools.")
    print("in %s (kept when DBGW_KEEP is set)" % top)
    try:
        for i, (label, build) in enumerate(targets):
            if only and not any(o in label for o in only):
                continue
            work = os.path.join(top, str(i))
            os.mkdir(work)
            try:
                one(label, build, work)
            except Fail as e:
                check(False, "%s: %s" % (label, e))
    finally:
        if not os.environ.get("DBGW_KEEP"):
            shutil.rmtree(top, ignore_errors=True)
    print("%d failures" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
