// cgp-vectors.mjs: a referee-adapter/1 adapter for referee's "cgp-vectors"
// suite, in Node.js (version 20 or later, no npm packages). It is a small,
// self-contained implementation of the Context Graph Protocol's digest profile
// (fixture profile 1.1.0): the strict parse of a ContextFrame and a
// ContextQuery with their allow-lists, the normalisation that materialises
// omitted arrays, RFC 8785 canonicalisation, the sha256: digest of the
// canonical text, the frame-validity rules (F1-F6, P1-P4, Q2, D1, G1, G2
// and B3's token cost), lifecycle record hashes and attestations, provenance line ranges,
// frame provenance attestation (the link encoding, chain heads, frame
// commitments, RFC 6962 roots and proofs, Ed25519 with a strict key check)
// and the reference envelopes' exact serialisation.
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
//   normalizeFrame {frame: F, frame_text: T} -> ok: the normalised frame, or err
//                                       {code: "unknown_field", path: "frame...."}
//   normalizeQuery {query: Q, query_text: T} -> ok: the normalised query, or err
//                                       {code: "unknown_field", path: "query...."}
//                  (T, when sent, is F's or Q's exact text, read in place of it)
//   canonicalize   {value: V}        -> ok: the RFC 8785 text of V, as a string
//                  {value_text: T}   -> the same, for the JSON text T
//   digest         {value: V}        -> ok: "sha256:" + hex(SHA-256(RFC 8785 text))
//   checkFrame     {frame: F, frame_text: T} -> ok: {valid: true, violations: []}, or
//                                       {valid: false, rule, field, message (of the first),
//                                        violations: [{rule, field, message}, ...]}
//   recordHash     {record: R}       -> ok: "sha256:" + hex(SHA-256(RFC 8785 text of R
//                                       without its top-level record_hash member))
//   signRecordAttestation {seed, signed_record_hash}        -> ok: hex Ed25519 signature
//   verifyRecordAttestation {record, attestation, public_key} -> ok: {valid: true}, or
//                                       {valid: false, reason: "commitment_mismatch" |
//                                        "signature_invalid" | "malformed"}
//   rangeDigest    {resource, range?} -> ok: {bytes, digest} of the lines the range
//                                       addresses, or {unverifiable: reason}
//   encodeLink     {link}            -> ok: the link's attestation encoding, hex
//   chainHead      {links}           -> ok: "sha256:..." the chain's head
//   frameCommitment {provider_id, frame} -> ok: "sha256:..." the frame's commitment
//   merkleRoot     {leaves}          -> ok: "sha256:..." the RFC 6962 root, leaves as given
//   resultRoot     {provider_id, frames} -> ok: the root over the frames' commitments
//                                       in canonical FrameId order
//   inclusionProof {leaves, index}   -> ok: {leaf_index, leaf_count, path}
//   verifyInclusion {leaf, proof, root} -> ok: {valid: true} or {valid: false, message}
//   signCommitment {seed, commitment} -> ok: hex Ed25519 signature of the 32 raw bytes
//   verifyAttestation {attestation, expected_commitment, public_key} -> ok: the
//                                       verdict's name ("Valid", "MalformedKey", ...)
//   roundTripEnvelope {line}         -> ok: the envelope written again as the
//                                       reference serializer (serde_json) writes it
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
  ops: [
    "normalizeFrame", "normalizeQuery", "canonicalize", "digest", "checkFrame", "recordHash", "signRecordAttestation",
    "verifyRecordAttestation", "rangeDigest", "encodeLink", "chainHead", "frameCommitment", "merkleRoot", "resultRoot",
    "inclusionProof", "verifyInclusion", "signCommitment", "verifyAttestation", "roundTripEnvelope",
  ],
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
/* frame validity: F1-F6, P1-P4, Q2, D1, G1, G2, B3                    */
/* ------------------------------------------------------------------ */

// Blank is empty after trimming Unicode White_Space from both ends (Rust's
// str::trim). JS's \s and String.prototype.trim differ from White_Space: they
// include U+FEFF and leave out U+0085, so the property is named explicitly.
const BLANK_RE = /^\p{White_Space}*$/u;
const blank = (s) => BLANK_RE.test(s);

