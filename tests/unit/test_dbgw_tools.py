#!/usr/bin/env python3
"""The debug files of pfelf's writer (pfelf_dbgw_*) in the tools people use.

For each target the test builds a small program with debug information (a C
program by gcc for x86-64, PIE and not, and not with a stripped copy
without section headers, whose layout the writer takes from its
PT_LOADs; generated assembly with .loc lines
for i386, s390x and 32-bit PowerPC, by the binutils the suite installs; a Go
program by go build, with a GNU build id), and a stripped copy. The
program's own DWARF, through the tools, is the oracle: its functions from
`readelf -sW`, the unit of each from `readelf -wi`, the file:line of every
byte of every function from `addr2line` (of 12 pcs of each in the Go
program: 1,400 functions; there, of the innermost inlined call, as Go's
own tables give it). dbgw_write
(tests/unit/dbgw_write.c) writes a debug file from the stripped copy's
layout and those functions, units and rows; each unit's first file has no
name, and the first row of every other function is of it (the tools must
say "??:LINE" there, as the writer writes such a file "??", and name the
files after it right). Then each tool must read it as it reads the
original:
  - readelf -sW: every function at its entry, with its size, binding and
    section; nm -n the same;
  - addr2line -f -e DEBUG at every byte of every function: the function and
    file:line that addr2line gives on the unstripped program;
  - llvm-symbolizer --obj=DEBUG, and through the build-id directory with
    --debug-file-directory on the stripped program: the same;
  - eu-addr2line -f --debuginfo-path=DIR -e STRIPPED: the same;
  - gdb -iex 'set debug-file-directory DIR' STRIPPED: info symbol (as gdb
    says it for the unstripped program) and info line at two addresses of
    each function (not for the copy without section headers: gdb names
    nothing there, even with objcopy --only-keep-debug's file);
  - readelf -a -w, eu-readelf -a -w and llvm-dwarfdump --verify: no
    warning, no error.
Cross binutils and go are those of scripts/test's PACKAGES; a missing
binutils fails, a missing go leaves the Go program out (as the metadata
fixtures do).
Usage: test_dbgw_tools.py (DBGW_WRITE names the dbgw_write program).
"""
import os
import random
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from common import TOOL_ENV, Fail, run  # noqa: E402

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

