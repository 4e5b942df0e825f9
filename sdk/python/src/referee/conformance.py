"""run_conformance: one `referee run SUITE --format json` and its referee-report/2, read.

docs/report-format.md is the report's contract; its exit codes are `Report.exit_code`.
"""

import collections.abc
import datetime
import json
import os
import subprocess
import unicodedata

from ._binary import find_referee
from ._errors import RefereeError, ReportError, UsageError
from ._version import __version__
from .adapter import Dispatcher, HTTPAdapter

REPORT_FORMAT = "referee-report/2"

__all__ = ["REPORT_FORMAT", "Check", "Report", "run_conformance"]

_OPTIONS = (
    "corpus", "run", "skip", "timeout", "strict", "mode", "env", "binary",
    "name", "version", "concurrency", "cwd", "clean_env", "parallel",
    "known_failing", "known_flaky", "args",
)


def _safe(text):
    """Text as the text report shows it: controls and invisible characters as ‹U+XXXX›."""
    out = []
    for c in text:
        cat = unicodedata.category(c)
        if cat in ("Cc", "Cf", "Cs", "Zl", "Zp") or (cat == "Zs" and c != " "):
            out.append("\u2039U+%04X\u203a" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def _show(value, limit=400):
    """One value on one line, cut after `limit` bytes of UTF-8 with a note of its whole size."""
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False)
    raw = value.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return _safe(value)
    cut = raw[:limit].decode("utf-8", "ignore")  # a character cut in two is left out
    return "%s\u2026 (%d bytes in all)" % (_safe(cut), len(raw))


def _hex(h):
    return " ".join(h[i:i + 2] for i in range(0, len(h), 2))


class Check:
    """One check of a report: its ID, status, level, reason and evidence (`raw` is the JSON)."""

    __slots__ = ("raw", "id", "status", "level", "outcome", "reason", "expected", "actual",
                 "evidence", "known", "duration_ms", "repro")

    def __init__(self, raw):
        self.raw = raw
        self.id = raw["id"]
        self.status = raw["status"]
        self.level = raw.get("level", "must")
        self.outcome = raw.get("outcome")
        self.reason = raw.get("reason", "")
        self.expected = raw.get("expected")
        self.actual = raw.get("actual")
        self.evidence = raw.get("evidence") or {}
        self.known = raw.get("known")
        self.duration_ms = raw.get("duration_ms", 0)
        self.repro = self.evidence.get("repro")  # one shell command that repeats the check

    @property
    def passed(self):
        """It passed."""
        return self.status == "pass"

    @property
    def blocking(self):
        """It blocks conformance: a failed must or may check, or an error."""
        return self.status == "error" or (self.status == "fail" and self.level != "should")

    @property
    def warning(self):
        """It is a warning: a failed should check."""
        return self.status == "fail" and self.level == "should"

    def text(self):
        """The evidence as the text report shows it: expected, actual, diff, notes, sent, received, stderr, repro."""
        lines = []
        if self.expected is not None:
            lines.append("expected: " + _show(self.expected))
        if self.actual is not None:
            lines.append("actual:   " + _show(self.actual))
        ev = self.evidence
        diff = ev.get("diff")
        if diff:
            lines.append("first difference at byte %d (counting from 0; expected %d bytes, got %d)"
                         % (diff["offset"], diff["expected_len"], diff["actual_len"]))
            ws = diff.get("window_start", 0)
            exp_label, act_label = "expected @%d: " % ws, "actual   @%d: " % ws
            lines.append(exp_label + _hex(diff.get("expected_hex", "")))
            lines.append(act_label + _hex(diff.get("actual_hex", "")))
            lines.append(" " * (len(exp_label) + 3 * (diff["offset"] - ws)) + "^^")
        for note in ev.get("notes") or []:
            lines.append(_show(note, 2000))
        for ex in ev.get("exchanges") or []:
            lines.append("sent:     " + _show(ex.get("request", "")))
            if "reply" in ex:
                lines.append("received: " + _show(ex["reply"]))
        stderr = ev.get("stderr")
        if stderr:
            tail = stderr.rstrip("\n").split("\n")[-5:]
            lines.append("stderr (last %d lines):" % len(tail))
            lines.extend("  " + _show(t) for t in tail)
        if self.repro:
            lines.append("repro: " + _show(self.repro, 4000))
        return "\n".join(lines)

    def __repr__(self):
        return "<Check %s %s (%s)%s>" % (self.id, self.status, self.level, ": " + self.reason if self.reason else "")