// The ContextFrame wire type, as a served frame is read: each member's type
// and whether it is required. Members not listed are ignored; null for an
// optional member is absent. A frame that does not fit is a shape error.
class ShapeError extends Error {}
const T = {
  str: (v, where) => {
    if (typeof v !== "string") throw new ShapeError(`${where} is ${typeName(v)}, not a string`);
    return v;
  },
  // score is an f32: the number as the nearest f32.
  f32: (v, where) => {
    if (typeof v !== "number" || !Number.isFinite(Math.fround(v))) throw new ShapeError(`${where} is ${typeName(v)}, not an f32`);
    return Math.fround(v);
  },
  u32: (v, where) => {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new ShapeError(`${where} is ${typeof v === "number" ? v : typeName(v)}, not an unsigned 32-bit integer`);
    return v;
  },
  any: (v) => v,
};
const struct = (members) => (v, where) => {
  if (!isObject(v)) throw new ShapeError(`${where} is ${typeName(v)}, not an object`);
  const out = {};
  for (const [name, [type, required]] of Object.entries(members)) {
    const x = v.has(name) ? v.get(name) : undefined;
    if (x === undefined || x === null) {
      if (required) throw new ShapeError(`${where}.${name} is ${x === null ? "null" : "missing"}`);
      continue;
    }
    out[name] = type(x, `${where}.${name}`);
  }
  return out;
};
const listOf = (type) => (v, where) => {
  if (!Array.isArray(v)) throw new ShapeError(`${where} is ${typeName(v)}, not an array`);
  return v.map((e, i) => type(e, `${where}[${i}]`));
};
const readContextFrame = struct({
  id: [T.str, true], kind: [T.str, true], title: [T.str, true],
  content: [T.str], content_digest: [T.str], uri: [T.str], representation: [T.str],
  content_fidelity: [T.str], canonical_content_hash: [T.str],
  content_ref: [struct({ provider_id: [T.str, true], uri: [T.str, true], expires_at: [T.str] })],
  transform: [struct({ method: [T.str, true], implementation: [T.str, true], version: [T.str, true] })],
  minimum_content_fidelity: [T.str], inline_content_requirement: [T.str],
  score: [T.f32, true], token_cost: [T.u32, true], canonical_token_cost: [T.u32], tokenizer_ref: [T.str],
  valid_from: [T.str], valid_to: [T.str], recorded_at: [T.str],
  provenance: [listOf(struct({ type: [T.str, true], uri: [T.str], range: [T.str], digest: [T.str], method: [T.str], by: [T.str] }))],
  citation_label: [T.str],
  embedding: [struct({ fingerprint: [T.str, true], vector: [listOf(T.f32)] })],
  relations: [listOf(struct({ rel: [T.str, true], target_uri: [T.str, true], display_name: [T.str] }))],
  attestation: [T.any],
});

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;
const TIMESTAMP_RE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?Z$/;

// instant reads an F4 timestamp: YYYY-MM-DDTHH:MM:SS(.f+)?Z, uppercase T and
// Z, a real Gregorian date, second 60 allowed (a leap second, RFC 3339
// §5.7: after second 59 and before the next minute). It returns [the
// minute's start in seconds since the epoch, the second, fraction digits],
// or null. Not Date.parse: it takes other formats and refuses second 60;
// not Date.UTC with second 60 either: that is the next minute's first
// second, so 23:59:60.5 would fall after the next midnight.
function instant(s) {
  const m = TIMESTAMP_RE.exec(s);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (month < 1 || month > 12 || day < 1 || day > days[month - 1] || hour > 23 || minute > 59 || second > 60) return null;
  return [Date.UTC(year, month - 1, day, hour, minute) / 1000, second, (m[7] ?? "").replace(/0+$/, "")];
}

// after reports whether instant a is strictly after instant b. Timestamps
// are not compared as strings: "…00.5Z" is after "…00Z" though '.' < 'Z'.
function after(a, b) {
  if (a[0] !== b[0]) return a[0] > b[0];
  if (a[1] !== b[1]) return a[1] > b[1];
  const n = Math.max(a[2].length, b[2].length);
  return a[2].padEnd(n, "0") > b[2].padEnd(n, "0");
}

const sha256Text = (s) => "sha256:" + createHash("sha256").update(s, "utf8").digest("hex");

