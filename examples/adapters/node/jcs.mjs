// jcs.mjs: a referee-adapter/1 adapter for referee's "jcs" suite, in Node.js
// (version 20 or later, no npm packages).
//
// It offers two ops. canonicalJson: given {"value_text": T}, where T is a JSON
// text, it answers with the RFC 8785 (JCS) canonical form of T as a string, or
// rejects T with one of the error codes parse_error, duplicate_key,
// lone_surrogate or number_out_of_range. canonicalJsonBytes: given
// {"value_hex": H}, the same for the bytes H spells in hex, which the suite
// uses for input that is not UTF-8 (no JSON string can carry it); bytes that
// are not UTF-8 are rejected with invalid_utf8.
//
// referee starts it as a child process and speaks NDJSON over its stdio:
//
//   referee run jcs -- node examples/adapters/node/jcs.mjs
//
// Each request is one JSON object on one line of stdin; each reply is one line
// on stdout. stdout carries protocol only; logs go to stderr. The adapter
// exits 0 when stdin closes.
//
// JSON.parse cannot report duplicate keys or lone surrogate escapes, so the
// value text is read by the small strict parser below. It uses an explicit
// stack instead of recursion, so nesting depth is limited only by memory.

const PROTOCOL = "referee-adapter/1";
const HELLO = { name: "jcs-node", version: "1.0.0", ops: ["canonicalJson", "canonicalJsonBytes"], concurrency: 1 };
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

