#!/usr/bin/env python3
"""The layer check: fs/ and pfelf/ are folders in an order, and a file uses
only its own folder and the folders below it.

The order is written once, here (LAYERS, bottom first). The check fails when:
  - a .c or .h file of fs/ or pfelf/ is in no folder of the order (the files
    on top, TOP, excepted);
  - a file includes a header of a higher folder, or pfelf includes anything
    of fs/, or fs/ includes pfelf's private headers;
  - files include each other in a loop (x.c and x.h are one module: a.c
    including b.h while b.c includes a.h is a loop);
  - with --objects BUILD: an object file calls (or reads) a symbol defined in
    a higher folder, or objects call each other in a loop (nm over the
    daemon's and the static library's objects: a call the headers hide, such
    as a prototype written in a .c file, shows here).
Usage: check_layers.py SOURCE_ROOT [--objects BUILD_DIR]
Exit status 0 when the tree is layered, 1 with one line per breach.
"""
import os
import re
import subprocess
import sys

# Bottom first. A folder may use itself and any folder before it in its list;
# "common" (headers shared by both) is below everything; pfelf's public
# header (pfelf/include) is below all of pfelf, and all fs/ may use it.
LAYERS = {
    'pfelf': ['include', 'core', 'backend', 'elf', 'tables', 'archive', 'write', '.'],
    'fs': ['base', 'text', 'node', 'source', 'buildid', 'view', 'content',
           'cache', 'tree', 'watch', 'ops', '.'],
}
# The files of a root's top ("."): the handle, the daemon's start and stop.
TOP = {'pfelf': {'open.c'}, 'fs': {'main.c', 'options.c', 'options.h', 'stop.c', 'stop.h'}}
# Files that stand where SPEC puts them but belong to a lower folder:
# pfelf's private header is pfelf/pfelf_i.h, the bottom of pfelf (core).
PLACED = {'pfelf/pfelf_i.h': 'core'}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(src, rel):
    """(root, folder, rank) of a path relative to SRC, or None outside."""
    if rel in PLACED:
        root = rel.split('/')[0]
        return (root, PLACED[rel], LAYERS[root].index(PLACED[rel]))
    parts = rel.split('/')
    if parts[0] == 'common':
        return ('common', 'common', -1)
    if parts[0] not in LAYERS:
        return None
    root = parts[0]
    folder = parts[1] if len(parts) > 2 else '.'
    order = LAYERS[root]
    if folder not in order:
        return (root, folder, None)
    return (root, folder, order.index(folder))


def sources(src):
    out = []
    for root in LAYERS:
        for dp, _dn, fn in os.walk(os.path.join(src, root)):
            for f in fn:
                if f.endswith(('.c', '.h')):
                    out.append(os.path.relpath(os.path.join(dp, f), src))
    return sorted(out)


def resolve(src, rel, name):
    """The path (relative to SRC) an #include "name" of REL finds, or None."""
    root = rel.split('/')[0]
    dirs = [os.path.dirname(rel), root]
    if root == 'pfelf':
        dirs.append('pfelf/include')
    else:
        dirs.append('pfelf/include')  # fs/ sees pfelf.h alone
    dirs.append('common')
    for d in dirs:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.exists(os.path.join(src, cand)):
            return cand
    return None


def module(rel):
    return os.path.splitext(rel)[0]


def loops(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    nodes = set(edges) | {b for bs in edges.values() for b in bs}
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
                continue
            if nxt not in index:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(edges.get(nxt, ())))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def upward(a, b):
    """Why file A may not use file B, or None."""
    la, lb = layer_of(None, a), layer_of(None, b)
    if lb is None or la is None:
        return None
    if lb[0] == 'common':
        return None
    if la[0] == 'pfelf' and lb[0] == 'fs':
        return 'pfelf uses fs/'
    if la[0] == 'fs' and lb[0] == 'pfelf':
        return None if lb[1] == 'include' else "fs/ uses pfelf's insides"
    if la[2] is None or lb[2] is None:
        return None  # reported as "in no folder"
    if lb[2] > la[2]:
        return 'up from %s/ to %s/' % (la[1], lb[1])
    return None


def check_includes(src, files, breaches):
    edges = {}
    for rel in files:
        lay = layer_of(src, rel)
        base = os.path.basename(rel)
        if lay[2] is None or (lay[1] == '.' and base not in TOP[lay[0]]):
            breaches.append('%s: in no folder of the order (%s)' %
                            (rel, ' < '.join(LAYERS[lay[0]])))
        text = open(os.path.join(src, rel), errors='replace').read()
        for name in INCLUDE.findall(text):
            target = resolve(src, rel, name)
            if target is None:
                continue  # a generated header (pfelf_version.h)
            why = upward(rel, target)
            if why:
                breaches.append('%s includes %s: %s' % (rel, target, why))
            if module(target) != module(rel):
                edges.setdefault(module(rel), set()).add(module(target))
    for comp in loops(edges):
        breaches.append('include loop: ' + ' <-> '.join(comp))


def objects(build, files):
    """{source path: object path} of the daemon's and pfelf_static's objects."""
    want = {}
    for rel in files:
        if rel.endswith('.c'):
            root = rel.split('/')[0]
            inner = rel[len(root) + 1:]
            tdir = 'elffs.p' if root == 'fs' else 'libpfelf_static.a.p'
            obj = os.path.join(build, root, tdir,
                               inner.replace('/', '_') + '.o')
            want[rel] = obj
    return want


def public(sym):
    """A name of pfelf's public API (pfelf.h): pfelf_x, not pfelf__x."""
    return sym.startswith('pfelf_') and not sym.startswith('pfelf__')


def check_calls(build, files, breaches):
    objs = objects(build, files)
    defined, used = {}, {}
    for rel, obj in objs.items():
        if not os.path.exists(obj):
            breaches.append('%s: no object %s (build first)' % (rel, obj))
            continue
        out = subprocess.run(['nm', '-P', obj], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) < 2:
                continue
            sym, kind = f[0], f[1]
            if kind == 'U':
                used.setdefault(rel, set()).add(sym)
            elif kind in 'TDBRGSVW' and kind.isupper():
                defined.setdefault(sym, rel)
    edges = {}
    for rel, syms in used.items():
        for sym in sorted(syms):
            where = defined.get(sym)
            if where is None or where == rel:
                continue
            why = upward(rel, where)
            if why and rel.startswith('fs/') and public(sym):
                why = None  # pfelf's public API, whichever file defines it
            if why:
                breaches.append('%s uses %s of %s: %s' % (rel, sym, where, why))
            edges.setdefault(rel, set()).add(where)
    for comp in loops(edges):
        breaches.append('call loop: ' + ' <-> '.join(comp))


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != '--objects'):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    src = argv[1]
    files = sources(src)
    breaches = []
    check_includes(src, files, breaches)
    if len(argv) == 4:
        check_calls(argv[3], files, breaches)
    for b in breaches:
        print(b)
    print('%d files, %d breaches' % (len(files), len(breaches)))
    return 1 if breaches else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
