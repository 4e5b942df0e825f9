"""scripts/build_wheels.py, and the wheel scripts/test.sh installed: binary, scripts, lookup."""

import base64
import csv
import hashlib
import importlib.util
import io
import os
import shutil
import stat
import subprocess
import sys
import zipfile

import pytest

import referee
from conftest import SDK, write_script

spec = importlib.util.spec_from_file_location("build_wheels", SDK / "scripts" / "build_wheels.py")
build_wheels = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_wheels)


@pytest.mark.parametrize("semver, want", [
    ("0.1.0-dev", "0.1.0.dev0"),
    ("1.2.3", "1.2.3"),
    ("v1.2.3", "1.2.3"),
    ("1.0.0-dev.7", "1.0.0.dev7"),
    ("1.0.0-alpha", "1.0.0a0"),
    ("1.0.0-alpha.2", "1.0.0a2"),
    ("1.0.0-beta.3", "1.0.0b3"),
    ("1.2.0-rc.1", "1.2.0rc1"),
    ("1.0.0+g1a2b3c", "1.0.0+g1a2b3c"),
    ("1.0.0-rc.1+build-5", "1.0.0rc1+build.5"),
])
def test_pep440(semver, want):
    assert build_wheels.pep440(semver) == want


@pytest.mark.parametrize("semver", ["1.0", "01.0.0", "1.0.0-foo", "1.0.0-rc.x", "1.0.0-rc.1.2", "latest"])
def test_pep440_refuses(semver):
    with pytest.raises(ValueError, match="semver|PEP 440"):
        build_wheels.pep440(semver)


# The six wheels of release/packages.sh's six targets, named by hand from PEP 427, 600 and 656.
WHEELS = {
    "linux-amd64": "referee-1.2.0rc1-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64.whl",
    "linux-arm64": "referee-1.2.0rc1-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl",
    "darwin-amd64": "referee-1.2.0rc1-py3-none-macosx_12_0_x86_64.whl",
    "darwin-arm64": "referee-1.2.0rc1-py3-none-macosx_12_0_arm64.whl",
    "windows-amd64": "referee-1.2.0rc1-py3-none-win_amd64.whl",
    "windows-arm64": "referee-1.2.0rc1-py3-none-win_arm64.whl",
}
TAGS = {
    "linux-amd64": ["py3-none-manylinux_2_17_x86_64", "py3-none-manylinux2014_x86_64", "py3-none-musllinux_1_1_x86_64"],
    "linux-arm64": ["py3-none-manylinux_2_17_aarch64", "py3-none-manylinux2014_aarch64", "py3-none-musllinux_1_1_aarch64"],
    "darwin-amd64": ["py3-none-macosx_12_0_x86_64"],
    "darwin-arm64": ["py3-none-macosx_12_0_arm64"],
    "windows-amd64": ["py3-none-win_amd64"],
    "windows-arm64": ["py3-none-win_arm64"],
}


@pytest.fixture
def fake_bins(tmp_path):
    """BINS as release/packages.sh lays it out, each 'binary' a distinct few bytes."""
    bins = tmp_path / "bins"
    for key in WHEELS:
        exe = "referee.exe" if key.startswith("windows") else "referee"
        (bins / key).mkdir(parents=True)
        (bins / key / exe).write_bytes(b"binary of " + key.encode() * 100)
    return bins