GO_MAIN = r"""
package main

import (
	"fmt"
	"os"
)

type pair struct {
	a int
	b string
}

func twice(x int) int { return 2 * x }

func main() {
	p := pair{len(os.Args), "x"}
	fmt.Println(twice(p.a), p.b, p == pair{1, "x"})
}
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
DW_LANG_GO = 0x16
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


def build_c(work, pie, shdrs=True):
    for name, text in (("main.c", C_MAIN), ("other.c", C_OTHER), ("inc.h", C_INC)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    flags = ["-fPIE", "-pie"] if pie else ["-no-pie"]
    run(["gcc", "-g", "-O1", "-fno-inline", "-Wl,--build-id"] + flags +
        ["-o", "prog", "main.c", "other.c"], work)
    run(["strip", "-o", "stripped", "prog"], work)
    if not shdrs:
        drop_section_headers(os.path.join(work, "stripped"))
    return ""


def drop_section_headers(path):
    """e_shoff, e_shnum and e_shstrndx of the ELF64 LSB file at path set to 0."""
    with open(path, "r+b") as f:
        f.seek(0x28)
        f.write(bytes(8))
        f.seek(0x3c)
        f.write(bytes(4))


def build_go(work):
    """A Go program with a GNU build id (the linker's -B), its own caches."""
    with open(os.path.join(work, "main.go"), "w") as f:
        f.write(GO_MAIN)
    with open(os.path.join(work, "go.mod"), "w") as f:
        f.write("module example.com/dbgw\ngo 1.19\n")
    for var in ("GOCACHE", "GOPATH", "HOME"):
        TOOL_ENV[var] = os.path.join(work, "go-" + var.lower())
    TOOL_ENV["GOFLAGS"] = "-mod=mod"
    bid = "0x" + "".join("%02x" % b for b in random.Random(7).randbytes(20))
    run(["go", "build", "-ldflags=-B=" + bid, "-o", "prog", "."], work, timeout=300)
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
    """The names of the compile units, and {entry of a subprogram: its unit's
    index}, from readelf -wi."""
    names, unit_of, tag = [], {}, None
    for line in tool(["readelf", "--debug-dump=info", "prog"], work).splitlines():
        m = re.match(r"\s*<\d+><[0-9a-f]+>: Abbrev Number: \d+ \((\w+)\)", line)
        if m:
            tag = m.group(1)
            if tag == "DW_TAG_compile_unit":
                names.append(None)
            continue
        m = re.match(r"\s*<[0-9a-f]+>\s+DW_AT_(\w+)\s*:\s*(?:\([^)]*\):\s*)?(.*)", line)
        if not m or not names:
            continue
        if tag == "DW_TAG_compile_unit" and m.group(1) == "name" and names[-1] is None:
            names[-1] = m.group(2).strip()
        elif tag == "DW_TAG_subprogram" and m.group(1) == "low_pc":
            unit_of.setdefault(int(m.group(2), 16), len(names) - 1)
    return names, unit_of


def symbolize(work, prefix, exe, pcs):
    """{pc: (function, file:line)} from addr2line -f -e exe."""
    out = tool([prefix + "addr2line", "-f", "-e", exe] + ["%#x" % pc for pc in pcs], work)
    lines = out.splitlines()
    check(len(lines) == 2 * len(pcs), "addr2line -e %s: %d lines for %d pcs" %
          (exe, len(lines), len(pcs)))
    return {pc: (lines[2 * i], re.sub(r" \(discriminator \d+\)$", "", lines[2 * i + 1]))
            for i, pc in enumerate(pcs)}


def sample_pcs(funcs, sample):
    """Every pc of every function, or at most sample pcs of each (its entry
    and others at random) when sample is given."""
    rng = random.Random(99)
    out = {}
    for v, s, *_ in funcs:
        if sample is None or s <= sample:
            out[v] = list(range(v, v + s))
        else:
            out[v] = sorted({v} | set(rng.sample(range(v + 1, v + s), sample - 1)))
    return out


def spec(work, prefix, funcs, cus, t):
    """The directives of dbgw_write, and {pc: (function, file:line or None)}.
    Each function goes to the unit of its compile unit (a function without a
    subprogram to one named "no lines", without files); with t["interleave"],
    the units are two others, "even" and "odd", which take every other
    function by address (so that each has many address ranges). A row at
    each pc looked at whose file:line is not the one before; the first row
    of every other function is of a file of no name, first of its unit's
    files, where the tools must say "??:LINE" (and the files after it
    right)."""
    names, unit_of = cus
    if t.get("interleave"):
        order = sorted(v for v, *_ in funcs)
        names, unit_of = ["even", "odd"], {v: order.index(v) % 2 for v in order}
    pcs = sample_pcs(funcs, t.get("sample"))
    truth = symbolize(work, prefix, "prog", [pc for v in sorted(pcs) for pc in pcs[v]])
    head, body = ["layout\tstripped"], []
    for name in names:
        head.append("unit\t%d\t%s" % (t.get("lang", DW_LANG_C99), name))
    head.append("unit\t0\tno lines")
    # each unit's first file has no name (the writer writes "??"): the
    # first row of every other function is of it, its line kept
    files = {(u, ""): u for u in range(len(names))}
    file_lines = ["file\t%d\t" % u for u in range(len(names))]
    expect, binds = {}, {"LOCAL": 0, "GLOBAL": 1, "WEAK": 2}
    for i, (value, size, bind, name, _) in enumerate(funcs):
        u = unit_of.get(value, len(names))
        body.append("func\t%d\t%#x\t%#x\t%d\t%s" % (u, value, value + size, binds[bind], name))
        last = shown = None
        for pc in pcs[value]:
            fn, where = truth[pc]
            if not t.get("inlines"):  # else addr2line names the inlined function
                check(fn == name, "addr2line on prog names %s at %#x, not %s" % (fn, pc, name))
            if u < len(names) and where != last:
                path, line = where.rsplit(":", 1)
                if last is None and i % 2:
                    path = ""
                last, shown = where, (path or "??") + ":" + line
                if (u, path) not in files:
                    files[(u, path)] = len(files)
                    file_lines.append("file\t%d\t%s" % (u, path))
                body.append("line\t%#x\t%d\t%s" % (pc, files[(u, path)], line))
            expect[pc] = (name, shown)
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
    shdrs = tool(["readelf", "-SW", "debug"], work)
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", shdrs, re.M):
        secs[m.group(1)] = m.group(2)
    got = []
    for line in tool(["readelf", "-sW", "debug"], work).splitlines():
        f = line.split(None, 7)
        if len(f) == 8 and f[3] == "FUNC":
            got.append((int(f[1], 16), int(f[2], 0), f[4], f[7], secs.get(f[6], f[6])))
    check(sorted(got) == sorted(funcs),
          "readelf -sW debug: %s, want %s" % (sorted(got), sorted(funcs)))
    letters = {"LOCAL": "t", "GLOBAL": "T", "WEAK": "W"}
    want = sorted((v, letters[b], n) for v, _, b, n, _ in funcs)
    got = []
    for line in tool([prefix + "nm", "-n", "debug"], work).splitlines():
        v, letter, name = line.split(None, 2)
        got.append((int(v, 16), letter, name))
    check(got == want, "nm -n debug: %s, want %s" % (got, want))


def llvm_blocks(out, pcs):
    blocks = [b.splitlines() for b in out.strip("\n").split("\n\n")]
    check(len(blocks) == len(pcs),
          "llvm-symbolizer: %d answers for %d pcs" % (len(blocks), len(pcs)))
    return {pc: (b[0], re.sub(r":\d+$", "", b[1]) if len(b) > 1 else None)
            for pc, b in zip(pcs, blocks)}


def check_symbolizers(work, prefix, dbgdir, expect, noshdr):
    pcs = sorted(expect)
    addrs = ["%#x" % pc for pc in pcs]
    same("addr2line -f -e debug", symbolize(work, prefix, "debug", pcs), expect)
    out = tool(["llvm-symbolizer", "--obj=debug"] + addrs, work)
    same("llvm-symbolizer --obj=debug", llvm_blocks(out, pcs), expect)
    if noshdr or id_in_pt_note(work):
        out = tool(["llvm-symbolizer", "--debug-file-directory=" + dbgdir, "--obj=stripped"] +
                   addrs, work)
        same("llvm-symbolizer --debug-file-directory --obj=stripped", llvm_blocks(out, pcs),
             expect)
    else:  # LLVM 14 reads a binary's build id from its PT_NOTEs only
        print("   the build-id note of stripped is in no PT_NOTE: "
              "llvm-symbolizer cannot look it up")
    out = tool(["eu-addr2line", "-f", "--debuginfo-path=" + dbgdir, "-e", "stripped"] + addrs,
               work)
    lines = out.splitlines() + [None]
    got = {pc: (lines[2 * i], lines[2 * i + 1] and re.sub(r"(:\d+):\d+$", r"\1", lines[2 * i + 1]))
           for i, pc in enumerate(pcs) if 2 * i < len(lines) - 1}
    # eu-addr2line 0.188 prefixes a relative file name with the unit's
    # DW_AT_comp_dir by default (-A), "(null)" in a unit without one (the
    # writer's: binutils would prefix the name with it).
    want = {pc: (fn, "(null)" + where if where and where[0] != "/" else where)
            for pc, (fn, where) in expect.items()}
    same("eu-addr2line --debuginfo-path -e stripped", got, want)


def gdb_answers(work, exe, pcs, dbgdir=None):
    """gdb's info symbol and info line at each pc, as text."""
    cmd = ["gdb", "-batch", "-nx", "-iex", "set debuginfod enabled off", "-iex", "set auto-load no"]
    if dbgdir:
        cmd += ["-iex", "set debug-file-directory " + dbgdir]
    for pc in pcs:
        cmd += ["-ex", "echo @@\\n", "-ex", "info symbol %#x" % pc, "-ex", "info line *%#x" % pc]
    _, out, err = run(cmd + [exe], work, timeout=300)
    check("warning" not in err.lower() and "error" not in err.lower(), "gdb: " + err[:2000])
    answers = out.split("@@\n")[1:]
    check(len(answers) == len(pcs), "gdb: %d answers for %d pcs" % (len(answers), len(pcs)))
    return answers


def check_gdb(work, dbgdir, funcs, expect):
    """info symbol and info line at the entry and a pc in the middle of each
    function: the symbol as gdb names it in the unstripped program (Go's
    "package[function]" for units of DW_LANG_Go), the line expected."""
    pcs = set()
    for v, s, *_ in funcs:
        mine = sorted(pc for pc in expect if v <= pc < v + s)
        pcs |= {mine[0], mine[len(mine) // 2]}
    pcs = sorted(pcs)
    sym = re.compile(r"(.+?)(?: \+ \d+)? in section \.text(?: of \S+)?\n")
    bad = []
    for pc, a, p in zip(pcs, gdb_answers(work, "stripped", pcs, dbgdir),
                        gdb_answers(work, "prog", pcs)):
        m, want = sym.match(a), sym.match(p)
        if not m or not want or m.group(1) != want.group(1):
            bad.append("%#x: info symbol: %r, in prog %r" % (pc, a, p))
        fn, where = expect[pc]
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


def id_in_pt_note(work):
    """Whether a PT_NOTE of stripped holds its .note.gnu.build-id."""
    m = re.search(r"\.note\.gnu\.build-id\s+NOTE\s+([0-9a-f]+)",
                  tool(["readelf", "-SW", "stripped"], work))
    addr = int(m.group(1), 16)
    for m in re.finditer(r"^\s*NOTE\s+\S+\s+(\S+)\s+\S+\s+\S+\s+(\S+)",
                         tool(["readelf", "-lW", "stripped"], work), re.M):
        if int(m.group(1), 16) <= addr < int(m.group(1), 16) + int(m.group(2), 16):
            return True
    return False


def build_id_dir(work):
    """A debug-file directory holding debug as .build-id/xx/rest.debug."""
    m = re.search(r"Build ID: ([0-9a-f]+)", tool(["readelf", "-n", "stripped"], work))
    bid = m.group(1)
    d = os.path.join(work, "dbgdir", ".build-id", bid[:2])
    os.makedirs(d)
    shutil.copy(os.path.join(work, "debug"), os.path.join(d, bid[2:] + ".debug"))
    return os.path.join(work, "dbgdir")


def one(t, work):
    print("== %s" % t["label"])
    prefix = t["build"](work)
    funcs = functions(work, prefix)
    cus = units(work)
    directives, expect = spec(work, prefix, funcs, cus, t)
    with open(os.path.join(work, "spec"), "w") as f:
        f.write("\n".join(directives) + "\n")
    out = tool([os.environ["DBGW_WRITE"], "spec", "debug"], work)
    print("   %d functions, %d units, %d rows, %d pcs: %s" % (
        len(funcs), sum(d.startswith("unit") for d in directives),
        sum(d.startswith("line") for d in directives), len(expect), out.strip()))
    dbgdir = build_id_dir(work)
    check_symbols(work, prefix, funcs)
    check_symbolizers(work, prefix, dbgdir, expect, t.get("noshdr"))
    if t.get("noshdr"):  # BFD gives gdb no section of it to place symbols in
        print("   gdb names nothing in a program without section headers, not even "
              "with objcopy --only-keep-debug's file: not asked")
    else:
        check_gdb(work, dbgdir, funcs, expect)
    check_clean(work)


def targets():
    out = [dict(label="x86-64 PIE (gcc)", build=lambda w: build_c(w, True)),
           dict(label="x86-64 EXEC (gcc)", build=lambda w: build_c(w, False)),
           dict(label="x86-64 EXEC (gcc), stripped of its section headers",
                build=lambda w: build_c(w, False, shdrs=False), noshdr=True)]
    out += [dict(label="%s (as)" % k, build=lambda w, a=a: build_asm(w, a), interleave=True)
            for k, a in ASM_TARGETS.items()]
    if shutil.which("go"):
        out.append(dict(label="x86-64 Go (go build)", build=build_go, lang=DW_LANG_GO,
                        sample=12, inlines=True))
    else:
        print("no go tool: the Go program is left out")
    return out


def main():
    only = sys.argv[1:]
    top = tempfile.mkdtemp(prefix="test_dbgw_tools.")
    print("in %s (kept when DBGW_KEEP is set)" % top)
    try:
        for i, t in enumerate(targets()):
            if only and not any(o in t["label"] for o in only):
                continue
            work = os.path.join(top, str(i))
            os.mkdir(work)
            try:
                one(t, work)
            except Fail as e:
                check(False, "%s: %s" % (t["label"], e))
    finally:
        if not os.environ.get("DBGW_KEEP"):
            shutil.rmtree(top, ignore_errors=True)
    print("%d failures" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
