// Type declarations for @refereehq/referee/test, written by hand for lib/test.js.

import type { AdapterOrCommand, ReportCheck, RunOptions, RunResult } from "./index.js";

export interface ConformanceTestsOptions extends RunOptions {
  /** The node:test suite's name (default "referee SUITE"). */
  name?: string;
  /** Add the last test, "exit status", that fails unless referee exited 0 (default true). */
  verdict?: boolean;
}

/**
 * conformanceTests registers a node:test suite that runs referee once, then
 * one test per check: a failed must or may check, or an error, fails with the
 * text report's evidence; a failed should check passes with a diagnostic
 * (fails under strict); a not-checked check is skipped with its reason; a
 * check a baseline lists as known failing is a todo.
 */
export function conformanceTests(suite: string, adapterOrCommand: AdapterOrCommand, options?: ConformanceTestsOptions): unknown;

/** testsFor registers the tests of a finished run in the current node:test suite. */
export function testsFor(result: Pick<RunResult, "report" | "text" | "exitCode">, options?: { verdict?: boolean }): void;

/** The error a failing check's test throws: the reason and evidence as its message. */
export class ConformanceFailure extends Error {
  constructor(check: ReportCheck | undefined, text: string);
  check: ReportCheck | undefined;
}