// frameViolations applies every frame rule to a decoded frame. Absence is
// tested with === undefined, never truthiness: content "" is content.
function frameViolations(f) {
  const out = [];
  const add = (rule, field, message) => out.push({ rule, field, message });
  const has = (k) => f[k] !== undefined;
  if (!(f.score >= 0 && f.score <= 1)) add("F1", "score", `score ${f.score} is outside [0,1]`);
  if (blank(f.title)) add("F2", "title", "the title is blank");
  if (!has("citation_label") || blank(f.citation_label)) add("F3", "citation_label", "citation_label is missing or blank");

  const rep = has("representation") ? f.representation : "full";
  const need = (rule, members) => {
    const missing = members.filter((k) => !has(k));
    if (missing.length > 0) add(rule, missing[0], `a ${rep} frame lacks ${missing.join(", ")}`);
  };
  if (rep === "full") need("P1", ["content"]);
  else if (rep === "compact") need("P2", ["content", "content_digest", "canonical_content_hash", "transform", "content_ref"]);
  else if (rep === "reference") {
    need("P3", ["content_ref", "canonical_content_hash"]);
    const present = ["content", "content_digest", "transform"].filter(has);
    if (present.length > 0) add("P3", present[0], `a reference frame carries ${present.join(", ")}`);
    if (f.token_cost !== 0) add("P4", "token_cost", `a reference frame costs 0, not ${f.token_cost}`);
  } else add("P1", "representation", `representation ${JSON.stringify(rep)} is none of full, compact, reference`);

  const stamps = [["valid_from", f.valid_from], ["valid_to", f.valid_to], ["recorded_at", f.recorded_at], ["content_ref.expires_at", f.content_ref?.expires_at]];
  for (const [name, v] of stamps) {
    if (v !== undefined && instant(v) === null) add("F4", name, `${name} ${JSON.stringify(v)} is not an RFC 3339 UTC timestamp with a real date`);
  }
  if (has("valid_from") && has("valid_to")) {
    const from = instant(f.valid_from);
    const to = instant(f.valid_to);
    if (from !== null && to !== null && !after(to, from)) add("Q2", "valid_to", "valid_to is not after valid_from: an empty validity window");
  }

  if (has("content_digest")) {
    if (!DIGEST_RE.test(f.content_digest)) add("D1", "content_digest", "content_digest is not sha256: and 64 lowercase hex");
    else if (has("content") && sha256Text(f.content) !== f.content_digest) add("D1", "content_digest", "content_digest is not the SHA-256 of the content's UTF-8 bytes");
  }
  if (has("canonical_content_hash") && !DIGEST_RE.test(f.canonical_content_hash)) add("D1", "canonical_content_hash", "canonical_content_hash is not sha256: and 64 lowercase hex");
  (f.provenance ?? []).forEach((l, i) => {
    if (l.type === "file" && (l.digest === undefined || !DIGEST_RE.test(l.digest))) add("F5", `provenance[${i}].digest`, "a file link's digest is missing or not sha256: and 64 lowercase hex");
  });
  (f.relations ?? []).forEach((r, i) => {
    if (r.display_name === undefined || blank(r.display_name)) add("G1", `relations[${i}].display_name`, "a relation without a display_name");
    if (blank(r.target_uri)) add("G2", `relations[${i}].target_uri`, "a relation with a blank target_uri");
  });
  if (has("attestation")) add("F6", "attestation", "a frame carries no attestation member; attestations travel in result.frame_attestations");

  // B3: UTF-8 bytes, not s.length (UTF-16 code units) nor code points.
  const cost = has("content") ? Math.ceil(Buffer.byteLength(f.content, "utf8") / 4) : 0;
  if (f.token_cost !== cost) add("B3", "token_cost", `token_cost ${f.token_cost} is not ceil(UTF-8 bytes of content / 4) = ${cost}`);
  return out;
}

// checkFrame reads the frame as a general ContextFrame (no allow-lists) and
// answers every violation; rule, field and message of the first stand on
// the reply too.
function checkFrame(frame) {
  let violations;
  try {
    // Vecs and the representation have defaults, but are not Options: null
    // is no value for them.
    for (const name of ["provenance", "relations", "representation"]) {
      if (isObject(frame) && frame.get(name) === null) throw new ShapeError(`frame.${name} is null`);
    }
    violations = frameViolations(readContextFrame(frame, "frame"));
  } catch (e) {
    if (!(e instanceof ShapeError)) throw e;
    violations = [{ rule: "shape", field: "", message: e.message }];
  }
  if (violations.length === 0) return { valid: true, violations: [] };
  return { valid: false, ...violations[0], violations };
}

/* ------------------------------------------------------------------ */
/* protocol                                                            */
/* ------------------------------------------------------------------ */

// arg returns args[name], or throws bad_args if args has no such member.
function arg(args, name) {
  if (!isObject(args) || !args.has(name)) throw new Reject("bad_args", `args.${name} is required`);
  return args.get(name);
}

