// fablepool.mjs: a referee-adapter/1 adapter for referee's "fablepool" suite,
// in Node.js (version 20 or later, no npm packages). It is a small,
// self-contained implementation of the FablePool profile "fablepool-draft-1":
// canonical JSON, Ed25519 keys and signatures, and signed operations (ops)
// with their id and signature checks.
//
// referee starts it as a child process and speaks NDJSON over its stdio:
//
//   referee run fablepool -- node examples/adapters/node/fablepool.mjs
//
// Each request is one JSON object on one line of stdin; each reply is one line
// on stdout. stdout carries protocol only; logs go to stderr. The adapter
// exits 0 when stdin closes.
//
// Ops:
//   canonicalize {input: V} or {input_text: T} -> ok: canonical text, as a string
//   public_key   {seed}                        -> ok: 64 lowercase hex
//   sign         {seed, message_hex}           -> ok: 128 lowercase hex
//   verify       {public_key, message_hex, signature} -> ok: true or false
//   sign_op      {seed, body}                  -> ok: body + {id, sig}
//   verify_op    {op}                          -> ok: true, or err with the code
//                                                 of the first failing step
//
// The profile turns on number lexemes: 1.0 is not the integer 1, and a body
// holding 1.0 cannot be canonicalised. JSON.parse would lose that, so every
// request line is read by the strict parser below, which keeps each number as
// its lexeme. The parser, the canonical writer and every tree walk use an
// explicit stack instead of recursion, so nesting depth is limited only by
// memory. Ed25519 and SHA-256 are Node's built-in crypto (OpenSSL).

import crypto from "node:crypto";

const PROTOCOL = "referee-adapter/1";
const SUITE = "fablepool";
const HELLO = {
  name: "fablepool-node",
  version: "1.0.0",
  ops: ["canonicalize", "public_key", "sign", "verify", "sign_op", "verify_op"],
  concurrency: 1,
};

// The 6 members of an op body, and the 8 members of a signed op, in the
// profile's order (§3, §4).
const BODY_FIELDS = ["v", "type", "author", "ts", "prev", "payload"];
const OP_FIELDS = [...BODY_FIELDS, "id", "sig"];

// JS regexes: without the m flag, $ is the end of input.
const TYPE_RE = /^[a-z][a-z0-9_.-]{0,63}$/;
const AUTHOR_RE = /^ed25519:[0-9a-f]{64}$/;
const OP_ID_RE = /^op:[0-9a-f]{64}$/;
const SIG_RE = /^[0-9a-f]{128}$/;
const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

// 2^53 - 1, the largest integer canonical JSON may hold.
const MAX_INT = 9007199254740991n;

// DER wrappers that turn raw Ed25519 keys into keys Node's crypto can import:
// PKCS#8 PrivateKeyInfo around a 32-byte seed, and SubjectPublicKeyInfo
// around a 32-byte public key (RFC 8410).
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

// Reject is an answer of err with a code: a FablePool code (json_invalid,
// canonical_unsupported, envelope_*, version_unsupported, id_mismatch,
// sig_invalid) or an adapter code (bad_args, unknown_op, ...).
class Reject extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/* ------------------------------------------------------------------ */
/* strict JSON, keeping number lexemes                                 */
/* ------------------------------------------------------------------ */

// Num is a parsed JSON number: its lexeme, exactly as written.
class Num {
  constructor(lexeme) {
    this.lexeme = lexeme;
  }
}

// JObj is a parsed JSON object: its members in input order. dup is set when
// the text named a key twice (only when parsing with markDuplicates; the
// first value is kept).
class JObj {
  constructor() {
    this.members = new Map();
    this.dup = false;
    this.pending = null; // the key whose value is being parsed
  }
}

const isObj = (v) => v instanceof JObj;
const isString = (v) => typeof v === "string";

// INTEGER_RE matches the number lexemes that are integers: no fraction and no
// exponent. (A lexeme has already passed NUMBER_RE, so no leading zeros.)
const INTEGER_RE = /^-?[0-9]+$/;
const isIntegerNum = (v) => v instanceof Num && INTEGER_RE.test(v.lexeme);

// safeInteger returns the value of an integer lexeme as a BigInt, or null
// when it lies outside ±(2^53−1). Long lexemes are refused before BigInt
// sees them, so a million-digit number costs nothing.
function safeInteger(lexeme) {
  const digits = lexeme.startsWith("-") ? lexeme.length - 1 : lexeme.length;
  if (digits > 16) return null;
  const n = BigInt(lexeme);
  return n > MAX_INT || n < -MAX_INT ? null : n;
}

