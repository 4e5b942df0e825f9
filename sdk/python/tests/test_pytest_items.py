"""referee.pytest.conformance_tests: one pytest item per check, run in pytest subprocesses.

Each test writes a test module, runs pytest on it in a child process of this venv's Python
(the installed wheel, its pytest11 entry point included) and checks the predicted outcome
of every item.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

import naive_jcs
from conftest import EXAMPLES, TESTS, write_script


@pytest.fixture
def inner(pytester, monkeypatch):
    """pytester, with the tests' and examples' helper modules importable in the child pytest."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), str(EXAMPLES)]))
    monkeypatch.delenv("REFEREE_BIN", raising=False)
    return pytester


def items(result, outcome, name):
    """The check IDs of the items `-rA` reports with this outcome (PASSED, FAILED, SKIPPED)."""
    pattern = re.compile(r"^%s \S+::%s\[(.+?)\]" % (outcome, re.escape(name)))
    return {m.group(1) for m in map(pattern.match, result.outlines) if m}


def test_honest_command_items(inner, referee_bin, jcs_ids):
    inner.makepyfile(test_honest="""
        from referee.pytest import conformance_tests
        test_jcs = conformance_tests("jcs", [%r, "serve", "jcs"])
    """ % referee_bin)
    result = inner.runpytest_subprocess("-rA")
    result.assert_outcomes(passed=len(jcs_ids))
    assert items(result, "PASSED", "test_jcs") == set(jcs_ids)


def test_naive_mapping_items(inner, referee_bin, jcs_ids, jcs_hex_ids):
    inner.makepyfile(test_naive="""
        import naive_jcs
        from referee.pytest import conformance_tests
        test_naive = conformance_tests("jcs", {"canonicalJson": naive_jcs.naive})
    """)
    result = inner.runpytest_subprocess("-rA")
    fails, warns = naive_jcs.FAILS, naive_jcs.WARNS
    # A failed should check passes, with a warning; a not-checked one is skipped.
    result.assert_outcomes(passed=len(jcs_ids) - len(fails) - len(jcs_hex_ids), failed=len(fails),
                           skipped=len(jcs_hex_ids), warnings=len(warns))
    assert items(result, "FAILED", "test_naive") == fails
    assert items(result, "PASSED", "test_naive") == set(jcs_ids) - fails - jcs_hex_ids
    skipped = [line for line in result.outlines if line.startswith("SKIPPED")]
    assert skipped and all("canonicalJsonBytes, which the adapter does not offer" in s for s in skipped)
    # The failure of jcs/numbers/million shows the text report's evidence.
    text = result.stdout.str()
    block = text[text.index("_ test_naive[jcs/numbers/million] _"):]
    block = block[:block.index("\n_")]
    for want in ("FAIL jcs/numbers/million (must): canonical text differs at byte 8",
                 "expected: [1000000]", "actual:   [1000000.0]",
                 "expected @0: 5b 31 30 30 30 30 30 30 5d", "actual   @0: 5b 31 30 30 30 30 30 30 2e 30 5d",
                 'sent:     {"id":', '"value_text":"[1e6]"', 'received: {"id":', '"ok":"[1000000.0]"}',
                 "repro: run_conformance('jcs', ops, run='jcs/numbers/million')"):
        assert want in block, (want, block)
    assert "Traceback" not in block and "conformance.py" not in block
    for check in sorted(warns):
        assert "RefereeWarning: WARN %s (should): accepted duplicate member names" % check in text


def test_one_run_per_call_and_selection(inner, referee_bin, tmp_path, monkeypatch):
    # REFEREE_BIN is a wrapper that logs each invocation: referee must run once per
    # pytest session (at collection), not once per item, and -k and --lf must select items.
    log = tmp_path / "calls.log"
    wrapper = write_script(tmp_path / "referee", '#!/bin/sh\necho "$1 $2" >> %s\nexec %s "$@"\n' % (log, referee_bin))
    monkeypatch.setenv("REFEREE_BIN", wrapper)
    inner.makepyfile(test_sel="""
        import naive_jcs
        from referee.pytest import conformance_tests
        test_naive = conformance_tests("jcs", {"canonicalJson": naive_jcs.naive})
    """)
    first = inner.runpytest_subprocess()
    first.assert_outcomes(failed=79, passed=465, skipped=22, warnings=3)
    again = inner.runpytest_subprocess("--lf", "-rA")
    again.assert_outcomes(failed=79)  # and nothing else ran
    assert items(again, "FAILED", "test_naive") == naive_jcs.FAILS
    one = inner.runpytest_subprocess("-k", "jcs/keys/utf16-vs-codepoint or jcs/keys/ascii", "-rA")
    one.assert_outcomes(failed=1, passed=1, deselected=564)
    marked = inner.runpytest_subprocess("-m", "not referee")
    marked.assert_outcomes(deselected=566)
    assert log.read_text().splitlines() == ["run jcs"] * 4