// textOrValue returns args[name + "_text"] read with the strict reader when
// referee sent it, else args[name]. The text keeps what a verdict turns on
// and JSON.parse would lose: member order (integer-like names first in a JS
// object), duplicate members.
function textOrValue(args, name) {
  if (isObject(args) && args.has(name + "_text")) {
    const text = args.get(name + "_text");
    if (typeof text !== "string") throw new Reject("bad_args", `args.${name}_text must be a string`);
    try {
      return parseJSON(text);
    } catch (e) {
      throw new Reject("invalid_json", `${name}_text: ${e.message}`);
    }
  }
  return arg(args, name);
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

const P = (1n << 255n) - 19n;
const D = (((P - 121665n) * modPow(121666n, P - 2n)) % P + P) % P;

function modPow(b, e) {
  let r = 1n;
  b %= P;
  for (; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
}

// weakPoint: what a strict verifier refuses to decode as a key or R (RFC
// 8032 §5.1.3 and SPEC §6.5.4): y (sign bit masked) not below 2^255 - 19, a
// y with no x on the curve, x = 0 with the sign bit set, or small order.
// Node's OpenSSL accepts all of them but the y off the curve.
function weakPoint(p) {
  if (SMALL_ORDER.has(p.toString("hex"))) return true;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? p[i] & 0x7f : p[i]);
  if (y >= P) return true;
  const y2 = (y * y) % P;
  const x2 = ((((y2 - 1n) % P) + P) % P) * modPow((D * y2 + 1n) % P, P - 2n) % P;
  if (x2 === 0n) return (p[31] & 0x80) !== 0; // x = 0: the sign bit must be clear
  return modPow(x2, (P - 1n) / 2n) !== 1n; // no square root: off the curve
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

/* ------------------------------------------------------------------ */
/* frame provenance attestation (SPEC 6.5)                             */
/* ------------------------------------------------------------------ */

const TAG_GENESIS = Buffer.from("contextgraph/attest/1/genesis", "utf8");
const TAG_LINK = Buffer.from("contextgraph/attest/1/link", "utf8");
const TAG_FRAME = Buffer.from("contextgraph/attest/1/frame", "utf8");
const TAG_MERKLE_EMPTY = Buffer.from("contextgraph/attest/1/merkle-empty", "utf8");
const LINK_OPTIONALS = ["uri", "range", "digest", "method", "by"];

const sha256 = (...parts) => createHash("sha256").update(Buffer.concat(parts)).digest();
const hashText = (h) => "sha256:" + h.toString("hex");

// parseHash reads "sha256:" and 64 lowercase hex digits as 32 bytes.
function parseHash(v, where) {
  const m = typeof v === "string" ? /^sha256:([0-9a-f]{64})$/.exec(v) : null;
  if (!m) throw new Reject("bad_args", `${where} must be sha256: and 64 lowercase hex digits`);
  return Buffer.from(m[1], "hex");
}

// encStr is u32be(UTF-8 byte length) and the UTF-8 bytes. The length is of
// the bytes: s.length counts UTF-16 code units, which differs beyond ASCII.
function encStr(s) {
  const b = Buffer.from(s, "utf8");
  const n = Buffer.alloc(4);
  n.writeUInt32BE(b.length);
  return Buffer.concat([n, b]);
}

// encOpt is 00 for an absent value and 01 then encStr for a present one,
// "" included: absent and empty are different (never test truthiness).
const encOpt = (s) => (s === undefined ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), encStr(s)]));

// readLink reads a provenance link; an absent or null member is None.
function readLink(v, where) {
  if (!isObject(v) || typeof v.get("type") !== "string") throw new Reject("bad_args", `${where} must be a link with a string type`);
  const link = { type: v.get("type") };
  for (const k of LINK_OPTIONALS) {
    const x = v.get(k);
    if (x === undefined || x === null) continue;
    if (typeof x !== "string") throw new Reject("bad_args", `${where}.${k} must be a string`);
    link[k] = x;
  }
  return link;
}

function readLinks(v, where) {
  if (!Array.isArray(v)) throw new Reject("bad_args", `${where} must be an array of links`);
  return v.map((l, i) => readLink(l, `${where}[${i}]`));
}

const encodeLink = (l) => Buffer.concat([encStr(l.type), ...LINK_OPTIONALS.map((k) => encOpt(l[k]))]);

// chainHead folds the links, source first, from the genesis hash.
function chainHead(links) {
  let h = sha256(TAG_GENESIS);
  for (const l of links) h = sha256(TAG_LINK, h, encodeLink(l));
  return h;
}

// readFrame reads what of a frame enters its commitment: id, content_digest
// and provenance. Any other member is ignored.
function readFrame(v, where) {
  if (!isObject(v) || typeof v.get("id") !== "string") throw new Reject("bad_args", `${where} must be a frame with a string id`);
  const digest = v.get("content_digest");
  if (digest !== undefined && digest !== null && typeof digest !== "string") throw new Reject("bad_args", `${where}.content_digest must be a string`);
  const prov = v.get("provenance");
  return {
    id: v.get("id"),
    contentDigest: digest === null ? undefined : digest,
    provenance: prov === undefined || prov === null ? [] : readLinks(prov, `${where}.provenance`),
  };
}