class Report:
    """A referee-report/2 document, read: the verdict, the counts and every check.

    `raw` is the whole document; `exit_code` is referee's (docs/report-format.md#exit-codes:
    0 conformant, 1 a failure, an error or nothing passed, 3 incomplete); `stderr` is what
    referee wrote there (the adapter's stderr lines among it).
    """

    def __init__(self, raw, exit_code=0, stderr="", binary=None, argv=None, in_process=False):
        self.raw = raw
        self.exit_code = exit_code
        self.stderr = stderr
        self.binary = binary
        self.argv = argv
        self.format = raw["format"]
        self.tool = raw.get("tool") or {}
        self.suite = raw.get("suite") or {}
        self.implementation = raw.get("implementation") or {}
        self.complete = bool(raw.get("complete"))
        self.strict = bool(raw.get("strict"))
        self.conformant = bool(raw.get("conformant"))
        self.restarts = raw.get("restarts", 0)
        self.counts = dict(raw["counts"])
        self.checks = [Check(c) for c in raw["checks"]]
        if in_process:
            # referee's repro is a curl of this process's own server, gone after the run.
            name = self.suite.get("name", "")
            for c in self.checks:
                if c.repro:
                    c.repro = "run_conformance(%r, ops, run=%r)" % (name, c.id)
        self._by_id = {c.id: c for c in self.checks}

    @property
    def failures(self):
        """The checks that block conformance: failed must and may checks, and errors."""
        return [c for c in self.checks if c.blocking]

    @property
    def warnings(self):
        """The failed should checks (warnings), which block only a strict run."""
        return [c for c in self.checks if c.warning]

    @property
    def not_checked(self):
        """The checks the implementation could not be asked (an op it does not offer)."""
        return [c for c in self.checks if c.status == "not-checked"]

    def check(self, check_id):
        """The check with this ID (KeyError if the report has none)."""
        return self._by_id[check_id]

    def summary(self):
        """The text report's summary line: passed, failed, warnings, not checked, errors."""
        c = self.counts
        warn = ", %d warnings" % c.get("warn", 0) if c.get("warn") else ""
        return "%d passed, %d failed%s, %d not checked, %d errors" % (
            c.get("pass", 0), c.get("fail", 0), warn, c.get("not_checked", 0), c.get("error", 0))

    def verdict(self):
        """CONFORMANT, NOT CONFORMANT or INCOMPLETE."""
        if not self.complete:
            return "INCOMPLETE"
        return "CONFORMANT" if self.conformant else "NOT CONFORMANT"

    def __repr__(self):
        return "<Report %s: %s; %s>" % (self.suite.get("name", "?"), self.summary(), self.verdict())


def _duration(t):
    if isinstance(t, datetime.timedelta):
        t = t.total_seconds()
    if isinstance(t, str):
        return t
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t <= 0:
        raise ValueError("timeout must be a positive number of seconds or a Go duration such as '2s', not %r" % (t,))
    return ("%.6f" % t).rstrip("0").rstrip(".") + "s"


def _patterns(name, value):
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    out = []
    for p in value:
        out += ["--" + name, str(p)]
    return out


def _command(adapter):
    if isinstance(adapter, (str, bytes)):
        raise TypeError("adapter must be a mapping of ops or a command list such as "
                        "['python3', 'adapter.py'], not a string: %r" % (adapter,))
    cmd = [os.fspath(a) if isinstance(a, os.PathLike) else a for a in adapter]
    if not cmd:
        raise ValueError("the adapter command is empty")
    for a in cmd:
        if not isinstance(a, str):
            raise TypeError("each word of the adapter command must be a string, not %r" % (a,))
    return cmd


