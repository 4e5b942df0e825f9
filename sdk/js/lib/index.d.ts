// Type declarations for @refereehq/referee, written by hand for lib/index.js.

import type { Readable, Writable } from "node:stream";
import type { Server } from "node:http";

/** The adapter protocol this package speaks: "referee-adapter/1". */
export const PROTOCOL: "referee-adapter/1";
/** The report format this package reads: "referee-report/2". */
export const REPORT_FORMAT: "referee-report/2";
/** The platform keys a platform package exists for, e.g. "linux-x64". */
export const PLATFORMS: readonly string[];

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What an op learns of its call besides args. */
export interface Call {
  /** The request's id. */
  id: number;
  /** The op's name. */
  op: string;
  /** The suite the hello named. */
  suite: string | undefined;
  /** The corpus directory the hello named (the cdc suite sends one). */
  corpus: string | undefined;
  /** The hello request's args. */
  hello: Record<string, JsonValue> | undefined;
  /** args[`${name}_text`] read with JSON.parse when it is sent, else args[name]; name defaults to "value". */
  value(name?: string): any;
  /** The bytes of args[name] (a name ending in _hex) or of args[`${name}_hex`]; bad hex throws (code "bad_args"). */
  bytes(name: string): Uint8Array;
}

/**
 * An op: called with the request's args and the call, it returns (or resolves
 * to) the ok value, or throws: an error's `code` (a string) and message become
 * the err reply. Bytes (Uint8Array, Buffer, ArrayBuffer) are sent as lowercase
 * hex; undefined as null.
 */
export type Op = (args: any, call: Call) => unknown;

/** An object whose functions are the ops it offers (own or inherited; `hello` is reserved). */
export type Ops = { [op: string]: Op };

/** How an adapter introduces itself in its hello reply. */
export interface AdapterOptions {
  /** The implementation's name (default "js-adapter"). */
  name?: string;
  /** Its version (default ""). */
  version?: string;
  /** How many requests it takes in flight at once (default 1). */
  concurrency?: number;
  /** The code of a thrown error (default: its `code` property when that is a string). */
  errorCode?: (error: unknown) => string | undefined | null;
}

export interface ServeOptions extends AdapterOptions {
  /** Where requests come from (default process.stdin). */
  input?: Readable;
  /** Where replies go (default process.stdout). */
  output?: Writable;
  /** While serving process.stdout, send console.log, info and debug to stderr (default true). */
  guardConsole?: boolean;
}

/** serveAdapter answers referee-adapter/1 requests on stdin until it ends; it resolves when every reply is written. */
export function serveAdapter(ops: Ops, options?: ServeOptions): Promise<void>;

export interface HttpServeOptions extends AdapterOptions {
  /** The address to listen on (default "127.0.0.1"). */
  host?: string;
  /** The port (default 0: any free port). */
  port?: number;
}

