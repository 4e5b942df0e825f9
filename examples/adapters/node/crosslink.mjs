// crosslink.mjs: a referee-adapter/1 adapter for referee's "crosslink" suite,
// in Node.js (version 20 or later, no npm packages). It is a small,
// self-contained implementation of the Crosslink v1 wire protocol: canonical
// JSON, length-prefixed framing and the payload decode pipeline.
//
// referee starts it as a child process and speaks NDJSON over its stdio:
//
//   referee run crosslink -- node examples/adapters/node/crosslink.mjs
//
// Each request is one JSON object on one line of stdin; each reply is one line
// on stdout. stdout carries protocol only; logs go to stderr. The adapter
// exits 0 when stdin closes.
//
// Ops:
//   canonicalJson {value: V, value_text: T}
//                                  -> ok: canonical JSON text of V (read from T,
//                                     its exact text, when given), as a string;
//                                     err with no code for a number beyond double
//                                     range (1e400), as the reference throws
//   encodeFrame   {value: V, value_text: T}
//                                  -> ok: lowercase hex of u32_be(len) || payload;
//                                     err as canonicalJson, or payload_too_large
//   decodeMessage {payload_hex: H} -> ok: the decoded message, or err with a
//                                     Crosslink error code
//
// The Crosslink reference is TypeScript, so this adapter deliberately reads
// JSON with the engine's own JSON.parse, exactly as the reference does: number
// lexemes become IEEE doubles, duplicate keys keep the last value, lone
// surrogate escapes survive as lone UTF-16 code units, and V8's parser is
// iterative, so deep nesting is safe. Everything else (canonical writer,
// framing, depth check, version check, message validation) is written here,
// without recursion.

const PROTOCOL = "referee-adapter/1";
const SUITE = "crosslink";
const HELLO = {
  name: "crosslink-node",
  version: "1.0.0",
  ops: ["canonicalJson", "encodeFrame", "decodeMessage"],
  concurrency: 1,
};

// DEFAULT_MAX_FRAME_BYTES of the reference: 4 MiB. (PROTOCOL.md and the
// native SDKs say 1 MiB; the TypeScript limits win.)
const MAX_FRAME_BYTES = 4 * 1024 * 1024;
// A value nested inside more than this many containers is rejected.
const MAX_DEPTH = 64;
const SUPPORTED_VERSIONS = ["1.0"];

const MESSAGE_TYPES = new Set([
  "req", "res", "err", "chunk", "end", "evt", "sub", "unsub", "cancel",
  "ping", "pong", "hello", "hello_ok", "bye",
]);

// The 23 wire error codes, in their stable order.
const ERROR_CODES = new Set([
  "parse_error", "invalid_message", "version_unsupported", "unauthorized",
  "capability_denied", "method_not_found", "validation_failed", "payload_too_large",
  "rate_limited", "device_revoked", "session_expired", "pairing_expired",
  "pairing_invalid", "host_offline", "timeout", "cancelled", "internal",
  "not_connected", "peer_lost", "grant_expired", "consent_denied",
  "consent_timeout", "policy_denied",
]);

// JS regexes: \d is ASCII-only and $ (without the m flag) is end of input.
const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$/; // methods and events
const DEVICE_ID_RE = /^cd1_[0-9a-f]{32}$/;
const VERSION_RE = /^\d+\.\d+$/;
const NOT_HEX_RE = /[^0-9a-fA-F]/;

// Reject is an answer of err. code is a wire error code, an adapter code
// (bad_args, ...), or null where the reference throws an error without one.
class Reject extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/* ------------------------------------------------------------------ */
/* canonical JSON                                                      */
/* ------------------------------------------------------------------ */

const isContainer = (v) => v !== null && typeof v === "object";

