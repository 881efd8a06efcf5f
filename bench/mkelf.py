#!/usr/bin/python3
"""Generators of the benchmark's ELF inputs (written at bench time, never committed).

  mkelf.py big OUT SIZE_MIB
      An x86-64 ELF64 relocatable object with one PROGBITS section `.big` of
      SIZE_MIB MiB of random bytes at file offset 4096, then `.shstrtab` and
      the section header table. Prints "offset=4096 size=N".
  mkelf.py many OUT COUNT
      An object with COUNT one-byte sections `.s0` ... (plus .text), assembled
      by GNU as from a generated source: more than 65,280 sections forces
      extended numbering (e_shnum == 0, e_shstrndx == SHN_XINDEX).
"""
import os
import struct
import subprocess
import sys
import tempfile

DATA_OFFSET = 4096
CHUNK = 1 << 20


def _shdr(name, stype, flags, offset, size, align):
    # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link,
    # sh_info, sh_addralign, sh_entsize
    return struct.pack("<IIQQQQIIQQ", name, stype, flags, 0, offset, size, 0, 0, align, 0)


def write_big(out, size_mib):
    size = size_mib << 20
    names = b"\0.big\0.shstrtab\0"
    str_off = DATA_OFFSET + size
    shoff = (str_off + len(names) + 7) & ~7
    ehdr = struct.pack("<16sHHIQQQIHHHHHH",
                       b"\x7fELF\x02\x01\x01" + b"\0" * 9,
                       1, 62, 1,          # ET_REL, EM_X86_64, EV_CURRENT
                       0, 0, shoff,       # entry, phoff, shoff
                       0, 64, 0, 0,       # flags, ehsize, phentsize, phnum
                       64, 3, 2)          # shentsize, shnum, shstrndx
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(ehdr.ljust(DATA_OFFSET, b"\0"))
        for _ in range(size // CHUNK):
            f.write(os.urandom(CHUNK))
        f.write(names.ljust(shoff - str_off, b"\0"))
        f.write(_shdr(0, 0, 0, 0, 0, 0))
        f.write(_shdr(1, 1, 2, DATA_OFFSET, size, 4096))        # .big PROGBITS, A
        f.write(_shdr(6, 3, 0, str_off, len(names), 1))          # .shstrtab STRTAB
    os.replace(tmp, out)
    print("offset=%d size=%d" % (DATA_OFFSET, size))


def write_many(out, count):
    lines = ["\t.text\n\t.globl many_entry\nmany_entry:\n\tret\n"]
    for i in range(count):
        lines.append('\t.section .s%d,"a"\n\t.byte %d\n' % (i, i & 0xFF))
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as src:
        src.write("".join(lines))
    try:
        subprocess.run(["as", "--64", "-o", out + ".tmp", src.name], check=True)
    finally:
        os.unlink(src.name)
    os.replace(out + ".tmp", out)
    print("assembled_sections=%d" % count)


def main(argv):
    if len(argv) == 4 and argv[1] == "big":
        write_big(argv[2], int(argv[3]))
    elif len(argv) == 4 and argv[1] == "many":
        write_many(argv[2], int(argv[3]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