const frameCommitment = (providerID, f) =>
  sha256(TAG_FRAME, encStr(providerID), encStr(f.id), encOpt(f.contentDigest), chainHead(f.provenance));

// The RFC 6962 tree: leaf = SHA-256(00 || c), node = SHA-256(01 || l || r),
// split at the largest power of two below n; the empty tree has its own tag.
const leafHash = (c) => sha256(Buffer.from([0]), c);
const nodeHash = (l, r) => sha256(Buffer.from([1]), l, r);
function splitPoint(n) {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
function subtree(leaves) {
  if (leaves.length === 1) return leafHash(leaves[0]);
  const k = splitPoint(leaves.length);
  return nodeHash(subtree(leaves.slice(0, k)), subtree(leaves.slice(k)));
}
const merkleRoot = (leaves) => (leaves.length === 0 ? sha256(TAG_MERKLE_EMPTY) : subtree(leaves));

// prove returns the audit path of leaves[index], the sibling nearest the leaf first.
function prove(leaves, index) {
  const path = [];
  const walk = (ls, i) => {
    if (ls.length === 1) return;
    const k = splitPoint(ls.length);
    if (i < k) {
      walk(ls.slice(0, k), i);
      path.push({ sibling: hashText(subtree(ls.slice(k))), sibling_is_left: false });
    } else {
      walk(ls.slice(k), i - k);
      path.push({ sibling: hashText(subtree(ls.slice(0, k))), sibling_is_left: true });
    }
  };
  walk(leaves, index);
  return { leaf_index: index, leaf_count: leaves.length, path };
}

// proofLeadsTo replays a proof. The sides it takes must be the ones
// leaf_index and leaf_count imply: a flipped sibling_is_left, or a
// leaf_index the path does not fit, is refused even if the hashes meet.
function proofLeadsTo(leaf, proof, root) {
  if (!isObject(proof)) return false;
  const index = proof.get("leaf_index");
  const count = proof.get("leaf_count");
  const path = proof.get("path");
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(count) || index < 0 || index >= count || !Array.isArray(path)) return false;
  const sides = [];
  for (let i = index, n = count; n > 1; ) {
    const k = splitPoint(n);
    if (i < k) {
      sides.push(false);
      n = k;
    } else {
      sides.push(true);
      i -= k;
      n -= k;
    }
  }
  sides.reverse();
  if (sides.length !== path.length) return false;
  let h = leafHash(leaf);
  for (let i = 0; i < path.length; i++) {
    const step = path[i];
    if (!isObject(step) || step.get("sibling_is_left") !== sides[i]) return false;
    const m = typeof step.get("sibling") === "string" ? /^sha256:([0-9a-f]{64})$/.exec(step.get("sibling")) : null;
    if (!m) return false;
    const sib = Buffer.from(m[1], "hex");
    h = sides[i] ? nodeHash(sib, h) : nodeHash(h, sib);
  }
  return h.equals(root);
}

// compareFrameIds is the canonical FrameId order: frame id, then
// content_digest with absent first (the provider is the same for all).
// Strings compare by UTF-8 bytes, as Rust's String does; JavaScript's < and
// localeCompare compare UTF-16 code units, which puts U+1F600 before U+FF61.
function compareFrameIds(a, b) {
  const byBytes = (x, y) => Buffer.compare(Buffer.from(x, "utf8"), Buffer.from(y, "utf8"));
  const c = byBytes(a.id, b.id);
  if (c !== 0) return c;
  if (a.contentDigest === undefined || b.contentDigest === undefined) {
    return (a.contentDigest === undefined ? 0 : 1) - (b.contentDigest === undefined ? 0 : 1);
  }
  return byBytes(a.contentDigest, b.contentDigest);
}

function hashesArg(v, where) {
  if (!Array.isArray(v)) throw new Reject("bad_args", `${where} must be an array of sha256: strings`);
  return v.map((h, i) => parseHash(h, `${where}[${i}]`));
}

const privateKey = (seed) => createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });

