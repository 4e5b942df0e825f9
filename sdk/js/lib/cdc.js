// cdc.js: @refereehq/referee/cdc, a drop-in for the Cognitive Delivery
// Contract's runConformance(adapter) that runs referee's whole cdc suite
// against the contract's hook object (validate, lastErrors, roundTrip,
// canonicalise, narrow, hash, verify, rules) served in process, and resolves
// to the contract's report shape, with referee's report beside it.

import { runReferee } from "./run.js";
import { guardPromise } from "./guard.js";

const FLAGS = ["canonicalChecked", "narrowingChecked", "signaturesChecked", "rulesChecked", "errorPathsChecked"];

// setAt puts v at the JSON Pointer path of a copy of value.
function setAt(value, path, v) {
  if (path === "" || path === "/") return v;
  const root = structuredClone(value);
  const parts = path
    .split("/")
    .slice(1)
    .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
  let o = root;
  for (const p of parts.slice(0, -1)) o = o[p];
  o[parts[parts.length - 1]] = v;
  return root;
}

function nonFinite(name) {
  if (name === "NaN") return NaN;
  if (name === "-Infinity") return -Infinity;
  return Infinity;
}

/**
 * cdcOps maps the contract's hooks onto referee's cdc ops
 * (docs/suites/cdc.md). A hook the object lacks is no op, so its checks are
 * not-checked; lastErrors travels in validate's reply as errors.
 */
export function cdcOps(adapter) {
  if (adapter === null || typeof adapter !== "object") {
    throw new TypeError("runConformance: the adapter is an object of hooks {validate, lastErrors, roundTrip, canonicalise, narrow, hash, verify, rules}");
  }
  const has = (k) => typeof adapter[k] === "function";
  const ops = {};
  if (has("validate")) {
    ops.validate = async ({ shape, value }) => {
      const valid = Boolean(await adapter.validate(shape, value));
      if (valid) return { valid, errors: [] };
      const errors = adapter.lastErrors;
      if (!Array.isArray(errors)) return { valid };
      return {
        valid,
        errors: errors.map((e) => {
          const out = { instancePath: typeof e?.instancePath === "string" ? e.instancePath : "" };
          if (typeof e?.keyword === "string") out.keyword = e.keyword;
          return out;
        }),
      };
    };
  }
  if (has("roundTrip")) ops.roundTrip = ({ shape, value }) => adapter.roundTrip(shape, value);
  if (has("canonicalise")) {
    ops.canonicalise = ({ value, nonfinite }) => {
      const v = nonfinite ? setAt(value, nonfinite.path, nonFinite(nonfinite.value)) : value;
      return adapter.canonicalise(v);
    };
  }
  if (has("narrow")) ops.narrow = ({ declared, parent }) => adapter.narrow(declared, parent);
  if (has("hash")) ops.hash = ({ value }) => adapter.hash(value);
  if (has("verify")) ops.verify = ({ lease, key_hex: keyHex }) => adapter.verify(lease, keyHex);
  if (has("rules")) {
    ops.rules = async ({ lease, chain }) => {
      const context = Array.isArray(chain) ? { chainOf: () => chain.slice() } : undefined;
      const findings = context ? await adapter.rules(lease, context) : await adapter.rules(lease);
      return findings ?? null;
    };
  }
  return ops;
}

/**
 * runConformance runs referee's full cdc suite (the embedded release, or
 * options.corpus) against the hook object and resolves to {validCount,
 * invalidCount, canonicalChecked, narrowingChecked, signaturesChecked,
 * rulesChecked, errorPathsChecked, failures, report}.
 */
export function runConformance(adapter, options = {}) {
  const ops = cdcOps(adapter);
  const run = async () => {
    // lastErrors is read after validate returns, so one call at a time.
    const r = await runReferee("cdc", ops, { name: "cdc-js", ...options, concurrency: 1 }, { native: true });
    const n = r.native;
    const out = { validCount: n.validCount, invalidCount: n.invalidCount };
    for (const f of FLAGS) out[f] = n[f] === true;
    out.failures = n.failures;
    out.report = r.report;
    return out;
  };
  return guardPromise(run(), "runConformance", ["validCount", "invalidCount", ...FLAGS, "failures", "report"]);
}
