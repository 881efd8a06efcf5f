#!/usr/bin/python3
"""Go's tables of newer toolchains: go/ of real programs Go 1.20 to 1.26
built, through the mount.

usage: test_go_npm.py GO_FIXTURES_DIR

The machine's Go (1.19) builds the fixtures of test_go.py; the tables of
later toolchains come from esbuild, which publishes its Go programs
prebuilt as npm packages (`@esbuild/linux-*`). Each package below is
fetched from the npm registry as `npm pack` would fetch it, checked
against its pinned sha512 (the registry's `dist.integrity`), and kept in
the build directory (ELFFS_BUILD_ROOT/go-npm), so a second run needs no
network. Go 1.20 (amd64), Go 1.23 (s390x: big endian), Go 1.26.5
(amd64, 386 and arm: ELF32, arm64, s390x). Go 1.26 writes a textStart of
0: the text start comes from the module data (`.go.module`).

Each program goes through test_go.py's checks (both backends): go/functions
equal to the oracle's (Go 1.19's debug/gosym with the magic of 1.20+ read
as 1.18's, and the text start from `.text`, which is `runtime.text` in
these statically linked programs: a source independent of the module data
elffs reads), go/buildinfo equal to `go version -m` and absent where that
finds none (esbuild 0.28.2 has no build info), nm and addr2line on
go/debug, info's Go lines.

It skips (77) when the registry cannot be reached and no copy is kept, or
without the Go fixtures (no go tool).
"""

import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

from elffs_mount import Checker, require_fuse, run_mounted
from test_go import ENV, check_fixture

REGISTRY = "https://registry.npmjs.org/@esbuild"
# (package, version, dist.integrity, Go version, what it adds)
PACKAGES = [
    ("linux-x64", "0.19.12", "B71g1QpxfwBvNrfyJdVDexenDIt1CiDN1TIXLbhOw0KhJzE78KIFGX6OJ9MrtC0o"
     "OqMWf+0xop4qEU8JrJTwCg==", "go1.20.12"),
    ("linux-s390x", "0.24.2", "S0Bh0A53b0YHL2XEXC20bHLuGMOhFDO6GN4b3YjRLK//Ep3ql3erpNcPlEFed93h"
     "sQAjAQDNsvcK+hV90FubSw==", "go1.23.1"),
    ("linux-x64", "0.28.2", "4xTZr1FUmSoQW4XIWmit3tzQrUTZM+N3P0XV8xROKYF50XfI7xeO90+1bZvNwxIu"
     "fQ9hDQVRJH5YhgPVF8A/HQ==", None),
    ("linux-ia32", "0.28.2", "CYbnj78HsIeA+DhgUKgFCfvNsTHFhMMrinUrMZpDXJXKN8T3XViTZ/+wtHeVxEWY"
     "8ewSzTFN+nRmSwO2tZaLUQ==", None),
    ("linux-arm", "0.28.2", "XlDnu2q5yoqems+xay6wSAcg9DDD7K9RLKZEBOMZm3ckNpJBvOX20tSfby8Kfrrh"
     "INDyv9V2YVZKY/SpoGJI8w==", None),
    ("linux-arm64", "0.28.2", "pW4AC0P3it8c7do9MVM4p51FzHzdM/TZrerurgRcHJ2WTa1VQ1CIq18xncfpBJw4"
     "ojkiZZrKW2yIBWBP92j6Ug==", None),
    ("linux-s390x", "0.28.2", "3H1weTYZPxt/WOhByszQZybS9w5lKzUn1FDMsgEChbHWQwHYQQRfBxgCcZvPhjHf"
     "KyJjIievvMmEUawJrdY9Dg==", None),
]


def tarball(cache, pkg, version, integrity):
    """The package's tarball, from the cache or the registry, checked:
    bytes, or None when the registry cannot be reached."""
    path = os.path.join(cache, f"{pkg}-{version}.tgz")
    want = base64.b64decode(integrity)
    if os.path.exists(path):
        with open(path, "rb") as f:
            data = f.read()
        if hashlib.sha512(data).digest() == want:
            return data
    try:
        url = f"{REGISTRY}/{pkg}/-/{pkg}-{version}.tgz"
        with urllib.request.urlopen(url, timeout=60) as r:
            data = r.read()
    except OSError as e:
        print(f"npm registry: {pkg}@{version}: {e}")
        return None
    if hashlib.sha512(data).digest() != want:
        raise AssertionError(f"{pkg}@{version}: sha512 differs from the pinned integrity")
    os.makedirs(cache, exist_ok=True)
    with open(path + ".part", "wb") as f:
        f.write(data)
    os.replace(path + ".part", path)
    return data


def unpack(data, dst):
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as t:
        member = t.extractfile("package/bin/esbuild")
        with open(dst, "wb") as f:
            shutil.copyfileobj(member, f)
    os.chmod(dst, 0o755)


def oracle(fix, gofix, name):
    """NAME.funcs and NAME.gov in fix, as mkgo.py writes them for its
    fixtures (the twin is the program itself: its .text is its text)."""
    with open(os.path.join(fix, name + ".funcs"), "wb") as f:
        subprocess.run([os.path.join(fix, "oracle"), "funcs", name, name], cwd=fix, stdout=f,
                       check=True, timeout=300)
    p = subprocess.run(["go", "version", "-m", name], cwd=fix, env=ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False, timeout=120)
    with open(os.path.join(fix, name + ".gov"), "wb") as f:
        f.write(p.stdout)
    return p.stdout.split(b"\n", 1)[0]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    gofix = sys.argv[1]
    ck = Checker("test_go_npm")
    require_fuse()
    if not os.path.exists(os.path.join(gofix, "oracle")):
        print("SKIP: no Go fixtures (no go tool)")
        return 77
    cache = os.path.join(os.environ.get("ELFFS_BUILD_ROOT", "."), "go-npm")
    with tempfile.TemporaryDirectory(prefix="elffs-gonpm-") as fix:
        shutil.copy2(os.path.join(gofix, "oracle"), fix)  # test_go's checks run it there
        names = []
        for pkg, version, integrity, gover in PACKAGES:
            data = tarball(cache, pkg, version, integrity)
            if data is None:
                print("SKIP: the npm registry cannot be reached and no copy is kept")
                return 77
            name = f"esbuild-{pkg}-{version}"
            unpack(data, os.path.join(fix, name))
            first = oracle(fix, gofix, name)
            want = f"{name}: {gover}".encode() if gover else b""
            ck.eq(first, want, f"{name}: go version -m's first line")
            names.append(name)
        os.chmod(fix, 0o755)
        for backend, args in (("mmap", []), ("nommap", ["-o", "nommap"])):
            run_mounted(ck, fix, args, lambda m, backend=backend: [
                (check_fixture(ck, m.path, fix, n, n), ck.count(backend)) for n in names])
    ck.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
