// cgp-vectors.mjs: a referee-adapter/1 adapter for referee's "cgp-vectors"
// suite, in Node.js (version 20 or later, no npm packages). It is a small,
// self-contained implementation of the Context Graph Protocol's digest profile
// (fixture profile 1.1.0): the strict parse of a ContextFrame and a
// ContextQuery with their allow-lists, the normalisation that materialises
// omitted arrays, RFC 8785 canonicalisation, the sha256: digest of the
// canonical text, and frame-validity rule F3 (citation_label present and not
// blank).
//
// referee starts it as a child process and speaks NDJSON over its stdio:
//
//   referee run cgp-vectors -- node examples/adapters/node/cgp-vectors.mjs
//
// Each request is one JSON object on one line of stdin; each reply is one line
// on stdout. stdout carries protocol only; logs go to stderr. The adapter
// exits 0 when stdin closes.
//
// Ops:
//   normalizeFrame {frame: F}        -> ok: the normalised frame, or err
//                                       {code: "unknown_field", path: "frame...."}
//   normalizeQuery {query: Q}        -> ok: the normalised query, or err
//                                       {code: "unknown_field", path: "query...."}
//   canonicalize   {value: V}        -> ok: the RFC 8785 text of V, as a string
//                  {value_text: T}   -> the same, for the JSON text T
//   digest         {value: V}        -> ok: "sha256:" + hex(SHA-256(RFC 8785 text))
//   checkFrame     {frame: F}        -> ok: {valid: true}, or
//                                       {valid: false, rule: "F3", field: "citation_label", message}
//   recordHash     {record: R}       -> ok: "sha256:" + hex(SHA-256(RFC 8785 text of R
//                                       without its top-level record_hash member))
//   signRecordAttestation {seed, signed_record_hash}        -> ok: hex Ed25519 signature
//   verifyRecordAttestation {record, attestation, public_key} -> ok: {valid: true}, or
//                                       {valid: false, reason: "commitment_mismatch" |
//                                        "signature_invalid" | "malformed"}
//   rangeDigest    {resource, range?} -> ok: {bytes, digest} of the lines the range
//                                       addresses, or {unverifiable: reason}
//
// Request lines are read with the parser below, not JSON.parse: the strict
// parse must report the first unknown member in source order, and JSON.parse
// puts integer-like keys ("0", "1") ahead of all others. Objects are read as
// Maps, which keep the source order exactly. The parser also rejects
// duplicate member names (I-JSON, which RFC 8785 requires).

import { createHash, createPrivateKey, createPublicKey, sign, verify } from "node:crypto";

const PROTOCOL = "referee-adapter/1";
const SUITE = "cgp-vectors";
const HELLO = {
  name: "cgp-vectors-node",
  version: "1.0.0",
  ops: ["normalizeFrame", "normalizeQuery", "canonicalize", "digest", "checkFrame", "recordHash", "signRecordAttestation", "verifyRecordAttestation", "rangeDigest"],
  concurrency: 1,
};

// The digest profile's allow-lists. content_digest (frames) and
// representation_preferences (queries) are deliberately not in them.
const FRAME_MEMBERS = new Set([
  "id", "kind", "title", "content", "uri", "representation", "content_fidelity",
  "canonical_content_hash", "content_ref", "transform", "minimum_content_fidelity",
  "inline_content_requirement", "score", "token_cost", "canonical_token_cost",
  "tokenizer_ref", "valid_from", "valid_to", "recorded_at", "provenance",
  "citation_label", "embedding", "relations",
]);
const PROVENANCE_MEMBERS = new Set(["type", "uri", "range", "digest", "method", "by"]);
const EMBEDDING_MEMBERS = new Set(["fingerprint", "vector"]);
const RELATION_MEMBERS = new Set(["rel", "target_uri", "display_name"]);
const QUERY_MEMBERS = new Set([
  "goal", "query_text", "embedding", "kinds", "anchors", "max_frames", "max_tokens", "as_of",
]);

// Reject is an answer of err; extra holds further members of err (path).
class Reject extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.code = code;
    this.extra = extra;
  }
}

const isObject = (v) => v instanceof Map;

/* ------------------------------------------------------------------ */
/* JSON reader: RFC 8259, objects as Maps                              */
/* ------------------------------------------------------------------ */