def build(bins, out, version="1.2.0-rc.1"):
    args = ["--bins", str(bins), "--version", version, "--out", str(out)]
    proc = subprocess.run([sys.executable, str(SDK / "scripts" / "build_wheels.py")] + args,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc


def test_one_wheel_per_platform(fake_bins, tmp_path):
    out = tmp_path / "out"
    proc = build(fake_bins, out)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == sorted(WHEELS.values())
    assert proc.stdout.splitlines()[-1] == "wheels: 6 for referee 1.2.0-rc.1 (1.2.0rc1) in %s" % out
    for key, name in WHEELS.items():
        exe = "referee.exe" if key.startswith("windows") else "referee"
        with zipfile.ZipFile(out / name) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            dist = "referee-1.2.0rc1"
            script = infos[dist + ".data/scripts/" + exe]
            assert zf.read(script) == b"binary of " + key.encode() * 100
            assert script.external_attr >> 16 == 0o100755  # a regular file with x bits: pip makes it executable
            assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in infos.values())
            assert {"referee/__init__.py", "referee/__main__.py", "referee/pytest.py", "referee/_version.py"} <= set(infos)
            assert "__pycache__" not in " ".join(infos)
            version = zf.read("referee/_version.py").decode()
            assert "__version__ = '1.2.0rc1'" in version and "REFEREE_VERSION = '1.2.0-rc.1'" in version
            wheel = zf.read(dist + ".dist-info/WHEEL").decode().splitlines()
            assert "Wheel-Version: 1.0" in wheel and "Root-Is-Purelib: false" in wheel
            assert [line[len("Tag: "):] for line in wheel if line.startswith("Tag: ")] == TAGS[key]
            meta = zf.read(dist + ".dist-info/METADATA").decode().splitlines()
            assert meta[:3] == ["Metadata-Version: 2.1", "Name: referee", "Version: 1.2.0rc1"]
            assert "Requires-Python: >=3.9" in meta
            assert zf.read(dist + ".dist-info/entry_points.txt") == b"[pytest11]\nreferee = referee.pytest\n"
            # RECORD lists every other file once, with its urlsafe-base64 sha256 (no padding)
            # and size, and itself last with neither.
            rows = list(csv.reader(io.StringIO(zf.read(dist + ".dist-info/RECORD").decode())))
            assert rows[-1] == [dist + ".dist-info/RECORD", "", ""]
            assert [r[0] for r in rows] == [i.filename for i in zf.infolist()]
            for path, digest, size in rows[:-1]:
                data = zf.read(path)
                want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
                assert (digest, int(size)) == ("sha256=" + want, len(data)), path
            assert zf.infolist()[-1].filename == dist + ".dist-info/RECORD"


def test_same_inputs_same_bytes(fake_bins, tmp_path):
    assert build(fake_bins, tmp_path / "a").returncode == 0
    assert build(fake_bins, tmp_path / "b").returncode == 0
    for name in WHEELS.values():
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_builds_what_there_is(fake_bins, tmp_path):
    for key in list(WHEELS)[1:]:
        shutil.rmtree(fake_bins / key)
    proc = build(fake_bins, tmp_path / "out", "0.1.0-dev")
    assert proc.returncode == 0, proc.stderr
    assert os.listdir(tmp_path / "out") == [WHEELS["linux-amd64"].replace("1.2.0rc1", "0.1.0.dev0")]


def test_refusals(fake_bins, tmp_path):
    assert "is not semver" in build(fake_bins, tmp_path / "o", "1.0").stderr
    (fake_bins / "plan9-amd64").mkdir()
    assert "no wheel tag for platform plan9-amd64" in build(fake_bins, tmp_path / "o").stderr
    shutil.rmtree(fake_bins / "plan9-amd64")
    (fake_bins / "darwin-arm64" / "referee").unlink()
    proc = build(fake_bins, tmp_path / "o")
    assert proc.returncode != 0 and "darwin-arm64: no referee in it" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "holds no <goos>-<goarch>/referee[.exe]" in build(empty, tmp_path / "o").stderr
    assert not (tmp_path / "o").exists()


# The installed wheel (scripts/test.sh installed it into this venv with pip --no-index).

def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120, **kw)


def test_installed_binary_and_module(installed, referee_bin, wheel):
    assert wheel.name.startswith("referee-%s-py3-none-" % referee.__version__)
    mode = os.stat(referee_bin).st_mode
    assert stat.S_ISREG(mode) and mode & 0o111 == 0o111
    want = "referee " + referee.REFEREE_VERSION
    direct = run([referee_bin, "version"])
    assert direct.returncode == 0 and direct.stdout.splitlines()[0] == want
    module = run([sys.executable, "-m", "referee", "version"])
    assert module.returncode == 0 and module.stdout == direct.stdout
    # The binary's exit status comes through python -m referee.
    assert run([sys.executable, "-m", "referee", "run", "jcs", "--no-such-flag"]).returncode == 2
    assert run([sys.executable, "-m", "referee", "run", "jcs", "--mode", "go-float", "-q"]).returncode == 1
    assert run([sys.executable, "-m", "referee", "run", "jcs", "--run", "jcs/keys", "-q"]).returncode == 0


@pytest.fixture(scope="module")
def target_install(wheel, tmp_path_factory):
    """The wheel installed once with pip install --target, which puts the binary in TARGET/bin."""
    t = tmp_path_factory.mktemp("target") / "target"
    proc = run([sys.executable, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q",
                "--target", str(t), str(wheel)])
    assert proc.returncode == 0, proc.stderr
    return t


@pytest.fixture
def target(target_install, tmp_path):
    """A copy of the --target install, for a test to change."""
    t = tmp_path / "target"
    shutil.copytree(target_install, t, symlinks=True)
    return t