// scalarText writes a non-container value canonically.
function scalarText(v) {
  switch (typeof v) {
    case "string":
      // Node 20's JSON.stringify is ES2019 well-formed: it escapes `"`, `\`,
      // \b \t \n \f \r, other C0 as lowercase \u00xx and lone surrogates as
      // lowercase \udxxx, and writes everything else raw. That is exactly the
      // Crosslink (and RFC 8785) string form.
      return JSON.stringify(v);
    case "number":
      // The reference throws a plain TypeError here, which has no error code.
      if (!Number.isFinite(v)) throw new Reject(null, "TypeError: canonicalJson: non-finite number");
      return String(v); // ECMAScript Number::toString; -0 gives "0"
    case "boolean":
      return v ? "true" : "false";
    default:
      if (v === null) return "null";
      throw new Reject(null, `TypeError: canonicalJson: unsupported type ${typeof v}`);
  }
}

// canonicalJson writes a value as Crosslink canonical JSON: object keys sorted
// by UTF-16 code units (the default Array.prototype.sort order), no
// whitespace, arrays in order. It keeps an explicit work stack, so nesting
// depth is limited only by memory. Work items are either strings, which are
// finished output text, or containers still to be written.
function canonicalJson(root) {
  if (!isContainer(root)) return scalarText(root);
  const out = [];
  const work = [root];
  const pushItem = (v) => work.push(isContainer(v) ? v : scalarText(v));
  while (work.length > 0) {
    const v = work.pop();
    if (typeof v === "string") {
      out.push(v);
    } else if (Array.isArray(v)) {
      work.push("]");
      for (let k = v.length - 1; k >= 0; k--) {
        pushItem(v[k]);
        if (k > 0) work.push(",");
      }
      out.push("[");
    } else {
      // JSON.parse output holds no undefined members; the reference would
      // drop them, and so would this filter.
      const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
      work.push("}");
      for (let k = keys.length - 1; k >= 0; k--) {
        pushItem(v[keys[k]]);
        work.push(JSON.stringify(keys[k]) + ":");
        if (k > 0) work.push(",");
      }
      out.push("{");
    }
  }
  return out.join("");
}

/* ------------------------------------------------------------------ */
/* framing                                                             */
/* ------------------------------------------------------------------ */

const encoder = new TextEncoder();

// encodeFrame returns u32_be(len(payload)) || payload as lowercase hex, where
// payload is the UTF-8 of the canonical JSON. The canonical text never holds
// a lone surrogate (they are escaped), so the UTF-8 is exact.
function encodeFrame(value) {
  const payload = encoder.encode(canonicalJson(value));
  if (payload.length > MAX_FRAME_BYTES) {
    throw new Reject("payload_too_large", `frame ${payload.length}B exceeds limit ${MAX_FRAME_BYTES}B`);
  }
  const frame = Buffer.allocUnsafe(4 + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.set(payload, 4);
  return frame.toString("hex");
}

/* ------------------------------------------------------------------ */
/* decoding                                                            */
/* ------------------------------------------------------------------ */

// The reference decodes with a default TextDecoder: not fatal (bad bytes
// become U+FFFD) and stripping one leading byte order mark. We choose to
// answer parse_error for invalid UTF-8 (fatal: true), but keep the BOM
// stripping (ignoreBOM defaults to false), as the reference does.
const payloadDecoder = new TextDecoder("utf-8", { fatal: true });

// checkDepth rejects a value that holds any value (container or scalar)
// nested inside more than MAX_DEPTH containers; the top level is depth 0.
function checkDepth(root) {
  const work = [root];
  const depths = [0];
  while (work.length > 0) {
    const v = work.pop();
    const d = depths.pop();
    if (d > MAX_DEPTH) throw new Reject("invalid_message", `payload nesting exceeds ${MAX_DEPTH}`);
    if (!isContainer(v)) continue;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      work.push(child);
      depths.push(d + 1);
    }
  }
}

const has = (o, k) => Object.hasOwn(o, k);
const isString = (v) => typeof v === "string";
const isId = (v) => isString(v) && ID_RE.test(v);
const isName = (v) => isString(v) && NAME_RE.test(v);

