// run.js: one run of `referee run SUITE` against a command, an ops object
// served in process over loopback HTTP, or referee's built-in
// implementation; its JSON report, its text report and, for suites that have
// one, the native report.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, serveAdapterHttp } from "./adapter.js";
import { locateBinary } from "./binary.js";
import { RefereeError } from "./errors.js";

/** The report format this package reads. */
export const REPORT_FORMAT = "referee-report/2";

const STDERR_KEEP = 256 * 1024;

function list(v, what) {
  if (v === undefined || v === null) return [];
  const a = Array.isArray(v) ? v : [v];
  for (const x of a) {
    if (typeof x !== "string" || x === "") throw new TypeError(`${what} must be a non-empty string or an array of them, not ${describe(x)}`);
  }
  return a;
}

function duration(v) {
  if (typeof v === "number") {
    if (!(v > 0) || !Number.isFinite(v)) throw new TypeError(`timeout must be a positive number of milliseconds, not ${v}`);
    return `${Math.ceil(v)}ms`;
  }
  if (typeof v === "string" && v !== "") return v;
  throw new TypeError(`timeout must be milliseconds or a duration such as "10s", not ${describe(v)}`);
}

/** targetKind says what adapterOrCommand is: "builtin", "command" or "ops". */
export function targetKind(target) {
  if (target === undefined || target === null) return "builtin";
  if (Array.isArray(target)) {
    if (target.length === 0 || target.some((a) => typeof a !== "string")) {
      throw new TypeError(`a command is a non-empty array of strings (its argv), not ${describe(target)}`);
    }
    return "command";
  }
  if (typeof target === "object") return "ops";
  throw new TypeError(
    `adapterOrCommand must be an object of ops, an argv array (["node", "adapter.mjs"]) or null for referee's built-in implementation, not ${describe(target)}`,
  );
}

/** buildArgs is referee's argv for a run, without the target part. */
export function buildArgs(suite, kind, options, files) {
  if (typeof suite !== "string" || suite === "") throw new TypeError(`suite must be a suite's name, such as "crosslink", not ${describe(suite)}`);
  const a = ["run", suite, "--json", files.json, "--format", "text", "-q", "--no-color"];
  if (files.native) a.push("--native", files.native);
  if (options.corpus !== undefined) a.push("--corpus", list(options.corpus, "corpus")[0]);
  for (const p of list(options.run, "run")) a.push("--run", p);
  for (const p of list(options.skip, "skip")) a.push("--skip", p);
  if (options.timeout !== undefined) a.push("--timeout", duration(options.timeout));
  if (options.strict) a.push("--strict");
  if (options.knownFailing !== undefined) a.push("--known-failing", list(options.knownFailing, "knownFailing")[0]);
  if (options.knownFlaky !== undefined) a.push("--known-flaky", list(options.knownFlaky, "knownFlaky")[0]);
  if (options.parallel !== undefined) a.push("--parallel", String(options.parallel));
  if (options.mode !== undefined) {
    if (kind !== "builtin") throw new TypeError("options.mode runs referee's built-in implementation in a broken mode: give no adapter or command with it");
    a.push("--mode", list(options.mode, "mode")[0]);
  }
  const forCommand = ["env", "cleanEnv", "dir"].filter((k) => options[k] !== undefined && options[k] !== false);
  if (forCommand.length && kind !== "command") {
    throw new TypeError(`options.${forCommand[0]} sets up an adapter program: it applies to a command only`);
  }
  if (options.env) {
    for (const [k, v] of Object.entries(options.env)) a.push("--env", `${k}=${v}`);
  }
  if (options.cleanEnv) a.push("--clean-env");
  if (options.dir !== undefined) a.push("--dir", options.dir);
  for (const x of list(options.args, "args")) a.push(x);
  return a;
}

/** refereeVersion is the first line of `referee version`, or why it could not be had. */
export function refereeVersion(bin) {
  try {
    return execFileSync(bin, ["version"], { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "pipe"] }).split("\n")[0].trim();
  } catch (e) {
    return `(\`${bin} version\` failed: ${e.message.split("\n")[0]})`;
  }
}

function tail(s, n = 20) {
  const lines = s.trimEnd().split("\n");
  return lines.slice(-n).join("\n");
}

/**
 * runReferee runs referee once and resolves to {report, text, native,
 * exitCode, stderr, argv, binary}. It throws a RefereeError when referee
 * cannot be found or run, or exits 2, or writes no report it can read;
 * exit 3 (incomplete) resolves too, with the report, for the caller to judge.
 */