const WS_RE = /[ \t\n\r]*/y;
const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// A string token: no raw control characters, only the RFC 8259 escapes.
const STRING_RE = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

// parseJSON reads one JSON text. Numbers become doubles (Number of the lexeme
// rounds correctly; a lexeme beyond double range becomes ±Infinity, which the
// canonical writer rejects). Strings keep lone surrogate escapes as lone code
// units, which the canonical writer rejects too. It throws a SyntaxError.
function parseJSON(text) {
  let pos = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at offset ${pos}`);
  };
  const skip = () => {
    WS_RE.lastIndex = pos;
    WS_RE.exec(text);
    pos = WS_RE.lastIndex;
  };
  const token = (re, what) => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m === null) fail(`invalid ${what}`);
    pos = re.lastIndex;
    return m[0];
  };
  const literal = (word, v) => {
    if (!text.startsWith(word, pos)) fail("invalid literal");
    pos += word.length;
    return v;
  };
  const value = (depth) => {
    if (depth > 10000) fail("nesting too deep");
    skip();
    const c = text[pos];
    if (c === "{") {
      pos++;
      const m = new Map();
      skip();
      if (text[pos] === "}") {
        pos++;
        return m;
      }
      for (;;) {
        skip();
        if (text[pos] !== '"') fail("expected a member name");
        const key = JSON.parse(token(STRING_RE, "string"));
        if (m.has(key)) fail(`duplicate member name ${JSON.stringify(key)}`);
        skip();
        if (text[pos] !== ":") fail("expected ':'");
        pos++;
        m.set(key, value(depth + 1));
        skip();
        if (text[pos] === ",") {
          pos++;
        } else if (text[pos] === "}") {
          pos++;
          return m;
        } else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      pos++;
      const a = [];
      skip();
      if (text[pos] === "]") {
        pos++;
        return a;
      }
      for (;;) {
        a.push(value(depth + 1));
        skip();
        if (text[pos] === ",") {
          pos++;
        } else if (text[pos] === "]") {
          pos++;
          return a;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return JSON.parse(token(STRING_RE, "string"));
    if (c === "t") return literal("true", true);
    if (c === "f") return literal("false", false);
    if (c === "n") return literal("null", null);
    if (c === "-" || (c >= "0" && c <= "9")) return Number(token(NUMBER_RE, "number"));
    return fail(pos >= text.length ? "unexpected end of text" : "unexpected character");
  };
  const v = value(0);
  skip();
  if (pos !== text.length) fail("trailing data");
  return v;
}

/* ------------------------------------------------------------------ */
/* RFC 8785 writer                                                     */
/* ------------------------------------------------------------------ */

// canonicalString writes a string as RFC 8785 does. Node 20's JSON.stringify
// escapes `"`, `\`, \b \t \n \f \r and other C0 controls as lowercase \u00xx
// and writes everything else raw, which is exactly RFC 8785's form. A lone
// surrogate has no UTF-8 form, so it has no canonical text.
function canonicalString(s) {
  if (!s.isWellFormed()) throw new Reject("not_canonicalizable", `string ${JSON.stringify(s)} holds a lone surrogate`);
  return JSON.stringify(s);
}

// canonical returns the RFC 8785 text of a value: members sorted by UTF-16
// code units (the default Array.prototype.sort order), numbers in ECMAScript
// Number::toString form (-0 gives "0"), arrays in order, no whitespace.
function canonical(v) {
  const out = [];
  const write = (v) => {
    if (v === null) out.push("null");
    else if (v === true) out.push("true");
    else if (v === false) out.push("false");
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new Reject("not_canonicalizable", "a number beyond the range of a double");
      out.push(String(v));
    } else if (typeof v === "string") out.push(canonicalString(v));
    else if (Array.isArray(v)) {
      out.push("[");
      v.forEach((x, i) => {
        if (i > 0) out.push(",");
        write(x);
      });
      out.push("]");
    } else if (isObject(v)) {
      out.push("{");
      [...v.keys()].sort().forEach((k, i) => {
        if (i > 0) out.push(",");
        out.push(canonicalString(k), ":");
        write(v.get(k));
      });
      out.push("}");
    } else throw new Reject("internal", `unexpected value of type ${typeof v}`);
  };
  write(v);
  return out.join("");
}

