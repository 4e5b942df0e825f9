"""referee.run_conformance against honest, naive and broken JCS implementations."""

import json
import sys
import threading

import pytest

import jcs_adapter
import naive_jcs
import referee
from conftest import TESTS, write_script


def statuses(report):
    return {c.id: c.status for c in report.checks}


def test_honest_command(referee_bin, jcs_ids):
    # referee's own reference JCS, as a stdio adapter.
    report = referee.run_conformance("jcs", [referee_bin, "serve", "jcs"])
    assert report.conformant and report.complete
    assert report.exit_code == 0
    assert [c.id for c in report.checks] == jcs_ids
    assert report.counts == {"pass": len(jcs_ids), "fail": 0, "warn": 0, "not_checked": 0, "error": 0}
    assert report.failures == [] and report.warnings == [] and report.not_checked == []
    assert report.implementation["transport"] == "stdio"
    assert report.raw["format"] == "referee-report/2"


def test_honest_mapping(referee_bin, jcs_ids):
    # The example's JCS, written from RFC 8785, served in process over loopback HTTP.
    report = referee.run_conformance("jcs", jcs_adapter.OPS, name="honest", version="1")
    assert report.implementation["transport"] == "http"
    assert report.implementation["name"] == "honest"
    assert {c.status for c in report.checks} == {"pass"}, [c for c in report.checks if not c.passed][:3]
    assert len(report.checks) == len(jcs_ids)
    assert report.conformant and report.exit_code == 0


def check_naive(report, jcs_ids, jcs_hex_ids):
    got = statuses(report)
    fails = {i for i, s in got.items() if s == "fail" and report.check(i).level != "should"}
    warns = {c.id for c in report.warnings}
    assert fails == naive_jcs.FAILS, ("unpredicted", sorted(fails - naive_jcs.FAILS), "missed", sorted(naive_jcs.FAILS - fails))
    assert warns == naive_jcs.WARNS
    assert {i for i, s in got.items() if s == "not-checked"} == jcs_hex_ids
    assert {i for i, s in got.items() if s == "pass"} == set(jcs_ids) - naive_jcs.FAILS - naive_jcs.WARNS - jcs_hex_ids
    assert {c.id for c in report.failures} == naive_jcs.FAILS
    assert not report.conformant and report.complete and report.exit_code == 1
    million = report.check("jcs/numbers/million")
    assert (million.expected, million.actual) == ("[1000000]", "[1000000.0]")
    assert million.reason.startswith("canonical text differs at byte 8")
    text = million.text()
    assert "expected @0: 5b 31 30 30 30 30 30 30 5d" in text
    assert "sent:" in text and "received:" in text
    assert million.repro.startswith(("run_conformance('jcs', ops, run='jcs/numbers/million')",  # in process
                                     "printf '%s\\n'"))  # a command: the lines it was sent, piped to it
    for c in report.not_checked:
        assert "canonicalJsonBytes" in c.reason


def test_naive_mapping(referee_bin, jcs_ids, jcs_hex_ids):
    report = referee.run_conformance("jcs", {"canonicalJson": naive_jcs.naive})
    check_naive(report, jcs_ids, jcs_hex_ids)


def test_naive_command(referee_bin, jcs_ids, jcs_hex_ids):
    report = referee.run_conformance("jcs", [sys.executable, str(TESTS / "naive_jcs.py")])
    assert report.implementation["transport"] == "stdio"
    check_naive(report, jcs_ids, jcs_hex_ids)


def test_missing_op_is_not_checked(referee_bin, jcs_hex_ids):
    ops = {"canonicalJson": jcs_adapter.OPS["canonicalJson"], "canonicalJsonBytes": None}
    report = referee.run_conformance("jcs", ops)
    assert report.implementation["ops"] == ["canonicalJson"]
    assert {c.id for c in report.not_checked} == jcs_hex_ids
    # docs/suites/jcs.md: "... it travels as value_hex to canonicalJsonBytes, which the
    # adapter does not offer".
    assert all("canonicalJsonBytes, which the adapter does not offer" in c.reason for c in report.not_checked)
    assert report.failures == [] and report.exit_code == 0 and report.conformant