const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4_RE = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

// parse reads one strict RFC 8259 JSON text: only space, tab, LF and CR as
// whitespace, no byte order mark, no NaN or Infinity, no leading zeros, no
// trailing data. Numbers become Num, objects JObj, arrays JS arrays, and
// strings JS strings (a lone surrogate escape survives; the canonical writer
// rejects it). A syntax error throws Reject(code). A duplicate key throws
// too, unless markDuplicates is set; then it only marks its object.
function parse(text, code, markDuplicates = false) {
  let i = 0;
  const fail = (what) => {
    throw new Reject(code, `${what} at offset ${i}`);
  };
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  };
  const string = () => {
    // text[i] is the opening quote.
    let out = "";
    let start = ++i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c)) fail("unterminated string");
      if (c === 0x22) break;
      if (c < 0x20) fail("control character in string");
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(start, i);
      const e = text[i + 1];
      if (e === "u") {
        const hex = text.slice(i + 2, i + 6);
        if (!HEX4_RE.test(hex)) fail("bad \\u escape");
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else if (e !== undefined && Object.hasOwn(SIMPLE_ESCAPES, e)) {
        out += SIMPLE_ESCAPES[e];
        i += 2;
      } else {
        fail("bad escape");
      }
      start = i;
    }
    out += text.slice(start, i++);
    return out;
  };

  const stack = []; // open arrays and JObjs, innermost last
  let root;
  let done = false;
  let state = "value"; // "value", "key" or "after"
  const emit = (v) => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      root = v;
      done = true;
    } else if (isObj(top)) {
      if (!top.members.has(top.pending)) top.members.set(top.pending, v);
    } else top.push(v);
    state = "after";
  };

  for (;;) {
    ws();
    if (done) break;
    const c = text[i];
    if (state === "value") {
      if (c === "[" || c === "{") {
        i++;
        ws();
        if (text[i] === (c === "[" ? "]" : "}")) {
          i++;
          emit(c === "[" ? [] : new JObj());
        } else {
          stack.push(c === "[" ? [] : new JObj());
          state = c === "[" ? "value" : "key";
        }
      } else if (c === '"') {
        emit(string());
      } else if (c === "-" || (c >= "0" && c <= "9")) {
        NUMBER_RE.lastIndex = i;
        const m = NUMBER_RE.exec(text);
        if (m === null) fail("bad number");
        i += m[0].length;
        emit(new Num(m[0]));
      } else {
        const lit = ["true", "false", "null"].find((w) => text.startsWith(w, i));
        if (lit === undefined) fail(c === undefined ? "unexpected end of text" : "unexpected character");
        i += lit.length;
        emit(lit === "true" ? true : lit === "false" ? false : null);
      }
    } else if (state === "key") {
      if (c !== '"') fail(c === undefined ? "unexpected end of text" : "expected a string key");
      const top = stack[stack.length - 1];
      const at = i;
      const key = string();
      if (top.members.has(key)) {
        if (!markDuplicates) throw new Reject(code, `duplicate key ${JSON.stringify(key)} at offset ${at}`);
        top.dup = true;
      }
      top.pending = key;
      ws();
      if (text[i] !== ":") fail(text[i] === undefined ? "unexpected end of text" : "expected ':'");
      i++;
      state = "value";
    } else {
      const top = stack[stack.length - 1];
      const inObj = isObj(top);
      if (c === ",") {
        i++;
        state = inObj ? "key" : "value";
      } else if (c === (inObj ? "}" : "]")) {
        i++;
        const closed = stack.pop();
        if (inObj) closed.pending = null;
        emit(closed);
      } else if (c === undefined) fail("unexpected end of text");
      else fail(inObj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  if (i !== text.length) fail("trailing data");
  return root;
}

// assertNoDuplicates rejects a value parsed with markDuplicates if any object
// in it named a key twice: such a text is not valid JSON for the profile.
function assertNoDuplicates(root) {
  const work = [root];
  while (work.length > 0) {
    const v = work.pop();
    if (Array.isArray(v)) {
      for (const m of v) if (m !== null && typeof m === "object") work.push(m);
    } else if (isObj(v)) {
      if (v.dup) throw new Reject("json_invalid", "an object has a duplicate key");
      for (const m of v.members.values()) if (m !== null && typeof m === "object") work.push(m);
    }
  }
}

/* ------------------------------------------------------------------ */
/* canonical JSON (§1)                                                 */
/* ------------------------------------------------------------------ */

// quote writes a string with the profile's minimal escaping: \" \\ and the
// short forms \b \t \n \f \r, other controls as lowercase \u00xx, and
// everything else (/, DEL, U+2028, non-ASCII, astral) raw. A lone surrogate
// has no UTF-8 form and is refused.
const SHORT_ESCAPES = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };
const MUST_ESCAPE_RE = /["\\\u0000-\u001f]/g;
function quote(s) {
  if (!s.isWellFormed()) throw new Reject("canonical_unsupported", `string ${JSON.stringify(s)} holds a lone surrogate`);
  const body = s.replace(MUST_ESCAPE_RE, (c) => SHORT_ESCAPES[c] ?? "\\u00" + c.charCodeAt(0).toString(16).padStart(2, "0"));
  return '"' + body + '"';
}

// integer writes an integer lexeme in plain decimal (so -0 becomes 0); any
// other number is refused.
function integer(num) {
  if (!isIntegerNum(num)) throw new Reject("canonical_unsupported", `number ${num.lexeme} has a fraction or an exponent`);
  const n = safeInteger(num.lexeme);
  if (n === null) throw new Reject("canonical_unsupported", `integer ${num.lexeme} is outside ±(2^53-1)`);
  return n.toString();
}

// byCodePoint orders [utf8, key, value] members by the UTF-8 bytes of the
// raw (unescaped) key, which is the same as comparing Unicode code points.
const byCodePoint = (a, b) => Buffer.compare(a[0], b[0]);

// canonical returns the canonical text of a parsed value, without recursion.
function canonical(root) {
  const out = [];
  const work = [root]; // values to write, and literal text (Lit), next last
  while (work.length > 0) {
    const v = work.pop();
    if (v instanceof Lit) out.push(v.text);
    else if (v === null) out.push("null");
    else if (v === true) out.push("true");
    else if (v === false) out.push("false");
    else if (isString(v)) out.push(quote(v));
    else if (v instanceof Num) out.push(integer(v));
    else if (isObj(v)) {
      const members = [];
      for (const [k, m] of v.members) {
        const key = quote(k); // first, so that a lone surrogate is refused
        members.push([Buffer.from(k, "utf8"), key, m]);
      }
      members.sort(byCodePoint);
      work.push(CLOSE_OBJ);
      for (let k = members.length - 1; k >= 0; k--) {
        work.push(members[k][2], new Lit(members[k][1] + ":"));
        if (k > 0) work.push(COMMA);
      }
      out.push("{");
    } else {
      work.push(CLOSE_ARR);
      for (let k = v.length - 1; k >= 0; k--) {
        work.push(v[k]);
        if (k > 0) work.push(COMMA);
      }
      out.push("[");
    }
  }
  return out.join("");
}

// Lit is literal output text on the canonical writer's work stack.
class Lit {
  constructor(text) {
    this.text = text;
  }
}
const COMMA = new Lit(",");
const CLOSE_OBJ = new Lit("}");
const CLOSE_ARR = new Lit("]");

/* ------------------------------------------------------------------ */
/* Ed25519 (§2)                                                        */
/* ------------------------------------------------------------------ */

const privateKey = (seed) => crypto.createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });

// publicKeyOf returns the 32-byte RFC 8032 public key of a seed.
function publicKeyOf(seed) {
  const spki = crypto.createPublicKey(privateKey(seed)).export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - 32);
}

// signWith returns the 64-byte pure Ed25519 signature of msg.
const signWith = (seed, msg) => crypto.sign(null, msg, privateKey(seed));

// verifyWith reports whether sig is a valid signature of msg under the raw
// public key pub. Wrong lengths, a key that is not a valid point and any
// other failure are all false (OpenSSL requires S < L and canonical points).
function verifyWith(pub, msg, sig) {
  if (pub.length !== 32 || sig.length !== 64) return false;
  try {
    const key = crypto.createPublicKey({ key: Buffer.concat([SPKI_PREFIX, pub]), format: "der", type: "spki" });
    return crypto.verify(null, msg, key, sig);
  } catch {
    return false;
  }
}

const sha256Hex = (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");

/* ------------------------------------------------------------------ */
/* ops (§3-§5)                                                         */
/* ------------------------------------------------------------------ */

// checkEnvelope runs steps 1-5 of §5 on a parsed op (fields = OP_FIELDS) or
// body (fields = BODY_FIELDS), throwing the first failing step's code.
function checkEnvelope(v, fields, what) {
  if (!isObj(v)) throw new Reject("envelope_shape", `the ${what} is not an object`);
  const missing = fields.filter((f) => !v.members.has(f));
  if (missing.length > 0) throw new Reject("envelope_missing_field", `the ${what} has no ${missing.join(", ")}`);
  const extra = [...v.members.keys()].filter((k) => !fields.includes(k));
  if (extra.length > 0) throw new Reject("envelope_unknown_field", `the ${what} has unknown members ${JSON.stringify(extra)}`);
  const m = (f) => v.members.get(f);

  if (!isIntegerNum(m("v"))) throw new Reject("envelope_field_type", "v is not an integer");
  if (m("v").lexeme !== "1") throw new Reject("version_unsupported", `v is ${m("v").lexeme}, not 1`);

  const bad = (f, rule) => {
    throw new Reject("envelope_field_type", `${f} ${rule}`);
  };
  if (!isString(m("type")) || !TYPE_RE.test(m("type"))) bad("type", "must match ^[a-z][a-z0-9_.-]{0,63}$");
  if (!isString(m("author")) || !AUTHOR_RE.test(m("author"))) bad("author", "must be ed25519: and 64 lowercase hex");
  const ts = m("ts");
  const tsValue = isIntegerNum(ts) ? safeInteger(ts.lexeme) : null;
  if (tsValue === null || tsValue < 0n) bad("ts", "must be an integer in 0..2^53-1");
  const prev = m("prev");
  if (!Array.isArray(prev)) bad("prev", "must be an array");
  const seen = new Set();
  for (const p of prev) {
    if (!isString(p) || !OP_ID_RE.test(p)) bad("prev", "must hold op ids op: + 64 lowercase hex");
    if (seen.has(p)) bad("prev", `holds ${p} twice`);
    seen.add(p);
  }
  if (!isObj(m("payload"))) bad("payload", "must be an object");
  if (fields === OP_FIELDS) {
    if (!isString(m("id")) || !OP_ID_RE.test(m("id"))) bad("id", "must be op: + 64 lowercase hex");
    if (!isString(m("sig")) || !SIG_RE.test(m("sig"))) bad("sig", "must be 128 lowercase hex");
  }
}

// bodyOf returns the body (the six body members) of a checked op or body.
function bodyOf(v) {
  const body = new JObj();
  for (const f of BODY_FIELDS) body.members.set(f, v.members.get(f));
  return body;
}

// canonicalBody is step 6: the canonical bytes of the body.
function canonicalBody(body) {
  try {
    return Buffer.from(canonical(body), "utf8");
  } catch (e) {
    if (e instanceof Reject) throw new Reject("canonical_unsupported", `the body cannot be canonicalised: ${e.message}`);
    throw e;
  }
}

// signOp returns the canonical text of the signed op: body + {id, sig}.
function signOp(seed, body) {
  assertNoDuplicates(body);
  checkEnvelope(body, BODY_FIELDS, "body");
  const b = canonicalBody(bodyOf(body));
  const op = bodyOf(body);
  op.members.set("id", "op:" + sha256Hex(b));
  op.members.set("sig", signWith(seed, b).toString("hex"));
  return canonical(op);
}

// verifyOp runs all of §5 on a parsed op; it returns true or throws the
// first failing step's code.
function verifyOp(op) {
  assertNoDuplicates(op);
  checkEnvelope(op, OP_FIELDS, "op");
  const b = canonicalBody(bodyOf(op));
  const id = "op:" + sha256Hex(b);
  if (id !== op.members.get("id")) throw new Reject("id_mismatch", `the body's id is ${id}`);
  const pub = Buffer.from(op.members.get("author").slice("ed25519:".length), "hex");
  if (!verifyWith(pub, b, Buffer.from(op.members.get("sig"), "hex"))) {
    throw new Reject("sig_invalid", "the signature does not verify under the author's key");
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* the adapter protocol                                                */
/* ------------------------------------------------------------------ */

// arg returns args[name]; undefined when absent.
const arg = (args, name) => args.members.get(name);

// hexArg returns the bytes of a hex string argument (either case).
function hexArg(args, name, bytes) {
  const h = arg(args, name);
  if (!isString(h) || !HEX_RE.test(h) || (bytes !== undefined && h.length !== 2 * bytes)) {
    const size = bytes === undefined ? "" : ` of ${bytes} bytes`;
    throw new Reject("bad_args", `args.${name} must be a hex string${size}`);
  }
  return Buffer.from(h, "hex");
}

// valueOrText returns args[name + "_text"] parsed strictly when referee sent
// it (a duplicate member or anything else that is not JSON is json_invalid),
// else args[name], the same value read from the request line.
function valueOrText(args, name) {
  const text = arg(args, name + "_text");
  if (text !== undefined) {
    if (!isString(text)) throw new Reject("bad_args", `args.${name}_text must be a string`);
    return parse(text, "json_invalid", true);
  }
  if (!args.members.has(name)) throw new Reject("bad_args", `args.${name} is required`);
  return arg(args, name);
}

// looseHex decodes a hex string that may be malformed: null if it is not hex.
const looseHex = (h) => (HEX_RE.test(h) ? Buffer.from(h, "hex") : null);

// handle answers one request; it returns the reply's ok member as JSON text.
function handle(op, args) {
  if (op === "hello") {
    const protocol = isObj(args) ? arg(args, "protocol") : undefined;
    if (protocol !== PROTOCOL) {
      throw new Reject("unsupported_protocol", `want ${PROTOCOL}, got ${isString(protocol) ? JSON.stringify(protocol) : "none"}`);
    }
    const suite = arg(args, "suite");
    if (suite !== undefined && suite !== SUITE) {
      process.stderr.write(`fablepool-node: hello for suite ${isString(suite) ? JSON.stringify(suite) : "?"}; this adapter is for ${SUITE}\n`);
    }
    return JSON.stringify(HELLO);
  }
  if (!HELLO.ops.includes(op)) throw new Reject("unknown_op", `unknown op ${JSON.stringify(op)}`);
  if (!isObj(args)) throw new Reject("bad_args", "args must be an object");
  if (args.dup) throw new Reject("bad_args", "args has a duplicate member");
  switch (op) {
    case "canonicalize": {
      const hasInput = args.members.has("input");
      const hasText = args.members.has("input_text");
      if (hasInput === hasText) throw new Reject("bad_args", "args needs exactly one of input and input_text");
      let value;
      if (hasText) {
        const text = arg(args, "input_text");
        if (!isString(text)) throw new Reject("bad_args", "args.input_text must be a string");
        value = parse(text, "json_invalid");
      } else {
        value = arg(args, "input");
        assertNoDuplicates(value);
      }
      return JSON.stringify(canonical(value));
    }
    case "public_key":
      return JSON.stringify(publicKeyOf(hexArg(args, "seed", 32)).toString("hex"));
    case "sign": {
      const seed = hexArg(args, "seed", 32);
      return JSON.stringify(signWith(seed, hexArg(args, "message_hex")).toString("hex"));
    }
    case "verify": {
      const msg = hexArg(args, "message_hex");
      const pub = arg(args, "public_key");
      const sig = arg(args, "signature");
      if (!isString(pub) || !isString(sig)) throw new Reject("bad_args", "args.public_key and args.signature must be strings");
      const pubBytes = looseHex(pub);
      const sigBytes = looseHex(sig);
      return JSON.stringify(pubBytes !== null && sigBytes !== null && verifyWith(pubBytes, msg, sigBytes));
    }
    case "sign_op": {
      const seed = hexArg(args, "seed", 32);
      return signOp(seed, valueOrText(args, "body"));
    }
    case "verify_op":
      return JSON.stringify(verifyOp(valueOrText(args, "op")));
  }
  throw new Reject("unknown_op", `unknown op ${JSON.stringify(op)}`);
}

const errLine = (id, code, message) => JSON.stringify({ id, err: { code, message } }) + "\n";

const lineDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// onLine answers one request line. The line is read with the strict parser,
// so that the number lexemes inside args survive; a duplicate key is only
// marked, so that a duplicate inside an op or input can be answered with
// json_invalid rather than refusing the whole request.
function onLine(bytes) {
  let req;
  try {
    req = parse(lineDecoder.decode(bytes), "bad_request", true);
  } catch (e) {
    process.stderr.write(`fablepool-node: bad request line: ${e.message}\n`);
    return errLine(null, "bad_request", `request is not a JSON object line: ${e.message}`);
  }
  const rawId = isObj(req) ? req.members.get("id") : undefined;
  const id = isIntegerNum(rawId) ? BigInt(rawId.lexeme).toString() : null;
  const op = isObj(req) ? req.members.get("op") : undefined;
  if (id === null || !isString(op) || req.dup) {
    return errLine(id === null ? null : Number(id), "bad_request", "a request needs an integer id and a string op, once each");
  }
  try {
    return `{"id":${id},"ok":${handle(op, req.members.get("args"))}}\n`;
  } catch (e) {
    if (e instanceof Reject) return `{"id":${id},"err":${JSON.stringify({ code: e.code, message: e.message })}}\n`;
    process.stderr.write(`fablepool-node: request ${id}: ${e.stack}\n`);
    return `{"id":${id},"err":${JSON.stringify({ code: "internal_error", message: String(e.message) })}}\n`;
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