// strictUTF8 decodes the value text's bytes: overlong forms, encoded
// surrogates and cut sequences are errors, and a byte order mark stays a
// character (so the parser refuses it).
const strictUTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// Reject is a rejection of the value text with a protocol error code.
class Reject extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// JObject is a parsed JSON object: its members in input order.
class JObject {
  constructor() {
    this.members = []; // [key, value] pairs
    this.keys = new Set();
    this.pending = null; // the key whose value is being parsed
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

// parse reads a strict RFC 8259 JSON text. Scalars become their canonical
// text; arrays become JS arrays and objects JObject values.
function parse(text) {
  if (!text.isWellFormed()) throw new Reject("lone_surrogate", "value text contains a lone surrogate");
  let i = 0;
  const fail = (what) => {
    throw new Reject("parse_error", `${what} at offset ${i}`);
  };
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  };
  const string = () => {
    // text[i] is the opening quote.
    const open = i;
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
        if (!HEX4.test(hex)) fail("bad \\u escape");
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
    if (!out.isWellFormed()) throw new Reject("lone_surrogate", `lone surrogate in string at offset ${open}`);
    return out;
  };

  const stack = []; // open arrays and JObjects, innermost last
  let root;
  let done = false;
  let state = "value"; // "value", "key" or "after"
  const emit = (v) => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      root = v;
      done = true;
    } else if (top instanceof JObject) top.members.push([top.pending, v]);
    else top.push(v);
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
          emit(c === "[" ? [] : new JObject());
        } else {
          stack.push(c === "[" ? [] : new JObject());
          state = c === "[" ? "value" : "key";
        }
      } else if (c === '"') {
        emit(JSON.stringify(string()));
      } else if (c === "-" || (c >= "0" && c <= "9")) {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (m === null) fail("bad number");
        const n = Number(m[0]);
        if (!Number.isFinite(n)) throw new Reject("number_out_of_range", `number ${m[0]} overflows a double`);
        i += m[0].length;
        emit(JSON.stringify(n));
      } else {
        const lit = ["true", "false", "null"].find((w) => text.startsWith(w, i));
        if (lit === undefined) fail(c === undefined ? "unexpected end of text" : "unexpected character");
        i += lit.length;
        emit(lit);
      }
    } else if (state === "key") {
      if (c !== '"') fail("expected a string key");
      const top = stack[stack.length - 1];
      const key = string();
      if (top.keys.has(key)) throw new Reject("duplicate_key", `duplicate key ${JSON.stringify(key)}`);
      top.keys.add(key);
      top.pending = key;
      ws();
      if (text[i] !== ":") fail("expected ':'");
      i++;
      state = "value";
    } else {
      const top = stack[stack.length - 1];
      const isObj = top instanceof JObject;
      if (c === ",") {
        i++;
        state = isObj ? "key" : "value";
      } else if (c === (isObj ? "}" : "]")) {
        i++;
        emit(stack.pop());
      } else fail(isObj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  if (i !== text.length) fail("trailing data");
  return root;
}

// byUTF16 orders members by key, comparing UTF-16 code units.
const byUTF16 = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

// serialize writes a parsed value as canonical text, without recursion.
function serialize(root) {
  const out = [];
  const work = [root]; // values to write, and literal punctuation, next last
  while (work.length > 0) {
    const v = work.pop();
    if (typeof v === "string") {
      out.push(v);
    } else if (v instanceof JObject) {
      const members = v.members.slice().sort(byUTF16);
      work.push("}");
      for (let k = members.length - 1; k >= 0; k--) {
        work.push(members[k][1], JSON.stringify(members[k][0]) + ":");
        if (k > 0) work.push(",");
      }
      out.push("{");
    } else {
      work.push("]");
      for (let k = v.length - 1; k >= 0; k--) {
        work.push(v[k]);
        if (k > 0) work.push(",");
      }
      out.push("[");
    }
  }
  return out.join("");
}

// handle answers one request object with a reply object.
function handle(req) {
  const { id, op, args } = req;
  switch (op) {
    case "hello":
      if (args?.protocol !== PROTOCOL) {
        return { id, err: { code: "unsupported_protocol", message: `want ${PROTOCOL}, got ${JSON.stringify(args?.protocol)}` } };
      }
      return { id, ok: HELLO };
    case "canonicalJson":
    case "canonicalJsonBytes": {
      let text = args?.value_text;
      if (op === "canonicalJsonBytes") {
        if (typeof args?.value_hex !== "string" || !HEX.test(args.value_hex)) {
          return { id, err: { code: "bad_args", message: "args.value_hex must be a hex string" } };
        }
        try {
          text = strictUTF8.decode(Buffer.from(args.value_hex, "hex"));
        } catch (e) {
          return { id, err: { code: "invalid_utf8", message: String(e.message) } };
        }
      }
      if (typeof text !== "string") {
        return { id, err: { code: "bad_args", message: "args.value_text must be a string" } };
      }
      try {
        return { id, ok: serialize(parse(text)) };
      } catch (e) {
        if (e instanceof Reject) return { id, err: { code: e.code, message: e.message } };
        process.stderr.write(`jcs-node: request ${id}: ${e.stack}\n`);
        return { id, err: { code: "internal_error", message: String(e.message) } };
      }
    }
    default:
      return { id, err: { code: "unknown_op", message: `unknown op ${JSON.stringify(op)}` } };
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// onLine answers one request line; a line that is not a request object gets
// a bad_request reply with a null id.
function onLine(bytes) {
  let reply;
  try {
    const req = JSON.parse(decoder.decode(bytes));
    if (req === null || typeof req !== "object" || Array.isArray(req) || !Number.isInteger(req.id) || typeof req.op !== "string") {
      reply = { id: Number.isInteger(req?.id) ? req.id : null, err: { code: "bad_request", message: "a request needs an integer id and a string op" } };
    } else {
      reply = handle(req);
    }
  } catch (e) {
    process.stderr.write(`jcs-node: bad request line: ${e.message}\n`);
    reply = { id: null, err: { code: "bad_request", message: `request is not a JSON object line: ${e.message}` } };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}

// isBlank reports whether a line holds only spaces, tabs and carriage returns.
const isBlank = (line) => line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);

// Split stdin on "\n" bytes; blank lines are skipped.
let pending = [];
process.stdin.on("data", (chunk) => {
  let start = 0;
  for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
    pending.push(chunk.subarray(start, nl));
    const line = Buffer.concat(pending);
    pending = [];
    start = nl + 1;
    if (!isBlank(line)) onLine(line);
  }
  if (start < chunk.length) pending.push(chunk.subarray(start));
});
process.stdin.on("end", () => {
  const line = Buffer.concat(pending);
  if (!isBlank(line)) onLine(line);
});