def test_no_ops_checks_nothing(referee_bin, jcs_ids):
    report = referee.run_conformance("jcs", {})
    assert report.counts["not_checked"] == len(jcs_ids)
    assert report.exit_code == 1 and not report.conformant  # nothing passed


def test_wrong_type_of_ok_is_a_failure(referee_bin):
    report = referee.run_conformance("jcs", {"canonicalJson": lambda args: 5}, run="jcs/numbers/million")
    (c,) = report.checks
    assert c.status == "fail" and c.level == "must"
    assert "not the canonical text" in c.reason
    assert c.evidence["exchanges"][0]["reply"].endswith('"ok":5}')


def boom(args):
    raise ValueError("boom at %s" % args["value_text"])


def test_raising_is_a_rejection(referee_bin):
    report = referee.run_conformance("jcs", {"canonicalJson": boom},
                                     run=["jcs/numbers/million", "jcs/rejects/overflow"])
    got = statuses(report)
    # An exception answers err: a valid input rejected fails; an input to reject passes.
    assert got == {"jcs/numbers/million": "fail", "jcs/rejects/overflow": "pass"}
    million = report.check("jcs/numbers/million")
    assert million.reason.startswith("rejected a valid input")
    assert "ValueError: boom at [1e6]" in million.actual


class Coded(Exception):
    code = "my_code"


def test_error_code_reaches_the_report(referee_bin):
    def coded(args):
        raise Coded("no")
    report = referee.run_conformance("jcs", {"canonicalJson": coded}, run="jcs/numbers/million")
    assert report.checks[0].actual.startswith("err my_code: ")


def test_hanging_op_is_an_error(referee_bin):
    release = threading.Event()

    def sometimes_hangs(args):
        if args["value_text"] == "[1e6]":
            release.wait(60)
        return jcs_adapter.OPS["canonicalJson"](args)

    try:
        report = referee.run_conformance("jcs", {"canonicalJson": sometimes_hangs}, timeout=0.3,
                                         run=["jcs/numbers/exponent-integer", "jcs/numbers/million",
                                              "jcs/numbers/1e20"])
    finally:
        release.set()
    got = statuses(report)
    assert got == {"jcs/numbers/exponent-integer": "pass", "jcs/numbers/million": "error", "jcs/numbers/1e20": "pass"}
    million = report.check("jcs/numbers/million")
    assert "timeout" in million.reason and "300ms" in million.reason
    assert "sent:" in million.text()
    assert report.exit_code == 1 and report.complete


def test_unserialisable_ok_is_an_adapter_fault(referee_bin):
    report = referee.run_conformance("jcs", {"canonicalJson": lambda args: {1, 2}},
                                     run=["jcs/numbers/million", "jcs/rejects/overflow"])
    # Not an err (which would pass a must-reject check): a fault, an error, for both.
    assert statuses(report) == {"jcs/numbers/million": "error", "jcs/rejects/overflow": "error"}
    assert "returned set, which is not JSON" in report.check("jcs/rejects/overflow").text()


def test_env_and_cwd_reach_the_command(referee_bin, tmp_path):
    script = tmp_path / "answer.py"
    script.write_text(
        "import os\nfrom referee import serve_adapter\n"
        "serve_adapter({'canonicalJson': lambda a: os.environ['ANSWER'] + open('extra').read()})\n")
    (tmp_path / "extra").write_text("")
    cmd = [sys.executable, "answer.py"]
    ok = referee.run_conformance("jcs", cmd, env={"ANSWER": "[1000000]"}, cwd=tmp_path, run="jcs/numbers/million")
    assert ok.checks[0].status == "pass"
    wrong = referee.run_conformance("jcs", cmd, env={"ANSWER": "[1e6]"}, cwd=tmp_path, run="jcs/numbers/million")
    assert wrong.checks[0].status == "fail"