// verifyProvenance checks an attestation against the commitment the
// verifier computed itself, in the reference's order, and names the verdict.
function verifyProvenance(att, expected, publicKey) {
  const field = (k) => (isObject(att) && typeof att.get(k) === "string" ? att.get(k) : "");
  if (field("algorithm") !== "ed25519") return "UnknownAlgorithm";
  if (typeof publicKey !== "string" || !/^[0-9a-f]{64}$/.test(publicKey)) return "MalformedKey";
  const key = Buffer.from(publicKey, "hex");
  // Node's OpenSSL accepts small-order and non-canonical keys; refuse them
  // explicitly, as a strict verifier (verify_strict) does.
  if (weakPoint(key)) return "MalformedKey";
  const m = /^sha256:([0-9a-f]{64})$/.exec(field("signed_commitment"));
  if (!m) return "MalformedCommitment";
  const signed = Buffer.from(m[1], "hex");
  if (!signed.equals(expected)) return "CommitmentMismatch";
  const sig = field("signature");
  if (!/^[0-9a-f]{128}$/.test(sig)) return "MalformedSignature";
  if (weakPoint(Buffer.from(sig.slice(0, 64), "hex"))) return "BadSignature";
  const spki = createPublicKey({ key: Buffer.concat([SPKI_ED25519, key]), format: "der", type: "spki" });
  return verify(null, signed, spki, Buffer.from(sig, "hex")) ? "Valid" : "BadSignature";
}

/* ------------------------------------------------------------------ */
/* the reference envelopes: serde_json's output, byte for byte         */
/* ------------------------------------------------------------------ */

// formatF32 writes a number read into an f32 as serde_json (ryu's format32)
// does: the shortest digits that read back as the same f32 (of those, the
// nearest, ties to even), ".0" on integral values below 1e13, plain
// decimals down to 1e-6, exponent form (1e13, 1.5e-7) beyond. String(x)
// would write the f64 digits of the widened value (0.10000000149011612) and
// 1 for 1.0; toExponential rounds ties up, where ryu rounds them to even
// (186839.125 is 186839.12).
function formatF32(x) {
  const f = Math.fround(x);
  if (!Number.isFinite(f)) return "null";
  if (f === 0) return Object.is(f, -0) ? "-0.0" : "0.0";
  const sign = f < 0 ? "-" : "";
  const a = Math.abs(f);
  // The exact decimal digits of a (an f32 is exactly a double): 101 of them
  // cover every digit that can decide a tie below ten digits.
  const [m0, e0] = a.toExponential(100).split("e");
  const exact = m0.replace(".", "");
  let digits = "";
  let e = 0;
  for (let p = 1; p <= 9; p++) {
    let d = exact.slice(0, p);
    e = Number(e0);
    const rest = exact.slice(p);
    const up = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || Number(d[p - 1]) % 2 === 1));
    if (up) {
      d = (BigInt(d) + 1n).toString();
      if (d.length > p) {
        d = d.slice(0, p);
        e++;
      }
    }
    if (Math.fround(Number(`${d[0]}.${d.slice(1)}e${e}`)) === a) {
      digits = d.replace(/(?<=.)0+$/, "");
      break;
    }
  }
  const n = digits.length;
  const kk = e + 1; // 10^(kk-1) <= a < 10^kk
  const k = kk - n;
  if (k >= 0 && kk <= 13) return sign + digits + "0".repeat(k) + ".0";
  if (kk > 0 && kk <= 13) return sign + digits.slice(0, kk) + "." + digits.slice(kk);
  if (kk > -6 && kk <= 0) return sign + "0." + "0".repeat(-kk) + digits;
  if (n === 1) return sign + digits + "e" + (kk - 1);
  return sign + digits[0] + "." + digits.slice(1) + "e" + (kk - 1);
}

