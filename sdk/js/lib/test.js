// test.js: @refereehq/referee/test, one node:test test per referee check.

import { describe as suiteOf, it } from "node:test";
import { runReferee } from "./run.js";
import { checkText, textBlocks } from "./text.js";

/**
 * ConformanceFailure is the error a failing check's test throws: its message
 * is the check's reason and the text report's evidence (diff, sent,
 * received, repro), and it carries the check from the report.
 */
export class ConformanceFailure extends Error {
  constructor(check, text) {
    super(text);
    this.name = "ConformanceFailure";
    Object.defineProperty(this, "check", { value: check, enumerable: false });
    // The evidence is the message; a stack into this package says nothing.
    this.stack = `${this.name}: ${text}`;
  }
}

/**
 * testsFor registers, in the current node:test suite, one test per check of
 * a finished run and one last test, "exit status", that fails unless referee
 * exited 0 (the run is conformant, or every failure is a known one).
 */
export function testsFor(result, options = {}) {
  const { report, text, exitCode } = result;
  const blocks = textBlocks(text);
  for (const c of report.checks) {
    const why = () => checkText(c, blocks);
    if (c.stale) {
      it(c.id, () => {
        throw new ConformanceFailure(c, `stale: this check passed, but the known-failing baseline still lists it; remove its entry\n${why()}`);
      });
    } else if (c.status === "pass") {
      it(c.id, (t) => {
        if (c.outcome) t.diagnostic(`${c.level}: ${c.outcome}`);
      });
    } else if (c.status === "not-checked") {
      it(c.id, { skip: c.reason || "not checked" }, () => {});
    } else if (c.known && (c.status === "fail" || c.status === "error")) {
      it(c.id, { todo: `known ${c.known}: ${c.reason ?? ""}` }, () => {
        throw new ConformanceFailure(c, `${c.status.toUpperCase()} (${c.level}): ${why()}`);
      });
    } else if (c.status === "fail" && c.level === "should" && !report.strict) {
      it(c.id, (t) => {
        t.diagnostic(`warning (a failed should check): ${why()}`);
      });
    } else {
      // A failed must or may check, a failed should check under strict, or an error.
      it(c.id, () => {
        throw new ConformanceFailure(c, `${c.status.toUpperCase()} (${c.level}): ${why()}`);
      });
    }
  }
  if (options.verdict !== false) {
    it("exit status", () => {
      if (exitCode === 0) return;
      const k = report.counts;
      const summary = `${k.pass} passed, ${k.fail} failed, ${k.warn} warnings, ${k.not_checked} not checked, ${k.error} errors`;
      const why =
        exitCode === 3
          ? "the run is incomplete (the implementation could not be started, or it faulted three times in a row)"
          : k.pass === 0
            ? "nothing passed"
            : report.strict && (k.not_checked > 0 || k.warn > 0)
              ? "strict: a not-checked check or a warning blocks conformance"
              : report.baseline
                ? "an unexpected failure, or a stale baseline entry"
                : "a must or may check failed, or a check ended in error";
      throw new ConformanceFailure(undefined, `referee exited ${exitCode}: ${why} (${summary})`);
    });
  }
}

/**
 * conformanceTests registers a node:test suite named options.name (default
 * "referee SUITE") that runs referee once, then one test per check: a
 * failed must or may check, or an error, fails with the text report's
 * evidence; a failed should check passes with a diagnostic (fails under
 * strict); a not-checked check is skipped with its reason; a check a
 * baseline lists as known failing is a todo. A run that cannot be made is
 * one failing test that says why.
 */
export function conformanceTests(suite, adapterOrCommand, options = {}) {
  const { name, verdict, ...runOptions } = options;
  return suiteOf(name ?? `referee ${suite}`, async () => {
    let result;
    try {
      result = await runReferee(suite, adapterOrCommand, runOptions);
    } catch (e) {
      it("referee run", () => {
        throw e;
      });
      return;
    }
    testsFor(result, { verdict });
  });
}