def test_skip_and_strict(referee_bin):
    naive = {"canonicalJson": naive_jcs.naive}
    lax = referee.run_conformance("jcs", naive, run="jcs/rejects", skip="jcs/rejects/lone-*")
    assert {c.id for c in lax.checks} == {
        "jcs/rejects/duplicate-key", "jcs/rejects/duplicate-key-nested", "jcs/rejects/duplicate-key-escaped",
        "jcs/rejects/reversed-pair", "jcs/rejects/overflow", "jcs/rejects/overflow-negative",
        "jcs/rejects/overflow-just-above-max"}
    # Warnings (and a pass: a run with none is not conformant) exit 0, unless strict.
    selection = ["jcs/rejects/duplicate-key*", "jcs/keys/ascii"]
    warnings_only = referee.run_conformance("jcs", naive, run=selection)
    assert warnings_only.conformant and warnings_only.exit_code == 0 and len(warnings_only.warnings) == 3
    strict = referee.run_conformance("jcs", naive, run=selection, strict=True)
    assert strict.strict and not strict.conformant and strict.exit_code == 1


def test_corpus_option(referee_bin, tmp_path):
    # A two-vector corpus: 1E3 must be written 1000 (the naive JCS writes 1000.0).
    (tmp_path / "vectors.json").write_text(json.dumps({"format": "referee-jcs/1", "vectors": [
        {"name": "mine/exponent", "doc": "1E3 is 1000", "input": "[1E3]", "output": "[1000]"},
        {"name": "mine/string", "doc": "a string", "input": "[\"a\"]", "output": "[\"a\"]"},
    ]}))
    report = referee.run_conformance("jcs", {"canonicalJson": naive_jcs.naive}, corpus=tmp_path)
    assert statuses(report) == {"jcs/mine/exponent": "fail", "jcs/mine/string": "pass"}
    assert report.suite["corpus"] == str(tmp_path)


def test_builtin_and_mode(referee_bin):
    report = referee.run_conformance("jcs", mode="go-float", run="jcs/numbers/million")
    assert report.implementation["mode"] == "go-float"
    assert report.checks[0].actual == "[1e+06]"


def test_usage_error(referee_bin):
    with pytest.raises(referee.UsageError, match="unknown suite"):
        referee.run_conformance("no-such-suite", [referee_bin, "serve", "jcs"])
    with pytest.raises(referee.UsageError, match="matches no check"):
        referee.run_conformance("jcs", {"canonicalJson": naive_jcs.naive}, run="jcs/no/such/check")


def test_bad_arguments():
    with pytest.raises(TypeError, match="not a string"):
        referee.run_conformance("jcs", "python3 adapter.py")
    with pytest.raises(TypeError, match="unknown options tiemout"):
        referee.run_conformance("jcs", {}, tiemout=1)
    with pytest.raises(TypeError, match="must be a function"):
        referee.run_conformance("jcs", {"canonicalJson": "not callable"}, binary=sys.executable)


FAKE = """#!/bin/sh
if [ "$1" = version ]; then echo "referee 9.9.9-fake"; exit 0; fi
printf '%s' '{out}'
exit 1
"""


@pytest.mark.parametrize("out, why", [
    ("not json", "not JSON"),
    ('{"format": "referee-report/9", "counts": {}, "checks": []}', "format 'referee-report/9'"),
    ('{"format": "referee-report/2", "checks": []}', "no counts or no checks"),
    ('{"format": "referee-report/2", "counts": {}, "checks": [{"id": 1}]}', "check 0 has no id or status"),
])
def test_unreadable_report_names_the_version(tmp_path, out, why):
    fake = write_script(tmp_path / "referee", FAKE.replace("{out}", out))
    with pytest.raises(referee.ReportError) as e:
        referee.run_conformance("jcs", [sys.executable, "x.py"], binary=fake)
    assert "referee 9.9.9-fake" in str(e.value) and why in str(e.value)


def test_missing_referee_bin(monkeypatch, tmp_path):
    monkeypatch.setenv("REFEREE_BIN", str(tmp_path / "nowhere" / "referee"))
    with pytest.raises(referee.RefereeNotFound, match="REFEREE_BIN is set to .*nowhere.*but there is no file there"):
        referee.run_conformance("jcs", {"canonicalJson": naive_jcs.naive})


def test_referee_bin_wins(monkeypatch, tmp_path, referee_bin):
    fake = write_script(tmp_path / "referee", FAKE.replace("{out}", "x"))
    monkeypatch.setenv("REFEREE_BIN", fake)
    assert referee.find_referee() == fake