def foreign_env(target, tmp_path, **extra):
    """Debian's Python, seeing only TARGET, with no referee on PATH."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(target), "HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(extra)
    return env


def test_target_install_is_found(target, tmp_path):
    exe = target / "bin" / "referee"
    assert exe.stat().st_mode & 0o111 == 0o111
    env = foreign_env(target, tmp_path)
    found = run(["/usr/bin/python3", "-c", "import referee; print(referee.find_referee())"], env=env)
    assert found.stdout.strip() == str(exe), found.stderr
    out = run(["/usr/bin/python3", "-m", "referee", "version"], env=env)
    assert out.returncode == 0 and out.stdout.startswith("referee " + referee.REFEREE_VERSION + "\n")


def test_missing_binary_names_the_platform(target, tmp_path):
    (target / "bin" / "referee").unlink()
    out = run(["/usr/bin/python3", "-m", "referee", "version"], env=foreign_env(target, tmp_path))
    assert out.returncode == 2 and out.stdout == ""
    assert "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    plat = {"x86_64": "linux-amd64", "aarch64": "linux-arm64"}[os.uname().machine]
    assert lines[0].startswith("referee: no referee binary for this platform, %s (Python 3." % plat)
    assert str(target / "bin" / "referee") in out.stderr  # where it looked
    tag = {"linux-amd64": "manylinux_2_17_x86_64", "linux-arm64": "manylinux_2_17_aarch64"}[plat]
    assert "pip install --no-index referee-%s-py3-none-%s" % (referee.__version__, tag) in lines[-1]
    assert "REFEREE_BIN" in lines[-1]


def test_referee_bin_first(target, tmp_path):
    fake = write_script(tmp_path / "fake", "#!/bin/sh\necho fake referee \"$@\"\nexit 4\n")
    out = run(["/usr/bin/python3", "-m", "referee", "version"], env=foreign_env(target, tmp_path, REFEREE_BIN=fake))
    assert (out.returncode, out.stdout) == (4, "fake referee version\n")
    missing = str(tmp_path / "missing")
    out = run(["/usr/bin/python3", "-m", "referee", "version"], env=foreign_env(target, tmp_path, REFEREE_BIN=missing))
    assert out.returncode == 2
    assert out.stderr.startswith("referee: REFEREE_BIN is set to %r, but there is no file there" % missing)


def test_path_last(target, tmp_path):
    (target / "bin" / "referee").unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write_script(elsewhere / "referee", "#!/bin/sh\necho referee from PATH\n")
    env = foreign_env(target, tmp_path, PATH="%s:/usr/bin:/bin" % elsewhere)
    out = run(["/usr/bin/python3", "-m", "referee", "version"], env=env)
    assert out.stdout == "referee from PATH\n"


def test_sources_are_python_3_9(installed):
    # The wheel says Requires-Python >=3.9: no syntax of a later Python in what it ships,
    # nor in the examples (ast's feature_version check, best effort: grammar, not library).
    import ast
    from conftest import EXAMPLES
    files = sorted(installed.glob("*.py")) + sorted(EXAMPLES.glob("*.py"))
    assert len(files) >= 10
    for f in files:
        ast.parse(f.read_text(encoding="utf-8"), filename=str(f), feature_version=(3, 9))


def test_pip_picks_each_platform_by_its_tags(fake_bins, tmp_path):
    # pip itself, told each platform tag, picks the wheel of that platform out of the six
    # (pip install --platform needs --target and --only-binary).
    out = tmp_path / "out"
    assert build(fake_bins, out).returncode == 0
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    # Each platform's first tag, and the musl tag of one Linux wheel (a pip run takes seconds).
    picks = [(key, tags[0]) for key, tags in TAGS.items()] + [("linux-arm64", TAGS["linux-arm64"][2])]
    for key, tag in picks:
        target = tmp_path / ("t-" + tag)
        proc = run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--find-links", str(out),
                    "--target", str(target), "--only-binary=:all:", "--platform", tag[len("py3-none-"):],
                    "referee"], env=env)
        assert proc.returncode == 0, (tag, proc.stderr)
        exe = "referee.exe" if key.startswith("windows") else "referee"
        assert (target / "bin" / exe).read_bytes() == b"binary of " + key.encode() * 100, tag
    # and none for a platform it was not built for: macOS 11 is older than Go 1.26 supports
    proc = run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--find-links", str(out),
                "--target", str(tmp_path / "t-old"), "--only-binary=:all:", "--platform", "macosx_11_0_arm64",
                "referee"], env=env)
    assert proc.returncode != 0 and "No matching distribution" in proc.stderr
