// Type declarations for @refereehq/referee/crosslink, written by hand for lib/crosslink.js.

import type { Ops, Report, RunOptions } from "./index.js";

/** Crosslink's ProtocolAdapter: the four operations an implementation offers. */
export interface ProtocolAdapter {
  canonicalJson(value: unknown): string | Promise<string>;
  encodeFrame(value: object): Uint8Array | Promise<Uint8Array>;
  decodeMessage(bytes: Uint8Array): unknown;
  errorCode(error: unknown): string | undefined;
}

/** One failed check, in upstream's shape. */
export interface ConformanceFailure {
  case: string;
  operation: "canonical" | "frame" | "decode" | "negative";
  expected: string;
  actual: string;
}

/** Upstream's report, with referee's whole report beside it. */
export interface ConformanceReport {
  /** Checks that passed (not-checked ones count in neither). */
  passed: number;
  /** failures.length. */
  failed: number;
  failures: ConformanceFailure[];
  /** referee's referee-report/2 document of the run: levels, evidence, repro lines. */
  report: Report;
}

export interface CrosslinkOptions extends RunOptions {
  /** Upstream's fixture arguments: accepted and ignored, referee runs its own corpus (options.corpus for another). */
  version?: any;
  cases?: unknown[];
  invalid?: unknown[];
}

/**
 * runConformance runs referee's full crosslink suite (its embedded corpus,
 * or options.corpus) against the adapter, served in process.
 */
export function runConformance(adapter: Partial<ProtocolAdapter>, options?: CrosslinkOptions): Promise<ConformanceReport>;

/** crosslinkOps is the adapter as referee's crosslink ops, for runConformance or conformanceTests of the main entry. */
export function crosslinkOps(adapter: Partial<ProtocolAdapter>): Ops;