export async function runReferee(suite, target, options = {}, { native = false } = {}) {
  const kind = targetKind(target);
  const { path: binary } = locateBinary({ bin: options.bin });
  const dir = mkdtempSync(join(tmpdir(), "referee-js-"));
  const files = { json: join(dir, "report.json"), native: native ? join(dir, "native.json") : undefined };
  let served;
  try {
    const argv = buildArgs(suite, kind, options, files);
    if (kind === "ops") {
      served = await serveAdapterHttp(target, {
        name: options.name,
        version: options.version,
        concurrency: options.concurrency,
        errorCode: options.errorCode,
      });
      argv.push("--url", served.url);
    } else if (kind === "command") {
      argv.push("--", ...target);
    }
    const { exitCode, signal, stdout, stderr } = await spawnReferee(binary, argv, options);
    const shown = `referee ${argv.join(" ")}`;
    if (exitCode === 2) {
      throw new RefereeError("REFEREE_USAGE", `${shown} exited 2 (usage, configuration or corpus error):\n${tail(stderr) || "(no stderr)"}`, {
        exitCode,
        stderr,
        argv,
      });
    }
    if (exitCode !== 0 && exitCode !== 1 && exitCode !== 3) {
      throw new RefereeError(
        "REFEREE_FAILED",
        `${shown} ${signal ? `ended by ${signal}` : `exited ${exitCode}`}:\n${tail(stderr) || "(no stderr)"}`,
        { exitCode, stderr, argv },
      );
    }
    const report = readReport(files.json, binary, stderr);
    let nativeReport;
    if (native) {
      try {
        nativeReport = JSON.parse(readFileSync(files.native, "utf8"));
      } catch (e) {
        throw new RefereeError(
          "REFEREE_BAD_REPORT",
          `referee wrote no native report that can be read (${e.message}); referee version: ${refereeVersion(binary)}`,
          { exitCode, stderr, report },
        );
      }
    }
    return { report, text: stdout, native: nativeReport, exitCode, stderr, argv, binary };
  } finally {
    if (served) await served.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function readReport(file, binary, stderr) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new RefereeError(
      "REFEREE_BAD_REPORT",
      `referee wrote no JSON report (${e.code ?? e.message}); referee version: ${refereeVersion(binary)}\n${tail(stderr)}`,
      { stderr },
    );
  }
  let report;
  try {
    report = JSON.parse(text);
  } catch (e) {
    throw new RefereeError("REFEREE_BAD_REPORT", `referee's JSON report cannot be parsed (${e.message}); referee version: ${refereeVersion(binary)}`, {
      stderr,
    });
  }
  checkReport(report, binary);
  return report;
}

/** checkReport throws unless report looks like a referee-report/2 document. */
export function checkReport(report, binary) {
  const why =
    report === null || typeof report !== "object" || Array.isArray(report)
      ? "it is not a JSON object"
      : report.format !== REPORT_FORMAT
        ? `its format is ${describe(report.format)}, not "${REPORT_FORMAT}"`
        : !Array.isArray(report.checks)
          ? "it has no checks array"
          : report.counts === null || typeof report.counts !== "object"
            ? "it has no counts"
            : undefined;
  if (why) {
    throw new RefereeError(
      "REFEREE_BAD_REPORT",
      `referee's report cannot be read: ${why}; this package reads ${REPORT_FORMAT}, and referee version says: ${refereeVersion(binary)}`,
    );
  }
}

function spawnReferee(binary, argv, options) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(binary, argv, {
        cwd: options.cwd,
        env: options.refereeEnv ? { ...process.env, ...options.refereeEnv } : process.env,
        stdio: ["ignore", "pipe", "pipe"],
        signal: options.signal,
        windowsHide: true,
      });
    } catch (e) {
      reject(new RefereeError("REFEREE_FAILED", `cannot run ${binary}: ${e.message}`));
      return;
    }
    const out = [];
    let err = "";
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (c) => {
      if (options.onStderr) options.onStderr(c);
      err += c;
      if (err.length > 2 * STDERR_KEEP) err = err.slice(-STDERR_KEEP);
    });
    child.on("error", (e) => {
      if (e.name === "AbortError") reject(e);
      else reject(new RefereeError("REFEREE_FAILED", `cannot run ${binary}: ${e.message}`));
    });
    child.on("close", (code, signal) => {
      resolve({ exitCode: code, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: err.slice(-STDERR_KEEP) });
    });
  });
}

/**
 * runConformance runs one suite and resolves to its referee-report/2
 * document. adapterOrCommand is an object of ops (served in process over
 * loopback HTTP), an argv array (run as `referee run SUITE -- argv...`), or
 * null for referee's built-in implementation (options.mode picks a broken
 * one). Exit 1 (not conformant) resolves; exit 2 and 3 reject with a
 * RefereeError carrying stderr (and, for 3, the incomplete report).
 */
export async function runConformance(suite, adapterOrCommand, options = {}) {
  const r = await runReferee(suite, adapterOrCommand, options);
  if (r.exitCode === 3) {
    throw new RefereeError(
      "REFEREE_INCOMPLETE",
      `referee could not complete the run of ${suite} (exit 3: the implementation could not be started, gave up after repeated faults, or the run was interrupted):\n${tail(r.stderr) || "(no stderr)"}`,
      { exitCode: 3, stderr: r.stderr, report: r.report },
    );
  }
  return r.report;
}
