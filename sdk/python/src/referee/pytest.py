"""pytest integration: one test item per check of a referee run.

    from referee.pytest import conformance_tests
    test_jcs = conformance_tests("jcs", ["python3", "jcs_adapter.py"])

The installed wheel registers this module as a pytest plugin (entry point pytest11), which
only declares the `referee` marker every item carries (`-m referee` selects them).
"""

import warnings

import pytest

from ._errors import RefereeError, RefereeWarning
from .conformance import run_conformance

__all__ = ["conformance_tests", "RefereeWarning"]


def pytest_configure(config):
    """Declare the marker of conformance items."""
    config.addinivalue_line("markers", "referee(suite): a check of a referee conformance run")


def _judge(check, strict, request):
    """Turn one check's verdict into the item's: pass, fail, skip, or pass with a warning."""
    props = request.node.user_properties
    props.append(("referee_status", check.status))
    props.append(("referee_level", check.level))
    if check.outcome:
        props.append(("referee_outcome", check.outcome))
    if check.status == "pass":
        return
    heading = "%s %s (%s): %s" % ("WARN" if check.warning else check.status.upper(), check.id, check.level, check.reason)
    evidence = check.text()
    message = heading + ("\n" + evidence if evidence else "")
    if check.status == "not-checked":
        if strict:
            pytest.fail("not checked, which blocks a strict run: " + check.reason, pytrace=False)
        pytest.skip(check.reason)
    if check.warning and not strict:
        warnings.warn(RefereeWarning(message))
        return
    pytest.fail(message, pytrace=False)


def conformance_tests(suite, adapter=None, **options):
    """A test function that pytest collects as one item per check of `suite`.

    Runs referee once, now (at collection): `adapter` and `options` are those of
    `referee.run_conformance`. Assign the result to a name starting with `test`. Each item
    is named by its check ID (`test_jcs[jcs/numbers/1e21]`), so `-k` and `--lf` select
    checks. A failed must or may check fails with the text report's evidence (diff, sent,
    received, repro); a failed should check passes with a RefereeWarning; a not-checked one
    is skipped with its reason (with `strict=True` both fail); an error fails. When referee
    cannot run at all (no binary, a usage error, an unreadable report) the function is one
    item, named after the suite, that fails with referee's message.
    """
    mark = pytest.mark.referee(suite)
    try:
        report = run_conformance(suite, adapter, **options)
    except RefereeError as e:
        failure = "%s: %s" % (type(e).__name__, e)

        @pytest.mark.parametrize("referee_check", [pytest.param(None, id=suite, marks=mark)])
        def test_referee_error(referee_check):
            pytest.fail(failure, pytrace=False)

        return test_referee_error

    strict = report.strict
    params = [pytest.param(c, id=c.id, marks=mark) for c in report.checks]

    @pytest.mark.parametrize("referee_check", params)
    def test_conformance(referee_check, request):
        _judge(referee_check, strict, request)

    test_conformance.report = report
    return test_conformance
