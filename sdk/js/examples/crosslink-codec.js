// crosslink-codec.js: a small Crosslink v1 wire codec in JavaScript, written
// from referee's notes on the protocol (docs/suites/crosslink.md), in the
// shape of Crosslink's ProtocolAdapter: canonicalJson, encodeFrame,
// decodeMessage and errorCode. It is what the other examples test.

/** The 23 stable error codes, in the reference's order. */
export const CODES = [
  "parse_error", "invalid_message", "version_unsupported", "unauthorized", "capability_denied",
  "method_not_found", "validation_failed", "payload_too_large", "rate_limited", "device_revoked",
  "session_expired", "pairing_expired", "pairing_invalid", "host_offline", "timeout", "cancelled",
  "internal", "not_connected", "peer_lost", "grant_expired", "consent_denied", "consent_timeout",
  "policy_denied",
];

export const MAX_DEPTH = 64;
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** CrosslinkError is a rejection with one of the stable codes. */
export class CrosslinkError extends Error {
  constructor(code, message, options) {
    super(message ?? code, options);
    this.name = "CrosslinkError";
    this.code = code;
  }
}

/**
 * canonicalJson writes a value as Crosslink's canonical JSON: keys sorted by
 * UTF-16 code units (Array.prototype.sort), no whitespace, numbers as
 * String(number) writes them, strings escaped as JSON.stringify escapes them
 * (a lone surrogate as \udxxx). A number that is not finite is refused.
 */
export function canonicalJson(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError("canonicalJson: non-finite number");
      return String(value);
    case "string":
      return JSON.stringify(value);
    case "object":
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
      return `{${Object.keys(value)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
        .join(",")}}`;
    default:
      throw new TypeError(`canonicalJson: cannot write a ${typeof value}`);
  }
}

/** encodeFrame is the 4-byte big-endian length of the canonical UTF-8 payload, then the payload. */
export function encodeFrame(value, maxFrameBytes = MAX_FRAME_BYTES) {
  const payload = new TextEncoder().encode(canonicalJson(value));
  if (payload.length > maxFrameBytes) {
    throw new CrosslinkError("payload_too_large", `payload of ${payload.length} bytes is over ${maxFrameBytes}`);
  }
  const frame = new Uint8Array(4 + payload.length);
  new DataView(frame.buffer).setUint32(0, payload.length, false);
  frame.set(payload, 4);
  return frame;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$/;
const VERSION = /^[0-9]+\.[0-9]+$/;
const DEVICE = /^cd1_[0-9a-f]{32}$/;

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const matches = (v, re) => typeof v === "string" && re.test(v);

// tooDeep says whether any value sits deeper than MAX_DEPTH (the top level is 0).
function tooDeep(root) {
  const stack = [[root, 0]];
  while (stack.length) {
    const [v, d] = stack.pop();
    if (d > MAX_DEPTH) return true;
    if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) stack.push([v[k], d + 1]);
    }
  }
  return false;
}

// The fields each kind requires (step 5 of the decode order).
const KINDS = {
  req: (m) => matches(m.i, ID) && matches(m.m, NAME) && (!Object.hasOwn(m, "idem") || m.idem === true),
  res: (m) => matches(m.i, ID),
  err: (m) => matches(m.i, ID) && isObject(m.e) && CODES.includes(m.e.code) && typeof m.e.message === "string",
  chunk: (m) => matches(m.i, ID) && typeof m.n === "number" && Number.isInteger(m.n) && m.n >= 0 && Object.hasOwn(m, "d"),
  end: (m) => matches(m.i, ID),
  evt: (m) => matches(m.s, ID) && matches(m.e, NAME),
  sub: (m) => matches(m.s, ID) && matches(m.e, NAME),
  unsub: (m) => matches(m.s, ID),
  cancel: (m) => matches(m.i, ID),
  ping: (m) => typeof m.ts === "number" && Number.isFinite(m.ts),
  pong: (m) => typeof m.ts === "number" && Number.isFinite(m.ts),
  hello: (m) =>
    Array.isArray(m.versions) &&
    m.versions.length > 0 &&
    m.versions.every((v) => matches(v, VERSION)) &&
    matches(m.deviceId, DEVICE) &&
    typeof m.appId === "string" &&
    m.appId.length >= 1 &&
    m.appId.length <= 256,
  hello_ok: (m) => matches(m.version, VERSION),
  bye: () => true,
};

/**
 * decodeMessage reads a frame's payload: one leading byte order mark
 * dropped, strict UTF-8, JSON.parse (the last of duplicate keys wins), then
 * depth, version and structure, the first failure deciding the code.
 */
export function decodeMessage(bytes) {
  let b = bytes;
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(b);
  } catch (e) {
    throw new CrosslinkError("parse_error", "payload is not UTF-8", { cause: e });
  }
  let msg;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    throw new CrosslinkError("parse_error", `payload is not JSON: ${e.message}`, { cause: e });
  }
  if (tooDeep(msg)) throw new CrosslinkError("invalid_message", `nested deeper than ${MAX_DEPTH}`);
  if (isObject(msg) && typeof msg.v === "string" && msg.v !== "1.0") {
    throw new CrosslinkError("version_unsupported", `protocol version ${JSON.stringify(msg.v)} is not supported`);
  }
  if (!isObject(msg) || msg.v !== "1.0" || typeof msg.t !== "string" || !Object.hasOwn(KINDS, msg.t) || !KINDS[msg.t](msg)) {
    throw new CrosslinkError("invalid_message", "not a valid Crosslink v1 message");
  }
  return msg;
}

/** errorCode is a thrown error's stable code, or undefined when it has none. */
export function errorCode(error) {
  return error instanceof CrosslinkError ? error.code : undefined;
}

/** adapter is this codec as a Crosslink ProtocolAdapter. */
export const adapter = { canonicalJson, encodeFrame, decodeMessage, errorCode };