/** A running HTTP adapter: give `url` to `referee run SUITE --url`. */
export interface HttpAdapter {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** serveAdapterHttp serves the same ops over HTTP, one POSTed request per reply. */
export function serveAdapterHttp(ops: Ops, options?: HttpServeOptions): Promise<HttpAdapter>;

/** A request's handler: one request object in, one reply object out. */
export interface Handler {
  hello: { name: string; version: string; ops: string[]; concurrency: number };
  handle(request: unknown): Promise<{ id: number | null; ok?: unknown; err?: { code: string | null; message: string } }>;
}

/** createHandler is what serveAdapter and serveAdapterHttp put in front of the ops. */
export function createHandler(ops: Ops, options?: AdapterOptions): Handler;

/** The names of the ops an ops object offers. */
export function opNames(ops: Ops): string[];
/** The lowercase hex of bytes. */
export function toHex(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): string;
/** The bytes of a hex string (either case); anything else throws a TypeError with code "bad_args". */
export function fromHex(text: string): Uint8Array;
/** A short text for any value, for messages. */
export function describe(value: unknown): string;
/** The err message for a thrown value. */
export function errorMessage(error: unknown, op: string): string;

/** An error an op throws to answer err with a code. */
export class AdapterError extends Error {
  constructor(code: string | null, message?: string);
  code: string | null;
}

/** An error about referee itself, not about the implementation under test. */
export class RefereeError extends Error {
  name: "RefereeError";
  code:
    | "REFEREE_NOT_FOUND"
    | "REFEREE_BIN_MISSING"
    | "REFEREE_HASH_MISMATCH"
    | "REFEREE_USAGE"
    | "REFEREE_INCOMPLETE"
    | "REFEREE_BAD_REPORT"
    | "REFEREE_FAILED";
  /** referee's exit status, when it ran. */
  exitCode?: number | null;
  /** The tail of referee's stderr, when it ran. */
  stderr?: string;
  /** The incomplete report of an exit 3. */
  report?: Report;
  /** REFEREE_NOT_FOUND: the platform key, e.g. "linux-x64". */
  platform?: string;
  /** REFEREE_NOT_FOUND: the package that carries the binary for it. */
  package?: string;
}

export interface BinaryOptions {
  /** A path to use, before anything else. */
  bin?: string;
  /** The environment to read REFEREE_BIN and PATH from (default process.env). */
  env?: Record<string, string | undefined>;
  platform?: string;
  arch?: string;
}

/** Where the binary is and where that came from. */
export function locateBinary(options?: BinaryOptions): { path: string; source: "option" | "REFEREE_BIN" | "package" | "PATH" };
/** The path of the referee binary: REFEREE_BIN, this platform's package, or referee on PATH. */
export function findBinary(options?: BinaryOptions): string;
/** This process's platform key, e.g. "linux-x64". */
export function platformKey(platform?: string, arch?: string): string;
/** The package that carries the binary for a platform key. */
export function platformPackage(key?: string): string;
/** The first line of `referee version`. */
export function refereeVersion(bin: string): string;

/** Options of one run of referee. */
export interface RunOptions {
  /** A corpus directory instead of the suite's embedded one (--corpus). */
  corpus?: string;
  /** Check-ID patterns to run (--run). */
  run?: string | string[];
  /** Check-ID patterns to skip (--skip). */
  skip?: string | string[];
  /** The per-call timeout: milliseconds, or a duration such as "10s" (--timeout). */
  timeout?: number | string;
  /** A not-checked check or a failed should check blocks conformance (--strict). */
  strict?: boolean;
  /** With no adapter: run referee's built-in implementation in this broken mode (--mode). */
  mode?: string;
  /** With a command: variables added to the adapter's environment (--env). */
  env?: Record<string, string>;
  /** With a command: start it with PATH and HOME only, plus env (--clean-env). */
  cleanEnv?: boolean;
  /** With a command: its working directory (--dir). */
  dir?: string;
  /** A baseline of checks known to fail (--known-failing FILE). */
  knownFailing?: string;
  /** A baseline of checks known to be flaky (--known-flaky FILE). */
  knownFlaky?: string;
  /** Checks in flight at once (--parallel). */
  parallel?: number;
  /** More arguments for `referee run`, before the command. */
  args?: string[];
  /** The referee binary to run (else REFEREE_BIN, the platform package, PATH). */
  bin?: string;
  /** The working directory of referee itself. */
  cwd?: string;
  /** Variables added to referee's own environment. */
  refereeEnv?: Record<string, string>;
  /** Called with each chunk referee writes to stderr (the adapter's stderr arrives there). */
  onStderr?: (chunk: string) => void;
  /** Stops the run. */
  signal?: AbortSignal;
  /** With an ops object: the hello's name, version and concurrency, and how errors get their code. */
  name?: string;
  version?: string;
  concurrency?: number;
  errorCode?: (error: unknown) => string | undefined | null;
}

/** What runConformance accepts: an ops object (served in process), an argv array, or null for the built-in. */
export type AdapterOrCommand = Ops | string[] | null | undefined;

/** One check of a referee-report/2 document. */
export interface ReportCheck {
  id: string;
  status: "pass" | "fail" | "not-checked" | "error";
  level: "must" | "should" | "may";
  outcome?: string;
  reason?: string;
  expected?: string;
  actual?: string;
  evidence?: {
    diff?: { offset: number; expected_len: number; actual_len: number; window_start: number; expected_hex: string; actual_hex: string };
    notes?: string[];
    exchanges?: { request: string; reply?: string }[];
    stderr?: string;
    repro?: string;
  };
  known?: "failing" | "flaky";
  stale?: boolean;
  duration_ms: number;
}

/** A referee-report/2 document (docs/report-format.md). */
export interface Report {
  format: "referee-report/2";
  tool: { name: string; version: string };
  suite: { name: string; version?: string; corpus: string; corpus_digest: string };
  implementation: {
    name: string;
    version: string;
    ops: string[];
    transport: "stdio" | "http" | "in-process";
    command?: string[];
    url?: string;
    mode?: string;
  };
  started: string;
  duration_ms: number;
  complete: boolean;
  strict: boolean;
  conformant: boolean;
  restarts: number;
  clean_restarts?: number;
  shard?: { index: number; count: number };
  counts: { pass: number; fail: number; warn: number; not_checked: number; error: number };
  baseline?: { known_failing: number; known_flaky: number; unexpected: number; stale: number; stale_entries?: string[] };
  checks: ReportCheck[];
}

/**
 * runConformance runs one suite and resolves to its referee-report/2
 * document (exit 0 or 1); exit 2 and 3 reject with a RefereeError.
 */
export function runConformance(suite: string, adapterOrCommand: AdapterOrCommand, options?: RunOptions): Promise<Report>;

/** One run of referee, with everything it wrote. */
export interface RunResult {
  report: Report;
  /** The text report (-q: the checks that did not pass, with their evidence). */
  text: string;
  /** The suite's native report, when asked for. */
  native?: unknown;
  exitCode: number;
  stderr: string;
  argv: string[];
  binary: string;
}

/** runReferee runs referee once; exit 3 resolves too, for the caller to judge. */
export function runReferee(suite: string, adapterOrCommand: AdapterOrCommand, options?: RunOptions, what?: { native?: boolean }): Promise<RunResult>;