def referee_version(binary):
    """What `referee version` says on its first line, or why it said nothing."""
    try:
        out = subprocess.run([binary, "version"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return "referee of unknown version (%s version: %s)" % (binary, e)
    first = out.stdout.decode("utf-8", "replace").strip().split("\n")[0]
    if out.returncode != 0 or not first:
        return "referee of unknown version (%s version exited %d)" % (binary, out.returncode)
    return first


def _tail(text, n=20):
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[-n:])


def _read(stdout, binary):
    def refuse(why):
        raise ReportError("%s (%s) wrote a report that cannot be parsed: %s; the referee package %s "
                          "reads %s" % (referee_version(binary), binary, why, __version__, REPORT_FORMAT))
    try:
        doc = json.loads(stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        start = stdout[:60].decode("utf-8", "replace")
        refuse("not JSON (%s), starting %r" % (e, start))
    if not isinstance(doc, dict):
        refuse("a JSON %s, not an object" % type(doc).__name__)
    if doc.get("format") != REPORT_FORMAT:
        refuse("format %r" % (doc.get("format"),))
    counts, checks = doc.get("counts"), doc.get("checks")
    if not isinstance(counts, dict) or not isinstance(checks, list):
        refuse("no counts or no checks")
    for i, c in enumerate(checks):
        if not (isinstance(c, dict) and isinstance(c.get("id"), str) and isinstance(c.get("status"), str)):
            refuse("check %d has no id or status" % i)
    return doc


def run_conformance(suite, adapter=None, **options):
    """Run referee's SUITE against `adapter` and return the Report.

    `adapter` is one of:
    - a mapping from op name to a function of the request's `args` returning the `ok` value
      (an exception is an `err` reply, its `code` attribute as the code), served on a
      loopback HTTP port in this process while `referee run SUITE --url` runs;
    - a command list (`["python3", "adapter.py"]`), run as `referee run SUITE -- CMD...`;
    - None, for referee's built-in implementation (with `mode`, a deliberately broken one).

    Options: `corpus` (a directory), `run` and `skip` (an ID pattern or a list of them),
    `timeout` (per call: seconds or a Go duration), `strict`, `mode`, `env` (a mapping for
    the adapter command's environment), `cwd` (the command's directory), `clean_env`,
    `parallel`, `known_failing`, `known_flaky` (baseline files), `args` (more referee
    flags), `binary` (the referee to run instead of the one found), and for a mapping the
    hello's `name`, `version` and `concurrency`.

    Raises UsageError when referee refuses the run (exit 2), ReportError when its output is
    not a report, RefereeNotFound when there is no binary. A run that fails checks or could
    not finish is a Report, with `conformant`, `complete` and `exit_code` saying so.
    """
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError("run_conformance got unknown options %s (it takes %s)" % (", ".join(unknown), ", ".join(_OPTIONS)))
    if not isinstance(suite, str) or not suite:
        raise TypeError("suite must be a suite name such as 'jcs', not %r" % (suite,))
    binary = options.get("binary")
    binary = os.fspath(binary) if binary is not None else find_referee()

    argv = [binary, "run", suite, "--format", "json"]
    if options.get("corpus") is not None:
        argv += ["--corpus", os.fspath(options["corpus"])]
    argv += _patterns("run", options.get("run"))
    argv += _patterns("skip", options.get("skip"))
    if options.get("timeout") is not None:
        argv += ["--timeout", _duration(options["timeout"])]
    if options.get("strict"):
        argv.append("--strict")
    if options.get("mode") is not None:
        argv += ["--mode", str(options["mode"])]
    if options.get("parallel") is not None:
        argv += ["--parallel", str(int(options["parallel"]))]
    for flag in ("known_failing", "known_flaky"):
        if options.get(flag) is not None:
            argv += ["--" + flag.replace("_", "-"), os.fspath(options[flag])]
    for key, value in (options.get("env") or {}).items():
        argv += ["--env", "%s=%s" % (key, value)]
    if options.get("cwd") is not None:
        argv += ["--dir", os.fspath(options["cwd"])]
    if options.get("clean_env"):
        argv.append("--clean-env")
    argv += [str(a) for a in options.get("args") or []]

    if adapter is None or isinstance(adapter, collections.abc.Mapping):
        for key in ("name", "version", "concurrency"):
            if options.get(key) is not None and adapter is None:
                raise TypeError("%s is for a mapping of ops, not the built-in implementation" % key)
    if isinstance(adapter, collections.abc.Mapping):
        dispatcher = Dispatcher(adapter, name=options.get("name") or "python-mapping",
                                version=options.get("version") or "",
                                concurrency=options.get("concurrency") or 1, suite=suite)
        with HTTPAdapter(dispatcher) as http:
            argv += ["--url", http.url]
            return _execute(argv, binary, suite, in_process=True)
    if adapter is not None:
        argv += ["--"] + _command(adapter)
    return _execute(argv, binary, suite)


def _unknown_suite(binary, suite):
    """referee's own message when `suite` is not one of its suites, else None.

    With an unknown suite, `referee run SUITE --format json` reads SUITE as an argument
    and complains of the flag; `referee list SUITE` names the suite and the known ones.
    """
    try:
        out = subprocess.run([binary, "list", suite], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stderr.decode("utf-8", "replace").strip() if out.returncode == 2 else None


def _execute(argv, binary, suite, in_process=False):
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise RefereeError("cannot run %s: %s" % (binary, e)) from None
    stderr = proc.stderr.decode("utf-8", "replace")
    code = proc.returncode
    if code == 2:
        message = _tail(stderr)
        if "unknown flag" in stderr:
            message = _unknown_suite(binary, suite) or message
        raise UsageError("referee refused the run (exit 2):\n%s" % message, 2, stderr)
    if code not in (0, 1, 3):
        raise RefereeError("referee ended with status %d and no verdict:\n%s" % (code, _tail(stderr)))
    if not proc.stdout.strip():
        raise RefereeError("referee exited %d with no report:\n%s" % (code, _tail(stderr)))
    doc = _read(proc.stdout, binary)
    return Report(doc, exit_code=code, stderr=stderr, binary=binary, argv=argv, in_process=in_process)
