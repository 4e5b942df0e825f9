#!/usr/bin/env python3
# run_jcs.py: run referee's jcs suite against the canonicaliser of jcs_adapter.py,
# called in this process, and print what did not pass.
import sys

import referee
from jcs_adapter import canonical_json


def main():
    ops = {"canonicalJson": lambda args: canonical_json(args["value_text"])}
    report = referee.run_conformance("jcs", ops, name="example-jcs", version="1.0.0", timeout=5)
    for check in report.failures + report.warnings:
        print(check.status.upper(), check.id, check.reason)
        print(check.text())
    for check in report.not_checked:
        print("NOT CHECKED", check.id)
    print(report.summary())
    print(report.verdict())
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