const digestOf = (v) => "sha256:" + createHash("sha256").update(canonical(v), "utf8").digest("hex");

/* ------------------------------------------------------------------ */
/* the digest profile: strict parse and normalisation                  */
/* ------------------------------------------------------------------ */

const typeName = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : isObject(v) ? "an object" : `a ${typeof v}`);

function shape(path, want, v) {
  return new Reject("invalid_shape", `${path} is ${want}, not ${typeName(v)}`);
}

// strictMembers walks an object's members in source order and throws
// unknown_field for the first one outside allowed. nested maps a known
// member name to a check of its value, run as soon as the member is met, so
// the first unknown member is found depth first (serde's deny_unknown_fields).
function strictMembers(path, obj, allowed, nested = {}) {
  if (!isObject(obj)) throw shape(path, "an object", obj);
  for (const [k, v] of obj) {
    const p = `${path}.${k}`;
    if (!allowed.has(k)) throw new Reject("unknown_field", `unknown field ${p}`, { path: p });
    if (nested[k]) nested[k](p, v);
  }
}

// strictList checks an array of objects, each against allowed.
const strictList = (allowed) => (path, v) => {
  if (!Array.isArray(v)) throw shape(path, "an array of objects", v);
  v.forEach((entry, i) => strictMembers(`${path}[${i}]`, entry, allowed));
};

const FRAME_NESTED = {
  provenance: strictList(PROVENANCE_MEMBERS),
  relations: strictList(RELATION_MEMBERS),
  embedding: (path, v) => strictMembers(path, v, EMBEDDING_MEMBERS),
};

// materialise returns a copy of obj with each absent name set to []. Nothing
// else is added: absent optional members stay absent, null is never inserted.
function materialise(obj, names) {
  const out = new Map(obj);
  for (const n of names) if (!out.has(n)) out.set(n, []);
  return out;
}

function normalizeFrame(frame) {
  strictMembers("frame", frame, FRAME_MEMBERS, FRAME_NESTED);
  return materialise(frame, ["provenance", "relations"]);
}

function normalizeQuery(query) {
  strictMembers("query", query, QUERY_MEMBERS);
  return materialise(query, ["kinds", "anchors"]);
}

/* ------------------------------------------------------------------ */
/* frame validity: F3                                                  */
/* ------------------------------------------------------------------ */

// Blank is empty after trimming Unicode White_Space from both ends (Rust's
// str::trim). JS's \s and String.prototype.trim differ from White_Space: they
// include U+FEFF and leave out U+0085, so the property is named explicitly.
const BLANK_RE = /^\p{White_Space}*$/u;

// checkFrame reads the frame as a general ContextFrame: no allow-lists.
function checkFrame(frame) {
  if (!isObject(frame)) return { valid: false, rule: "shape", field: "", message: `a frame is an object, not ${typeName(frame)}` };
  const bad = (message) => ({ valid: false, rule: "F3", field: "citation_label", message: `citation_label ${message}` });
  if (!frame.has("citation_label")) return bad("is missing");
  const label = frame.get("citation_label");
  if (typeof label !== "string") return bad(`is ${typeName(label)}, not a string`);
  if (BLANK_RE.test(label)) return bad(`is blank (${JSON.stringify(label)})`);
  return { valid: true };
}

/* ------------------------------------------------------------------ */
/* protocol                                                            */
/* ------------------------------------------------------------------ */

// arg returns args[name], or throws bad_args if args has no such member.
function arg(args, name) {
  if (!isObject(args) || !args.has(name)) throw new Reject("bad_args", `args.${name} is required`);
  return args.get(name);
}

// valueArg returns args.value, or args.value_text parsed.
function valueArg(args) {
  if (isObject(args) && !args.has("value") && args.has("value_text")) {
    const text = args.get("value_text");
    if (typeof text !== "string") throw new Reject("bad_args", "args.value_text must be a string");
    try {
      return parseJSON(text);
    } catch (e) {
      throw new Reject("invalid_json", `value_text: ${e.message}`);
    }
  }
  return arg(args, "value");
}

/* ------------------------------------------------------------------ */
/* lifecycle records: record_hash and record attestations              */
/* ------------------------------------------------------------------ */

