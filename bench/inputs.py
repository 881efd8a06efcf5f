"""The benchmark's inputs, made in the work directory at bench time (reused
when already there): the 1 GiB-section ELF, the 70,000-section object, the
list of real ELF files, and the source tree of the memory measurement."""
import os
import shutil
import subprocess
import sys

from benchlib import log

HERE = os.path.dirname(os.path.abspath(__file__))
LIBDIR = "/usr/lib/x86_64-linux-gnu"
BIG_OFFSET = 4096
MANY_SECTIONS = 70000


def is_elf(path):
    try:
        if os.path.islink(path) or not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def elf_files(top, recursive=True):
    out = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        out += [os.path.join(root, f) for f in sorted(files) if is_elf(os.path.join(root, f))]
        if not recursive:
            break
    return out


def big_elf(ctx, size_mib):
    """src/big.elf: one PROGBITS section .big of size_mib MiB at offset 4096."""
    path = ctx.path("src", "big.elf")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    want = BIG_OFFSET + (size_mib << 20)
    if not (os.path.exists(path) and os.path.getsize(path) > want):
        log("writing %s (%d MiB section)" % (path, size_mib))
        subprocess.run([sys.executable, os.path.join(HERE, "mkelf.py"), "big", path,
                        str(size_mib)], check=True, stdout=subprocess.DEVNULL)
    return path, BIG_OFFSET, size_mib << 20


def many_obj(ctx):
    """many/many.o: an object with 70,000 sections (extended numbering)."""
    path = ctx.path("many", "many.o")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path):
        log("assembling %s (%d sections)" % (path, MANY_SECTIONS))
        subprocess.run([sys.executable, os.path.join(HERE, "mkelf.py"), "many", path,
                        str(MANY_SECTIONS)], check=True, stdout=subprocess.DEVNULL)
    return path, ".s%d" % (MANY_SECTIONS - 1)


def elf_list(ctx):
    """elflist: every ELF file under /usr/lib/x86_64-linux-gnu, one a line."""
    path = ctx.path("elflist")
    files = elf_files(LIBDIR)
    with open(path, "w") as f:
        f.write("".join(p + "\n" for p in files))
    return path, len(files)


def memory_tree(ctx, big, min_lib_bytes):
    """memsrc/: a hard link of big.elf and a copy of real libraries (the
    top level of /usr/lib/x86_64-linux-gnu) of at least min_lib_bytes."""
    top = ctx.path("memsrc")
    libs = os.path.join(top, "libs")
    os.makedirs(libs, exist_ok=True)
    link = os.path.join(top, "big.elf")
    if not os.path.exists(link):
        try:
            os.link(big, link)
        except OSError:
            shutil.copyfile(big, link)
    total = sum(os.path.getsize(os.path.join(libs, f)) for f in os.listdir(libs))
    for src in elf_files(LIBDIR, recursive=False):
        if total >= min_lib_bytes:
            break
        dst = os.path.join(libs, os.path.basename(src))
        if not os.path.exists(dst):
            shutil.copy2(src, dst)
            total += os.path.getsize(dst)
    return top, total

