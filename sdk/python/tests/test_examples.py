"""Every file of examples/ runs, and does what the README says it does."""

import os
import subprocess
import sys

import referee
from conftest import EXAMPLES


def test_install_example(wheel, tmp_path):
    # Debian's python3 (PATH without pyenv's), in a scratch directory: a new .venv.
    env = dict(os.environ, PATH="/usr/bin:/bin", PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run(["sh", str(EXAMPLES / "install.sh"), str(wheel)], cwd=tmp_path, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines.count("referee " + referee.REFEREE_VERSION) == 2, proc.stdout
    assert (tmp_path / ".venv" / "bin" / "referee").is_file()


def test_run_conformance_example(referee_bin, jcs_ids, jcs_hex_ids, tmp_path):
    proc = subprocess.run([sys.executable, str(EXAMPLES / "run_jcs.py")], cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    # It offers canonicalJson only: the checks of input that is not UTF-8 are not checked.
    assert sorted(lines[:-2]) == sorted("NOT CHECKED " + i for i in jcs_hex_ids)
    assert lines[-2:] == ["%d passed, 0 failed, %d not checked, 0 errors" % (len(jcs_ids) - len(jcs_hex_ids), len(jcs_hex_ids)),
                          "CONFORMANT"]


def test_pytest_example(pytester, referee_bin, jcs_ids):
    result = pytester.runpytest_subprocess(str(EXAMPLES / "test_jcs.py"), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2 * len(jcs_ids))


def test_readme_shows_the_examples_as_they_are():
    import re
    from conftest import SDK
    readme = (SDK / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```\n", readme, re.S)
    assert sorted(name for name, _ in blocks) == sorted("examples/" + f for f in os.listdir(EXAMPLES)
                                                         if not f.startswith((".", "__")))
    for name, text in blocks:
        assert text == (SDK / name).read_text(encoding="utf-8"), name