const recordHash = (record) => {
  const rest = new Map(record);
  rest.delete("record_hash"); // removed, not blanked; only at the top level
  return digestOf(rest);
};

const DOMAIN = Buffer.from("contextgraph/attest/1/record", "utf8");
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

function hexArg(args, key, size) {
  const v = arg(args, key);
  if (typeof v !== "string" || !/^[0-9a-f]*$/.test(v) || v.length !== size * 2) {
    throw new Reject("bad_args", `args.${key} must be ${size} bytes of lowercase hex`);
  }
  return Buffer.from(v, "hex");
}

// The encodings of the eight points P with 8P = identity.
const SMALL_ORDER = new Set([
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0000000000000000000000000000000000000000000000000000000000000080",
  "0100000000000000000000000000000000000000000000000000000000000000",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
]);

// weakPoint: small order, or y (sign bit masked) not below 2^255 - 19.
function weakPoint(p) {
  if (SMALL_ORDER.has(p.toString("hex"))) return true;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? p[i] & 0x7f : p[i]);
  return y >= (1n << 255n) - 19n;
}

// attestationMessage is the domain tag followed by the hash's 32 raw bytes.
function attestationMessage(hash) {
  const m = typeof hash === "string" ? /^sha256:([0-9a-f]{64})$/.exec(hash) : null;
  if (!m) throw new Reject("bad_args", "signed_record_hash must be sha256: and 64 lowercase hex digits");
  return Buffer.concat([DOMAIN, Buffer.from(m[1], "hex")]);
}

// verifyAttestation checks the shape, then the commitment, then the signature.
function verifyAttestation(record, att, publicKey) {
  const refuse = (reason, message) => ({ valid: false, reason, message });
  if (!isObject(record)) throw new Reject("bad_args", "args.record must be an object");
  if (!isObject(att)) return refuse("malformed", "an attestation is an object");
  for (const k of ["signed_record_hash", "key_id", "algorithm", "attester_id", "signature", "issued_at"]) {
    if (typeof att.get(k) !== "string") return refuse("malformed", `${k} is missing or not a string`);
  }
  if (att.get("algorithm") !== "ed25519") return refuse("malformed", "algorithm is not ed25519");
  if (!/^sha256:[0-9a-f]{64}$/.test(att.get("signed_record_hash"))) {
    return refuse("malformed", "signed_record_hash is not sha256: and 64 lowercase hex digits");
  }
  const want = recordHash(record);
  if (att.get("signed_record_hash") !== want) {
    return refuse("commitment_mismatch", `signed_record_hash is not the record's hash ${want}`);
  }
  const sig = att.get("signature");
  if (!/^[0-9a-fA-F]{128}$/.test(sig)) return refuse("signature_invalid", "the signature is not 64 bytes of hex");
  // Node's OpenSSL, like Go's crypto/ed25519, accepts small-order and
  // non-canonical points; a strict verifier refuses them, in the key and in R.
  if (weakPoint(publicKey) || weakPoint(Buffer.from(sig.slice(0, 64), "hex"))) {
    return refuse("signature_invalid", "the key or R is a small-order or non-canonical point");
  }
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: "der", type: "spki" });
  if (!verify(null, attestationMessage(want), key, Buffer.from(sig, "hex"))) {
    return refuse("signature_invalid", "the signature does not verify under the key");
  }
  return { valid: true };
}

/* ------------------------------------------------------------------ */
/* provenance line ranges (F17)                                        */
/* ------------------------------------------------------------------ */

// rangeBytes returns the bytes a range addresses, or the reason it addresses
// none. Lines end at LF only and keep it; the end is inclusive and clamps.
// Numbers are BigInts: an end may be larger than any Number.
function rangeBytes(resource, range) {
  if (range === undefined) return resource;
  const m = /^L([1-9][0-9]*)(?:-([1-9][0-9]*))?$/.exec(range);
  if (!m) return "unrecognised";
  const start = BigInt(m[1]);
  let end = m[2] === undefined ? start : BigInt(m[2]);
  if (end < start) return "inverted";
  const lines = [];
  for (let i = 0; i < resource.length; ) {
    const lf = resource.indexOf(0x0a, i);
    const next = lf < 0 ? resource.length : lf + 1;
    lines.push(resource.subarray(i, next));
    i = next;
  }
  const n = BigInt(lines.length);
  if (start > n) return "start_past_end";
  if (end > n) end = n;
  return Buffer.concat(lines.slice(Number(start) - 1, Number(end)));
}

