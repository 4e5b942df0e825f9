#!/usr/bin/env python3
"""build_wheels.py --bins BINS --version V --out DIR: referee's wheels, one per platform.

BINS holds BINS/<goos>-<goarch>/referee[.exe], as release/packages.sh builds them. For each
platform found there, DIR gets referee-<V as PEP 440>-py3-none-<tag>.whl holding the binary
(installed as the `referee` script), the `referee` Python package (src/referee) and
`python -m referee`. The wheels are written by hand with zipfile (Binary distribution
format, wheel 1.0): every entry dated 1980-01-01, in a fixed order, so the same inputs give
the same bytes. Standard library only.
"""

import argparse
import base64
import csv
import hashlib
import importlib.util
import io
import os
import re
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.dirname(HERE)
SRC = os.path.join(SDK, "src", "referee")
DATE = (1980, 1, 1, 0, 0, 0)
NAME = "referee"
SUMMARY = "referee, the conformance test runner, with an adapter kit, run_conformance and pytest items"


def platforms():
    """The platform table of src/referee/_platforms.py, loaded by path (no package import)."""
    spec = importlib.util.spec_from_file_location("referee_platforms", os.path.join(SRC, "_platforms.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PLATFORMS


_SEMVER = re.compile(r"v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?")
_PRE = {"dev": ".dev", "alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc"}


def pep440(version):
    """A semver version as PEP 440: 0.1.0-dev → 0.1.0.dev0, 1.2.0-rc.1 → 1.2.0rc1, 1.0.0+g1 → 1.0.0+g1."""
    m = _SEMVER.fullmatch(version)
    if not m:
        raise ValueError("version %r is not semver (MAJOR.MINOR.PATCH[-PRE][+BUILD])" % version)
    out = "%s.%s.%s" % m.group(1, 2, 3)
    pre, build = m.group(4), m.group(5)
    if pre:
        parts = pre.split(".")
        kind = parts[0].lower()
        if kind not in _PRE or len(parts) > 2 or (len(parts) == 2 and not parts[1].isdigit()):
            raise ValueError("version %r: the pre-release %r has no PEP 440 form; use dev, alpha, beta "
                             "or rc, alone or followed by .N" % (version, pre))
        out += _PRE[kind] + str(int(parts[1]) if len(parts) == 2 else 0)
    if build:
        out += "+" + build.replace("-", ".").lower()
    return out


def _b64(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def package_files(version_pep440, version_semver):
    """The referee package's files as (path in the wheel, bytes), _version.py written for this version."""
    out = []
    for root, dirs, files in os.walk(SRC):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if not (f.endswith(".py") or f == "py.typed"):
                continue
            path = os.path.join(root, f)
            arc = "referee/" + os.path.relpath(path, SRC).replace(os.sep, "/")
            with open(path, "rb") as fh:
                data = fh.read()
            if arc == "referee/_version.py":
                data = ('"""This package\'s version, written by scripts/build_wheels.py."""\n\n'
                        '__version__ = %r  # PEP 440\nREFEREE_VERSION = %r  # the referee binary\'s own (semver) version\n'
                        % (version_pep440, version_semver)).encode("utf-8")
            out.append((arc, data))
    if not any(arc == "referee/__init__.py" for arc, _ in out):
        raise SystemExit("build_wheels: no referee package in %s" % SRC)
    return sorted(out)


def metadata(version_pep440):
    """The METADATA file (core metadata 2.1), with the SDK's README as its description."""
    with open(os.path.join(SDK, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    head = [
        "Metadata-Version: 2.1",
        "Name: " + NAME,
        "Version: " + version_pep440,
        "Summary: " + SUMMARY,
        "Home-page: https://github.com/refereehq/referee",
        "Requires-Python: >=3.9",
        "Classifier: Framework :: Pytest",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Topic :: Software Development :: Testing",
        "Description-Content-Type: text/markdown",
    ]
    return ("\n".join(head) + "\n\n" + readme).encode("utf-8")


def wheel_file(tag):
    """The WHEEL file: one Tag line per expanded tag (py3-none-<each platform tag>)."""
    lines = ["Wheel-Version: 1.0", "Generator: referee build_wheels.py", "Root-Is-Purelib: false"]
    lines += ["Tag: py3-none-" + t for t in tag.split(".")]
    return ("\n".join(lines) + "\n").encode("utf-8")


ENTRY_POINTS = b"[pytest11]\nreferee = referee.pytest\n"


def _entry(arc, mode):
    info = zipfile.ZipInfo(arc, DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, so that the mode below is read
    # pip marks a file executable only if its mode says regular file and has an x bit.
    info.external_attr = (0o100000 | mode) << 16
    return info


def build_wheel(key, binary, version_semver, out_dir):
    """Write the wheel of platform `key` (linux-amd64, ...) holding `binary`; return its path."""
    tag, exe = platforms()[key]
    version = pep440(version_semver)
    dist = "%s-%s" % (NAME, version)
    entries = [(arc, data, 0o644) for arc, data in package_files(version, version_semver)]
    with open(binary, "rb") as fh:
        entries.append(("%s.data/scripts/%s" % (dist, exe), fh.read(), 0o755))
    info = dist + ".dist-info/"
    entries.append((info + "METADATA", metadata(version), 0o644))
    entries.append((info + "WHEEL", wheel_file(tag), 0o644))
    entries.append((info + "entry_points.txt", ENTRY_POINTS, 0o644))
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arc, data, _ in entries:
        writer.writerow([arc, "sha256=" + _b64(hashlib.sha256(data).digest()), len(data)])
    writer.writerow([info + "RECORD", "", ""])
    entries.append((info + "RECORD", record.getvalue().encode("utf-8"), 0o644))

    name = "%s-py3-none-%s.whl" % (dist, tag)
    path = os.path.join(out_dir, name)
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as zf:
        for arc, data, mode in entries:
            zf.writestr(_entry(arc, mode), data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
    os.replace(tmp, path)
    return path


def find_binaries(bins):
    """{platform: binary path} for each BINS/<goos>-<goarch>; an unknown or empty directory is an error."""
    table = platforms()
    if not os.path.isdir(bins):
        raise SystemExit("build_wheels: --bins %s: no such directory" % bins)
    found = {}
    for d in sorted(os.listdir(bins)):
        if not os.path.isdir(os.path.join(bins, d)):
            continue
        if d not in table:
            raise SystemExit("build_wheels: %s: no wheel tag for platform %s (known: %s)"
                             % (os.path.join(bins, d), d, ", ".join(sorted(table))))
        binary = os.path.join(bins, d, table[d][1])
        if not os.path.isfile(binary):
            raise SystemExit("build_wheels: %s: no %s in it" % (os.path.join(bins, d), table[d][1]))
        found[d] = binary
    if not found:
        raise SystemExit("build_wheels: --bins %s holds no <goos>-<goarch>/referee[.exe]" % bins)
    return found


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bins", required=True, help="BINS/<goos>-<goarch>/referee[.exe], from release/packages.sh")
    p.add_argument("--version", required=True, help="referee's version, semver (0.1.0-dev)")
    p.add_argument("--out", required=True, help="the directory to write the wheels to")
    a = p.parse_args(argv)
    try:
        pep440(a.version)
    except ValueError as e:
        raise SystemExit("build_wheels: %s" % e)
    found = find_binaries(a.bins)
    os.makedirs(a.out, exist_ok=True)
    for key in sorted(found):
        path = build_wheel(key, found[key], a.version, a.out)
        print("wheel: %s (%d bytes)" % (path, os.path.getsize(path)))
    print("wheels: %d for referee %s (%s) in %s" % (len(found), a.version, pep440(a.version), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