// validateMessage returns null for a structurally valid message, else a short
// problem name. Where the notes leave a detail open:
//  - Unknown extra members are accepted; only the listed fields are checked.
//  - Optional fields without a stated rule (req.ts, p, e.data, features,
//    bye.code/reason) are not checked at all.
//  - "Present" means the member exists, whatever its value: idem:null is
//    rejected (not true), chunk d:null is accepted (d is present).
//  - chunk n: any integral double >= 0 (Number.isInteger), so -0 and 1e300
//    pass and 1.5 fails; there is no upper bound.
//  - appId length counts UTF-16 code units (String.prototype.length).
//  - err e: a non-null object; an array fails anyway, having no code.
function validateMessage(m) {
  if (!isContainer(m)) return "not-an-object";
  if (Array.isArray(m)) return "bad-version"; // an array has no v
  if (!isString(m.v) || !VERSION_RE.test(m.v) || !SUPPORTED_VERSIONS.includes(m.v)) return "bad-version";
  if (!isString(m.t) || !MESSAGE_TYPES.has(m.t)) return "bad-type";
  switch (m.t) {
    case "req":
      if (!isId(m.i)) return "req-id";
      if (!isName(m.m)) return "req-method";
      if (has(m, "idem") && m.idem !== true) return "req-idem-flag";
      return null;
    case "res":
    case "end":
    case "cancel":
      return isId(m.i) ? null : `${m.t}-id`;
    case "err": {
      if (!isId(m.i)) return "err-id";
      const e = m.e;
      if (!isContainer(e) || !isString(e.code) || !ERROR_CODES.has(e.code) || !isString(e.message)) return "err-body";
      return null;
    }
    case "chunk":
      if (!isId(m.i)) return "chunk-id";
      if (typeof m.n !== "number" || !Number.isInteger(m.n) || m.n < 0) return "chunk-n";
      if (!has(m, "d")) return "chunk-data-missing";
      return null;
    case "evt":
      if (!isId(m.s)) return "evt-sub";
      if (!isName(m.e)) return "evt-name";
      return null;
    case "sub":
      if (!isId(m.s)) return "sub-sub";
      if (!isName(m.e)) return "sub-event";
      return null;
    case "unsub":
      return isId(m.s) ? null : "unsub-sub";
    case "ping":
    case "pong":
      return typeof m.ts === "number" && Number.isFinite(m.ts) ? null : "ts";
    case "hello":
      if (!Array.isArray(m.versions) || m.versions.length === 0) return "hello-versions";
      if (!m.versions.every((x) => isString(x) && VERSION_RE.test(x))) return "hello-version-format";
      if (!isString(m.deviceId) || !DEVICE_ID_RE.test(m.deviceId)) return "hello-device-id";
      if (!isString(m.appId) || m.appId.length < 1 || m.appId.length > 256) return "hello-app-id";
      return null;
    case "hello_ok":
      return isString(m.version) && VERSION_RE.test(m.version) ? null : "hello-ok-version";
    case "bye":
      return null;
  }
  return "bad-type"; // not reached
}

// decodeMessage runs the reference's decode pipeline on payload bytes (no
// length prefix) and returns the message's canonical JSON text.
function decodeMessage(bytes) {
  let text;
  try {
    text = payloadDecoder.decode(bytes);
  } catch {
    throw new Reject("parse_error", "payload is not valid UTF-8");
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Reject("parse_error", "payload is not valid JSON");
  }
  checkDepth(parsed);
  if (isContainer(parsed) && isString(parsed.v) && !SUPPORTED_VERSIONS.includes(parsed.v)) {
    throw new Reject("version_unsupported", "protocol version is not supported");
  }
  const problem = validateMessage(parsed);
  if (problem !== null) throw new Reject("invalid_message", `invalid message: ${problem}`);
  try {
    return canonicalJson(parsed);
  } catch (e) {
    // The reference accepts such a message (say p holds the lexeme 1e400,
    // which JSON.parse reads as Infinity), but it has no JSON form to reply
    // with. We answer err "unrepresentable", which is not a Crosslink code.
    if (e instanceof Reject && e.code === null) {
      throw new Reject("unrepresentable", `the payload decodes to a valid message, but it cannot be written back as JSON: ${e.message}`);
    }
    throw e;
  }
}

