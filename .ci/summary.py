#!/usr/bin/env python3
"""Summarise `go test -json` events: each package's result, the output of
every failed test, and at the end every skipped test with its reason."""
import json
import sys


def visible(text):
    """Escape control characters, so that a test's output cannot rewrite the log."""
    return "".join(c if c >= " " and c != "\x7f" else f"\\x{ord(c):02x}" for c in text)


events = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.startswith("{")]
output, skips, failed = {}, [], []
for e in events:
    key = (e.get("Package"), e.get("Test"))
    if e.get("Action") == "output":
        output.setdefault(key, []).append(e.get("Output", ""))
    elif e.get("Action") in ("pass", "fail", "skip"):
        if e.get("Test") is None:
            print(f'{ {"pass": "ok  ", "fail": "FAIL", "skip": "?   "}[e["Action"]] }\t{e["Package"]}\t{e.get("Elapsed", 0):.1f}s')
            if e["Action"] == "fail":
                failed.append(key)
            continue
        if e["Action"] == "fail":
            failed.append(key)
        elif e["Action"] == "skip":
            reason = [l.strip() for l in output.get(key, []) if l.strip() and not l.startswith("=== ") and not l.strip().startswith("--- SKIP")]
            skips.append((key, reason[-1] if reason else "(no reason given)"))
for key in failed:
    print(f"\n--- FAIL {key[0]} {key[1]}")
    sys.stdout.write("".join(output.get(key, [])))
print(f"\n{len(skips)} skipped test(s):")
for (pkg, test), reason in skips:
    print(f"  {pkg.removeprefix('github.com/refereehq/referee/')} {test}: {visible(reason)}")