// handle answers one request; it returns the reply's ok member as JSON text.
function handle(op, args) {
  switch (op) {
    case "hello": {
      const protocol = isObject(args) ? args.get("protocol") : undefined;
      if (protocol !== PROTOCOL) {
        throw new Reject("unsupported_protocol", `want ${PROTOCOL}, got ${JSON.stringify(protocol)}`);
      }
      const suite = args.get("suite");
      if (suite !== undefined && suite !== SUITE) {
        process.stderr.write(`cgp-vectors-node: hello for suite ${JSON.stringify(suite)}; this adapter is for ${SUITE}\n`);
      }
      return JSON.stringify(HELLO);
    }
    case "normalizeFrame":
      return canonical(normalizeFrame(arg(args, "frame")));
    case "normalizeQuery":
      return canonical(normalizeQuery(arg(args, "query")));
    case "canonicalize":
      return JSON.stringify(canonical(valueArg(args)));
    case "digest":
      return JSON.stringify(digestOf(valueArg(args)));
    case "checkFrame":
      return JSON.stringify(checkFrame(arg(args, "frame")));
    case "recordHash": {
      // A lifecycle record's hash: the member is removed, not blanked, and
      // only at the top level; every other member, known or not, is content.
      const record = arg(args, "record");
      if (!isObject(record)) throw new Reject("bad_args", "args.record must be an object");
      return JSON.stringify(recordHash(record));
    }
    case "signRecordAttestation": {
      const seed = hexArg(args, "seed", 32);
      const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
      return JSON.stringify(sign(null, attestationMessage(arg(args, "signed_record_hash")), key).toString("hex"));
    }
    case "verifyRecordAttestation":
      return JSON.stringify(verifyAttestation(arg(args, "record"), arg(args, "attestation"), hexArg(args, "public_key", 32)));
    case "rangeDigest": {
      const resource = arg(args, "resource");
      const range = args.get("range");
      if (typeof resource !== "string" || (range !== undefined && typeof range !== "string")) {
        throw new Reject("bad_args", "args.resource (and args.range, when given) must be strings");
      }
      const out = rangeBytes(Buffer.from(resource, "utf8"), range);
      if (typeof out === "string") return JSON.stringify({ unverifiable: out });
      return JSON.stringify({ bytes: out.toString("utf8"), digest: "sha256:" + createHash("sha256").update(out).digest("hex") });
    }
    default:
      throw new Reject("unknown_op", `unknown op ${JSON.stringify(op)}`);
  }
}

const errLine = (id, code, message, extra = {}) => JSON.stringify({ id, err: { code, message, ...extra } }) + "\n";

const lineDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// onLine answers one request line.
function onLine(bytes) {
  let req;
  try {
    req = parseJSON(lineDecoder.decode(bytes));
  } catch (e) {
    process.stderr.write(`cgp-vectors-node: bad request line: ${e.message}\n`);
    return errLine(null, "bad_request", `request is not a JSON object line: ${e.message}`);
  }
  const id = isObject(req) && Number.isInteger(req.get("id")) ? req.get("id") : null;
  if (id === null || typeof req.get("op") !== "string") {
    return errLine(id, "bad_request", "a request needs an integer id and a string op");
  }
  try {
    return `{"id":${id},"ok":${handle(req.get("op"), req.get("args"))}}\n`;
  } catch (e) {
    if (e instanceof Reject) return errLine(id, e.code, e.message, e.extra);
    process.stderr.write(`cgp-vectors-node: request ${id}: ${e.stack}\n`);
    return errLine(id, "internal", String(e.message));
  }
}

// isBlankLine reports whether a line holds only spaces, tabs and carriage returns.
const isBlankLine = (line) => line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);

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
    if (!isBlankLine(line)) process.stdout.write(onLine(line));
  }
  if (start < chunk.length) pending.push(chunk.subarray(start));
});
process.stdin.on("end", () => {
  const line = Buffer.concat(pending);
  if (!isBlankLine(line)) process.stdout.write(onLine(line));
});