BROKEN = """
import time
from referee.pytest import conformance_tests

def five(args):
    return 5  # a number where the canonical text, a string, is due

def boom(args):
    raise ValueError("boom")

def hang(args):
    time.sleep(20)  # longer than the per-call timeout; the thread is a daemon

def unordered(args):
    return {1, 2}  # no JSON form at all

MILLION = dict(run="jcs/numbers/million")
test_five = conformance_tests("jcs", {"canonicalJson": five}, **MILLION)
test_boom = conformance_tests("jcs", {"canonicalJson": boom}, **MILLION)
test_hang = conformance_tests("jcs", {"canonicalJson": hang}, timeout=0.4, **MILLION)
test_unordered = conformance_tests("jcs", {"canonicalJson": unordered}, **MILLION)

def test_still_runs():
    pass
"""


def test_broken_ops_fail_their_items(inner, referee_bin):
    inner.makepyfile(test_broken=BROKEN)
    result = inner.runpytest_subprocess("-rA")
    result.assert_outcomes(failed=4, passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    for want in ("FAIL jcs/numbers/million (must): ok is number, not the canonical text",
                 'received: {"id":1,"ok":5}',
                 "FAIL jcs/numbers/million (must): rejected a valid input",
                 "ValueError: boom",
                 "ERROR jcs/numbers/million (must): adapter timeout",
                 "ERROR jcs/numbers/million (must): adapter bad-line: reply body is not a valid reply",
                 "op canonicalJson returned set, which is not JSON"):
        assert want in text, want
    assert "Traceback" not in text


def test_strict_fails_warnings_and_not_checked(inner, referee_bin):
    inner.makepyfile(test_strict="""
        import naive_jcs
        from referee.pytest import conformance_tests
        test_strict = conformance_tests("jcs", {"canonicalJson": naive_jcs.naive}, strict=True,
                                        run=["jcs/rejects/duplicate-key*", "jcs/utf8/byte-fe", "jcs/keys/ascii"])
    """)
    result = inner.runpytest_subprocess("-rA")
    result.assert_outcomes(failed=4, passed=1)
    assert items(result, "PASSED", "test_strict") == {"jcs/keys/ascii"}


def test_missing_referee_bin_fails_one_item(inner, referee_bin, tmp_path, monkeypatch):
    inner.makepyfile(test_missing="""
        from referee.pytest import conformance_tests
        test_jcs = conformance_tests("jcs", ["unused"])

        def test_other():
            pass
    """)
    monkeypatch.setenv("REFEREE_BIN", str(tmp_path / "no-referee-here"))
    result = inner.runpytest_subprocess("-rA")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*_ test_jcs[[]jcs[]] _*", "RefereeNotFound: REFEREE_BIN is set to *no-referee-here*"])
    assert "Traceback" not in result.stdout.str()


def test_no_binary_names_the_platform(installed, tmp_path):
    # The package without its wheel's binary, on a PATH without referee, seen by Debian's
    # own Python and pytest: conformance_tests fails one item naming the platform and
    # what to install.
    lib = tmp_path / "lib"
    shutil.copytree(installed, lib / "referee")
    path = "/usr/bin:/bin"
    system_scripts = subprocess.run(["/usr/bin/python3", "-c", "import sysconfig; print(sysconfig.get_path('scripts'))"],
                                    stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    assert shutil.which("referee", path=path + ":" + system_scripts) is None, "a referee is installed system-wide"
    (tmp_path / "test_nobin.py").write_text(
        "from referee.pytest import conformance_tests\n"
        "test_jcs = conformance_tests('jcs', ['unused'])\n")
    env = {"PATH": path, "PYTHONPATH": str(lib), "HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(["/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider", "-rA", "test_nobin.py"],
                          cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout
    want = {"linux": "linux", "darwin": "darwin"}[sys.platform] + "-" + {"x86_64": "amd64", "aarch64": "arm64"}[os.uname().machine]
    assert "RefereeNotFound: no referee binary for this platform, %s" % want in proc.stdout
    assert "REFEREE_BIN" in proc.stdout and "pip install --no-index referee-" in proc.stdout
    assert "Traceback" not in proc.stdout