/* ------------------------------------------------------------------ */
/* the adapter protocol                                                */
/* ------------------------------------------------------------------ */

// valueArg returns the message to write: args.value_text, the message's
// exact text, read with JSON.parse as the reference reads a message, when
// the request has it, and otherwise args.value, which must be present (null
// is a value). Both read the same here, since this adapter's request line
// goes through JSON.parse too; value_text is there for hosts whose parsers
// lose what a verdict turns on (Go's encoding/json turns a lone surrogate
// into U+FFFD).
function valueArg(args) {
  if (!isContainer(args) || Array.isArray(args) || !has(args, "value")) {
    throw new Reject("bad_args", "args.value is required");
  }
  if (has(args, "value_text")) {
    if (typeof args.value_text !== "string") {
      throw new Reject("bad_args", "args.value_text is not a string");
    }
    try {
      return JSON.parse(args.value_text);
    } catch (e) {
      throw new Reject("bad_args", `args.value_text is not JSON: ${e.message}`);
    }
  }
  return args.value;
}

// handle answers one request; it returns the reply's ok member as JSON text.
function handle(op, args) {
  switch (op) {
    case "hello":
      if (args?.protocol !== PROTOCOL) {
        throw new Reject("unsupported_protocol", `want ${PROTOCOL}, got ${JSON.stringify(args?.protocol)}`);
      }
      if (args?.suite !== undefined && args.suite !== SUITE) {
        process.stderr.write(`crosslink-node: hello for suite ${JSON.stringify(args.suite)}; this adapter is for ${SUITE}\n`);
      }
      return JSON.stringify(HELLO);
    case "canonicalJson":
      return JSON.stringify(canonicalJson(valueArg(args)));
    case "encodeFrame":
      return JSON.stringify(encodeFrame(valueArg(args)));
    case "decodeMessage": {
      const hex = args?.payload_hex;
      if (!isString(hex) || hex.length % 2 !== 0 || NOT_HEX_RE.test(hex)) {
        throw new Reject("bad_args", "args.payload_hex must be a string of hex digit pairs");
      }
      return decodeMessage(Buffer.from(hex, "hex"));
    }
    default:
      throw new Reject("unknown_op", `unknown op ${JSON.stringify(op)}`);
  }
}

const errLine = (id, code, message) => JSON.stringify({ id, err: { code, message } }) + "\n";

const lineDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// onLine answers one request line.
function onLine(bytes) {
  let req;
  try {
    req = JSON.parse(lineDecoder.decode(bytes));
  } catch (e) {
    process.stderr.write(`crosslink-node: bad request line: ${e.message}\n`);
    return errLine(null, "bad_request", `request is not a JSON object line: ${e.message}`);
  }
  if (!isContainer(req) || Array.isArray(req) || !Number.isInteger(req.id) || !isString(req.op)) {
    const id = Number.isInteger(req?.id) ? req.id : null;
    return errLine(id, "bad_request", "a request needs an integer id and a string op");
  }
  try {
    return `{"id":${req.id},"ok":${handle(req.op, req.args)}}\n`;
  } catch (e) {
    if (e instanceof Reject) return errLine(req.id, e.code, e.message);
    process.stderr.write(`crosslink-node: request ${req.id}: ${e.stack}\n`);
    return errLine(req.id, "internal_error", String(e.message));
  }
}

// isBlank reports whether a line holds only spaces, tabs and carriage returns.
const isBlank = (line) => line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);

// Split stdin on "\n" bytes; blank lines are skipped. A reply is written
// whole with one write call; Node keeps the writes in order.
let pending = [];
process.stdin.on("data", (chunk) => {
  let start = 0;
  for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
    pending.push(chunk.subarray(start, nl));
    const line = Buffer.concat(pending);
    pending = [];
    start = nl + 1;
    if (!isBlank(line)) process.stdout.write(onLine(line));
  }
  if (start < chunk.length) pending.push(chunk.subarray(start));
});
process.stdin.on("end", () => {
  const line = Buffer.concat(pending);
  if (!isBlank(line)) process.stdout.write(onLine(line));
});
