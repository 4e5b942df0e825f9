// crosslink.js: @refereehq/referee/crosslink, a drop-in for Crosslink's
// runConformance(adapter, options) that runs referee's whole crosslink suite
// against a ProtocolAdapter object ({canonicalJson, encodeFrame,
// decodeMessage, errorCode}) served in process, and resolves to upstream's
// report shape, {passed, failed, failures}, with referee's report beside it.

import { AdapterError, errorMessage } from "./adapter.js";
import { runReferee } from "./run.js";
import { guardPromise } from "./guard.js";

const KEEP = 256;

/**
 * crosslinkOps maps a ProtocolAdapter onto referee's crosslink ops
 * (docs/suites/crosslink.md): canonicalJson(value) → string, encodeFrame(value)
 * → bytes (sent as lowercase hex), decodeMessage(bytes) → value; a thrown
 * error's code is adapter.errorCode(error). A method the adapter lacks is no
 * op, so its checks are not-checked.
 */
export function crosslinkOps(adapter) {
  if (adapter === null || typeof adapter !== "object") {
    throw new TypeError("runConformance: the adapter is a ProtocolAdapter object {canonicalJson, encodeFrame, decodeMessage, errorCode}");
  }
  // What decodeMessage returned, by the JSON text of its reply: referee sends
  // that text back to canonicalJson in the decode checks, and upstream's
  // round trip hands the decoded value itself to canonicalJson.
  const decoded = new Map();
  // A thrown error answers err with the adapter's errorCode of it, as
  // upstream's runner reads it (no code when errorCode gives none).
  const code = (e) => {
    if (typeof adapter.errorCode !== "function") return typeof e?.code === "string" ? e.code : null;
    try {
      const c = adapter.errorCode(e);
      return typeof c === "string" ? c : null;
    } catch {
      return null;
    }
  };
  const coded = (op, fn) => async (args, call) => {
    try {
      return await fn(args, call);
    } catch (e) {
      throw new AdapterError(code(e), errorMessage(e, op));
    }
  };
  const ops = {};
  if (typeof adapter.canonicalJson === "function") {
    ops.canonicalJson = coded("canonicalJson", (args, call) => {
      const text = args.value_text;
      if (typeof text === "string" && decoded.has(text)) {
        const v = decoded.get(text);
        decoded.delete(text);
        return adapter.canonicalJson(v);
      }
      return adapter.canonicalJson(call.value("value"));
    });
  }
  if (typeof adapter.encodeFrame === "function") {
    ops.encodeFrame = coded("encodeFrame", (args, call) => adapter.encodeFrame(call.value("value")));
  }
  if (typeof adapter.decodeMessage === "function") {
    ops.decodeMessage = coded("decodeMessage", async (args, call) => {
      const v = await adapter.decodeMessage(call.bytes("payload_hex"));
      let text;
      try {
        text = JSON.stringify(v ?? null);
      } catch {
        text = undefined;
      }
      if (text !== undefined) {
        decoded.set(text, v);
        if (decoded.size > KEEP) decoded.delete(decoded.keys().next().value);
      }
      return v;
    });
  }
  return ops;
}

/**
 * runConformance runs referee's full crosslink suite (the embedded corpus,
 * or options.corpus) against a ProtocolAdapter and resolves to
 * {passed, failed, failures: [{case, operation, expected, actual}], report}.
 */
export function runConformance(adapter, options = {}) {
  const ops = crosslinkOps(adapter);
  const run = async () => {
    const { version: _v, cases: _c, invalid: _i, ...rest } = options;
    const r = await runReferee("crosslink", ops, {
      name: "crosslink-js",
      concurrency: 4,
      ...rest,
    }, { native: true });
    const n = r.native;
    return { passed: n.passed, failed: n.failed, failures: n.failures, report: r.report };
  };
  return guardPromise(run(), "runConformance", ["passed", "failed", "failures", "report"]);
}
