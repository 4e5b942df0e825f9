// Type declarations for @refereehq/referee/cdc, written by hand for lib/cdc.js.

import type { Ops, Report, RunOptions } from "./index.js";

/** An error a validator reports: Ajv's shape. */
export interface ValidationError {
  instancePath: string;
  keyword?: string;
}

/** The Cognitive Delivery Contract's hook object; validate is the only hook it requires. */
export interface CdcAdapter {
  validate(shape: string, value: unknown): boolean | Promise<boolean>;
  /** Read after validate returns false: the errors, or anything else when paths are not reported. */
  lastErrors?: ValidationError[] | unknown;
  roundTrip?(shape: string, value: unknown): unknown;
  canonicalise?(value: unknown): string | Promise<string>;
  narrow?(declared: unknown, parent: unknown): { granted: unknown } | { refusals: string[] } | Promise<{ granted: unknown } | { refusals: string[] }>;
  hash?(value: unknown): string | Promise<string>;
  verify?(lease: unknown, keyHex: string): boolean | Promise<boolean>;
  rules?(lease: unknown, context?: { chainOf(leaseId: string): string[] }): { rule: string; path: string }[] | null | undefined | Promise<{ rule: string; path: string }[] | null | undefined>;
}

/** The contract's report, with referee's whole report beside it. */
export interface CdcReport {
  validCount: number;
  invalidCount: number;
  canonicalChecked: boolean;
  narrowingChecked: boolean;
  signaturesChecked: boolean;
  rulesChecked: boolean;
  errorPathsChecked: boolean;
  /** Upstream's failure messages; empty means conformant. */
  failures: string[];
  /** referee's referee-report/2 document of the run. */
  report: Report;
}

/** runConformance runs referee's full cdc suite (the embedded release, or options.corpus) against the hooks, served in process. */
export function runConformance(adapter: CdcAdapter | Partial<CdcAdapter>, options?: RunOptions): Promise<CdcReport>;

/** cdcOps is the hook object as referee's cdc ops. */
export function cdcOps(adapter: CdcAdapter | Partial<CdcAdapter>): Ops;