// The wire types, members in declaration order (the order serde writes).
// req: always written; opt: an Option, omitted when absent or null; skip: a
// Vec omitted when absent or empty.
const list = (of) => ({ list: of });
const WIRE = {
  Envelope: [["type", "str", "req"], ["id", "str", "opt"], ["protocol_version", "str", "opt"], ["provider", "ProviderInfo", "opt"],
    ["capabilities", "Capabilities", "opt"], ["attester_keys", list("AttesterKey"), "skip"], ["query", "ContextQuery", "opt"],
    ["result", "ContextQueryResult", "opt"], ["request", "VerifyRequest", "opt"], ["response", "VerifyResponse", "opt"],
    ["code", "str", "opt"], ["message", "str", "opt"]],
  ProviderInfo: [["name", "str", "req"], ["version", "str", "req"], ["data_flow", "DataFlow", "req"]],
  DataFlow: [["reads", "bool", "req"], ["writes", "bool", "req"], ["egress", "bool", "req"], ["egress_scopes", list("str"), "skip"]],
  Capabilities: [["query", "QueryCapability", "req"], ["correlation", "bool", "req"], ["graph", "bool", "req"],
    ["embeddings_fingerprint", "str", "opt"], ["verify", "bool", "req"], ["representations", list("str"), "skip"], ["resolve", "bool", "req"]],
  QueryCapability: [["kinds", list("str"), "req"]],
  AttesterKey: [["key_id", "str", "req"], ["algorithm", "str", "req"], ["public_key", "str", "req"]],
  ContextQuery: [["goal", "str", "req"], ["query_text", "str", "opt"], ["embedding", list("f32"), "skip"], ["kinds", list("str"), "skip"],
    ["anchors", list("str"), "skip"], ["max_frames", "u32", "req"], ["max_tokens", "u32", "req"], ["as_of", "str", "opt"],
    ["representation_preferences", list("str"), "skip"]],
  ContextQueryResult: [["frames", list("ContextFrame"), "req"], ["truncated", "bool", "req"], ["dropped_estimate", "u32", "opt"],
    ["frame_attestations", list("FrameAttestation"), "skip"], ["result_attestation", "ProvenanceAttestation", "opt"]],
  ContextFrame: [["id", "str", "req"], ["kind", "str", "req"], ["title", "str", "req"], ["content", "str", "opt"],
    ["content_digest", "str", "opt"], ["uri", "str", "opt"], ["representation", "str", "opt"], ["content_fidelity", "str", "opt"],
    ["canonical_content_hash", "str", "opt"], ["content_ref", "ContentRef", "opt"], ["transform", "Transform", "opt"],
    ["minimum_content_fidelity", "str", "opt"], ["inline_content_requirement", "str", "opt"], ["score", "f32", "req"],
    ["token_cost", "u32", "req"], ["canonical_token_cost", "u32", "opt"], ["tokenizer_ref", "str", "opt"], ["valid_from", "str", "opt"],
    ["valid_to", "str", "opt"], ["recorded_at", "str", "opt"], ["provenance", list("Link"), "skip"], ["citation_label", "str", "opt"],
    ["embedding", "Embedding", "opt"], ["relations", list("Relation"), "skip"]],
  Link: [["type", "str", "req"], ["uri", "str", "opt"], ["range", "str", "opt"], ["digest", "str", "opt"], ["method", "str", "opt"], ["by", "str", "opt"]],
  ContentRef: [["provider_id", "str", "req"], ["uri", "str", "req"], ["expires_at", "str", "opt"]],
  Transform: [["method", "str", "req"], ["implementation", "str", "req"], ["version", "str", "req"]],
  Embedding: [["fingerprint", "str", "req"], ["vector", list("f32"), "skip"]],
  Relation: [["rel", "str", "req"], ["target_uri", "str", "req"], ["display_name", "str", "opt"]],
  FrameId: [["provider_id", "str", "req"], ["frame_id", "str", "req"], ["content_digest", "str", "opt"]],
  VerifyRequest: [["frames", list("FrameId"), "req"]],
  VerifyResponse: [["verdicts", list("FrameVerdict"), "req"]],
  FrameVerdict: [["frame", "FrameId", "req"], ["status", "str", "req"], ["replacement_digest", "str", "opt"]],
  FrameAttestation: [["frame", "FrameId", "req"], ["attestation", "ProvenanceAttestation", "opt"], ["inclusion_proof", "InclusionProof", "opt"]],
  ProvenanceAttestation: [["signed_commitment", "str", "req"], ["key_id", "str", "req"], ["algorithm", "str", "req"],
    ["attester_id", "str", "req"], ["signature", "str", "req"], ["issued_at", "str", "req"]],
  InclusionProof: [["leaf_index", "u64", "req"], ["leaf_count", "u64", "req"], ["path", list("ProofStep"), "req"]],
  ProofStep: [["sibling", "str", "req"], ["sibling_is_left", "bool", "req"]],
};

// writeWire writes v as the wire type t; members the type does not have
// are dropped (a receiver ignores them, U1).
function writeWire(t, v, path) {
  const wrong = (want) => new Reject("invalid_envelope", `${path} is ${typeName(v)}, not ${want}`);
  if (t.list !== undefined) {
    if (!Array.isArray(v)) throw wrong("an array");
    return "[" + v.map((x, i) => writeWire(t.list, x, `${path}[${i}]`)).join(",") + "]";
  }
  switch (t) {
    case "str":
      if (typeof v !== "string") throw wrong("a string");
      return JSON.stringify(v);
    case "bool":
      if (typeof v !== "boolean") throw wrong("a boolean");
      return String(v);
    case "u32":
    case "u64":
      if (!Number.isSafeInteger(v) || v < 0 || (t === "u32" && v > 0xffffffff)) throw wrong(`a ${t}`);
      return String(v);
    case "f32":
      if (typeof v !== "number") throw wrong("a number");
      return formatF32(v);
  }
  if (!isObject(v)) throw wrong("an object");
  const out = [];
  for (const [name, type, presence] of WIRE[t]) {
    const x = v.get(name);
    if (x === undefined || x === null) {
      if (presence === "req") throw new Reject("invalid_envelope", `${path}.${name} is missing`);
      continue;
    }
    if (presence === "skip" && Array.isArray(x) && x.length === 0) continue;
    out.push(JSON.stringify(name) + ":" + writeWire(type, x, `${path}.${name}`));
  }
  return "{" + out.join(",") + "}";
}

