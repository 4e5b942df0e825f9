"""Shared fixtures: the installed wheel, its binary, the jcs corpus, scratch adapters.

scripts/test.sh runs these tests with a venv's Python into which it installed the wheel
(REFEREE_SDK_WHEEL names it), so `import referee` is the installed package, not src/.
"""

import json
import os
import stat
import sys
from pathlib import Path

import pytest

import referee

TESTS = Path(__file__).resolve().parent
SDK = TESTS.parent
REPO = SDK.parent.parent
EXAMPLES = SDK / "examples"
sys.path.insert(0, str(EXAMPLES))  # jcs_adapter, the honest JCS


@pytest.fixture(scope="session")
def wheel():
    """The wheel file scripts/test.sh installed into this venv."""
    path = os.environ.get("REFEREE_SDK_WHEEL")
    if not path:
        pytest.fail("REFEREE_SDK_WHEEL is not set: run sdk/python/scripts/test.sh OUTDIR", pytrace=False)
    return Path(path)


@pytest.fixture(scope="session")
def installed(wheel):
    """The referee package is the one installed from the wheel, in this interpreter's prefix."""
    pkg = Path(referee.__file__).resolve().parent
    assert Path(sys.prefix).resolve() in pkg.parents, "referee imported from %s, not from the venv %s" % (pkg, sys.prefix)
    assert SDK not in pkg.parents, "referee imported from the source tree %s" % pkg
    return pkg


@pytest.fixture(scope="session")
def referee_bin(installed):
    """The binary the installed package finds: the wheel's, in the venv's scripts directory."""
    path = referee.find_referee()
    assert Path(path).resolve().parent == Path(sys.prefix).resolve() / "bin", path
    return path


@pytest.fixture(scope="session")
def jcs_vectors():
    """The embedded jcs corpus's vectors, read from the repository (the oracle, not referee)."""
    with open(REPO / "suites" / "jcs" / "corpus" / "vectors.json", encoding="utf-8") as f:
        return json.load(f)["vectors"]


@pytest.fixture(scope="session")
def jcs_ids(jcs_vectors):
    """Every jcs check ID, in corpus order."""
    return ["jcs/" + v["name"] for v in jcs_vectors]


@pytest.fixture(scope="session")
def jcs_hex_ids(jcs_vectors):
    """The jcs checks whose input is not UTF-8, which travel to canonicalJsonBytes."""
    return {"jcs/" + v["name"] for v in jcs_vectors if "input_hex" in v}


def write_script(path, text):
    """Write an executable script and return its path as a string."""
    path = Path(path)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)