const ENVELOPE_TYPES = new Set(["handshake", "handshake_ack", "query", "frames", "verify", "verified", "shutdown", "error"]);

function roundTripEnvelope(line) {
  let v;
  try {
    v = parseJSON(line);
  } catch (e) {
    throw new Reject("invalid_envelope", `not JSON: ${e.message}`);
  }
  if (!isObject(v) || !ENVELOPE_TYPES.has(v.get("type"))) throw new Reject("invalid_envelope", "not an envelope of a known type");
  return writeWire("Envelope", v, "envelope");
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
      return canonical(normalizeFrame(textOrValue(args, "frame")));
    case "normalizeQuery":
      return canonical(normalizeQuery(textOrValue(args, "query")));
    case "canonicalize":
      return JSON.stringify(canonical(valueArg(args)));
    case "digest":
      return JSON.stringify(digestOf(valueArg(args)));
    case "checkFrame": {
      let frame;
      try {
        frame = textOrValue(args, "frame");
      } catch (e) {
        if (!(e instanceof Reject) || e.code !== "invalid_json") throw e;
        const violation = { rule: "shape", field: "", message: e.message };
        return JSON.stringify({ valid: false, ...violation, violations: [violation] });
      }
      return JSON.stringify(checkFrame(frame));
    }
    case "recordHash": {
      // A lifecycle record's hash: the member is removed, not blanked, and
      // only at the top level; every other member, known or not, is content.
      const record = arg(args, "record");
      if (!isObject(record)) throw new Reject("bad_args", "args.record must be an object");
      return JSON.stringify(recordHash(record));
    }
    case "signRecordAttestation": {
      const seed = hexArg(args, "seed", 32);
      return JSON.stringify(sign(null, attestationMessage(arg(args, "signed_record_hash")), privateKey(seed)).toString("hex"));
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
    case "encodeLink":
      return JSON.stringify(encodeLink(readLink(arg(args, "link"), "args.link")).toString("hex"));
    case "chainHead":
      return JSON.stringify(hashText(chainHead(readLinks(arg(args, "links"), "args.links"))));
    case "frameCommitment": {
      const provider = arg(args, "provider_id");
      if (typeof provider !== "string") throw new Reject("bad_args", "args.provider_id must be a string");
      return JSON.stringify(hashText(frameCommitment(provider, readFrame(arg(args, "frame"), "args.frame"))));
    }
    case "merkleRoot":
      return JSON.stringify(hashText(merkleRoot(hashesArg(arg(args, "leaves"), "args.leaves"))));
    case "resultRoot": {
      const provider = arg(args, "provider_id");
      const frames = arg(args, "frames");
      if (typeof provider !== "string" || !Array.isArray(frames)) throw new Reject("bad_args", "args needs provider_id (a string) and frames (an array)");
      const sorted = frames.map((f, i) => readFrame(f, `args.frames[${i}]`)).sort(compareFrameIds);
      return JSON.stringify(hashText(merkleRoot(sorted.map((f) => frameCommitment(provider, f)))));
    }
    case "inclusionProof": {
      const leaves = hashesArg(arg(args, "leaves"), "args.leaves");
      const index = arg(args, "index");
      if (!Number.isSafeInteger(index) || index < 0 || index >= leaves.length) throw new Reject("bad_args", "args.index must be the index of one of args.leaves");
      return JSON.stringify(prove(leaves, index));
    }
    case "verifyInclusion": {
      const ok = proofLeadsTo(parseHash(arg(args, "leaf"), "args.leaf"), arg(args, "proof"), parseHash(arg(args, "root"), "args.root"));
      return JSON.stringify(ok ? { valid: true } : { valid: false, message: "the proof does not fit its leaf_index and leaf_count or does not lead to the root" });
    }
    case "signCommitment": {
      const seed = hexArg(args, "seed", 32);
      return JSON.stringify(sign(null, parseHash(arg(args, "commitment"), "args.commitment"), privateKey(seed)).toString("hex"));
    }
    case "verifyAttestation":
      return JSON.stringify(verifyProvenance(arg(args, "attestation"), parseHash(arg(args, "expected_commitment"), "args.expected_commitment"), arg(args, "public_key")));
    case "roundTripEnvelope": {
      const line = arg(args, "line");
      if (typeof line !== "string") throw new Reject("bad_args", "args.line must be a string");
      return JSON.stringify(roundTripEnvelope(line));
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
