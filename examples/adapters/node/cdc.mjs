// cdc.mjs: a referee-adapter/1 adapter for referee's "cdc" suite, in Node.js
// (version 20 or later). It is a small implementation of the Cognitive
// Delivery Contract: draft-07 schema validation with the ajv npm package (as
// the contract's own reference adapter does), canonical bytes, SHA-256
// hashes, HMAC-SHA256 lease signatures and the lease rules L1 to L3.
//
// It needs ajv 8.20.0, pinned in package.json beside this file. Install it
// once with `npm ci` in examples/adapters/node, then:
//
//   referee run cdc --corpus ../shared/corpora/cdc -- node examples/adapters/node/cdc.mjs
//
// Each request is one JSON object on one line of stdin; each reply is one line
// on stdout. stdout carries protocol only; logs go to stderr. The adapter
// exits 0 when stdin closes.
//
// The schemas are read at hello from <corpus>/schemas/, where <corpus> is the
// environment variable CDC_CORPUS when it is set and not empty, else the
// hello's args.corpus. With neither, hello fails with err "no_corpus". A
// corpus with no schemas/ directory (vectors only, as referee fuzz writes)
// has nothing to validate against: validate then answers "unknown_shape".
//
// Ops (besides hello):
//   validate     {shape, value}                   -> ok {valid, errors: [{instancePath, keyword}]}
//   roundTrip    {shape, value}                   -> ok: the value re-emitted
//   canonicalise {value, value_text, nonfinite?}  -> ok: the canonical text, or err "non_finite"
//   hash         {value, value_text}              -> ok: lowercase hex SHA-256 of the canonical bytes
//   verify       {lease, lease_text, key_hex}     -> ok: true or false
//   rules        {lease, chain?}                  -> ok: [{rule, path}]
// There is no narrow, as in the contract's reference adapter. Where referee
// sends a value's exact text beside it (name_text), the adapter reads the
// text with JSON.parse: for Node that is the value the request line already
// gave, but it is what an adapter in another language would read.

import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

let Ajv;
try {
  ({ default: Ajv } = await import("ajv"));
} catch (e) {
  process.stderr.write(`cdc-node: cannot load ajv (${e.message}); run \`npm ci\` in examples/adapters/node first\n`);
  process.exit(1);
}

const PROTOCOL = "referee-adapter/1";
const SUITE = "cdc";
const HELLO = {
  name: "cdc-node",
  version: "1.0.0",
  ops: ["validate", "roundTrip", "canonicalise", "hash", "verify", "rules"],
  concurrency: 1,
};

// The contract's shapes; shape S is validated by schemas/S.schema.json.
const SHAPES = [
  "provenance", "audit-event", "cdi-signal", "cdi-assessment", "config-core",
  "agent-lease-manifest", "agent-lease", "lease-record", "plugin-manifest", "plugin-marketplace",
];

// The one timestamp form of issued_at and expires_at (SPEC §6).
const MILLIS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SIGNATURE = /^[0-9a-f]{64}$/;
const HEX_PAIRS = /^(?:[0-9a-fA-F]{2})*$/;

// Reject is an answer of err with a protocol error code.
class Reject extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const isContainer = (v) => v !== null && typeof v === "object";
const isPlainObject = (v) => isContainer(v) && !Array.isArray(v);
const has = (o, k) => Object.hasOwn(o, k);

/* ------------------------------------------------------------------ */
/* schemas                                                             */
/* ------------------------------------------------------------------ */

// validators maps each shape to its compiled ajv validator; null until hello.
let validators = null;

// loadSchemas compiles every schemas/*.schema.json of the corpus, in name
// order, with one Ajv instance, and returns the validator of each shape.
function loadSchemas(corpus) {
  const dir = join(resolve(corpus), "schemas");
  let files;
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".schema.json")).sort();
  } catch (e) {
    if (e.code === "ENOENT" && readdirSync(resolve(corpus)).includes("conformance")) {
      process.stderr.write(`cdc-node: ${resolve(corpus)} has vectors and no schemas: nothing to validate against\n`);
      return new Map();
    }
    throw new Reject("bad_corpus", `cannot list ${dir}: ${e.message}`);
  }
  const ajv = new Ajv({ allErrors: true, strict: false });
  const byFile = new Map();
  for (const f of files) {
    try {
      byFile.set(f, ajv.compile(JSON.parse(readFileSync(join(dir, f), "utf8"))));
    } catch (e) {
      throw new Reject("bad_corpus", `cannot compile ${join(dir, f)}: ${e.message}`);
    }
  }
  const out = new Map();
  // Older releases (1.0.x) have fewer shapes: take those the corpus has.
  for (const shape of SHAPES) {
    const v = byFile.get(`${shape}.schema.json`);
    if (v !== undefined) out.set(shape, v);
  }
  if (out.size === 0) throw new Reject("bad_corpus", `${dir} has no <shape>.schema.json`);
  process.stderr.write(`cdc-node: compiled ${files.length} schemas from ${dir}\n`);
  return out;
}

// corpusDir returns where the schemas come from: $CDC_CORPUS, else args.corpus.
function corpusDir(args) {
  const env = process.env.CDC_CORPUS;
  if (typeof env === "string" && env !== "") return env;
  if (typeof args?.corpus === "string" && args.corpus !== "") return args.corpus;
  throw new Reject("no_corpus", "no corpus: set CDC_CORPUS or pass args.corpus in hello");
}

function validatorOf(shape) {
  if (typeof shape !== "string") throw new Reject("bad_args", "args.shape must be a string");
  if (validators === null) throw new Reject("no_corpus", "no schemas loaded: hello first");
  const v = validators.get(shape);
  if (v === undefined) throw new Reject("unknown_shape", `unknown shape ${JSON.stringify(shape)}`);
  return v;
}

// validate answers {valid, errors}; errors are ajv's, in ajv's order.
function validate(shape, value) {
  const check = validatorOf(shape);
  const valid = check(value) === true;
  const errors = valid ? [] : (check.errors ?? []).map((e) => ({ instancePath: e.instancePath, keyword: e.keyword }));
  return { valid, errors };
}

/* ------------------------------------------------------------------ */
/* canonical bytes (SPEC §7)                                           */
/* ------------------------------------------------------------------ */

// scalarText writes a value that is not an array or object.
function scalarText(v) {
  switch (typeof v) {
    case "string":
      // Node 20's JSON.stringify is well-formed: it escapes `"`, `\`,
      // \b \t \n \f \r, other C0 controls and lone surrogates as lowercase
      // \u00xx / \udxxx, and writes everything else (U+007F too) raw.
      return JSON.stringify(v);
    case "number":
      if (!Number.isFinite(v)) throw new Reject("non_finite", `canonicalise: non-finite number ${v}`);
      return JSON.stringify(v); // ECMAScript Number::toString; -0 gives "0"
    case "boolean":
      return v ? "true" : "false";
    default:
      if (v === null) return "null";
      throw new Reject("unsupported_value", `canonicalise: unsupported value of type ${typeof v}`);
  }
}

// canonicalise writes the canonical text: members whose value is undefined
// are dropped, the rest sorted by key in UTF-16 code units (the default sort
// order), no whitespace, arrays in order. It keeps an explicit work stack of
// finished text and containers still to write, so it does not recurse.
function canonicalise(root) {
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
        pushItem(v[k]); // an undefined element throws, as it has no JSON form
        if (k > 0) work.push(",");
      }
      out.push("[");
    } else {
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

const sha256Hex = (text) => createHash("sha256").update(text, "utf8").digest("hex");

// plantNonFinite puts NaN, Infinity or -Infinity at the JSON Pointer path in
// value and returns the result. JSON cannot carry these numbers, so referee
// names them instead.
function plantNonFinite(value, nonfinite) {
  if (!isPlainObject(nonfinite) || typeof nonfinite.path !== "string") {
    throw new Reject("bad_args", "args.nonfinite must be {path, value}");
  }
  const numbers = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };
  if (!has(numbers, nonfinite.value)) {
    throw new Reject("bad_args", 'args.nonfinite.value must be "NaN", "Infinity" or "-Infinity"');
  }
  const n = numbers[nonfinite.value];
  const path = nonfinite.path;
  if (path === "") return n;
  if (!path.startsWith("/")) throw new Reject("bad_args", `args.nonfinite.path ${JSON.stringify(path)} is not a JSON Pointer`);
  const tokens = path.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let parent = value;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const last = i === tokens.length - 1;
    if (Array.isArray(parent)) {
      const idx = t === "-" ? parent.length : /^(?:0|[1-9][0-9]*)$/.test(t) ? Number(t) : -1;
      if (idx < 0 || idx > parent.length || (!last && idx === parent.length)) {
        throw new Reject("bad_args", `args.nonfinite.path ${JSON.stringify(path)} names no array element`);
      }
      if (last) parent[idx] = n;
      else parent = parent[idx];
    } else if (isPlainObject(parent)) {
      if (last) parent[t] = n;
      else if (!has(parent, t)) throw new Reject("bad_args", `args.nonfinite.path ${JSON.stringify(path)} names nothing`);
      else parent = parent[t];
    } else {
      throw new Reject("bad_args", `args.nonfinite.path ${JSON.stringify(path)} goes through a scalar`);
    }
  }
  return value;
}

/* ------------------------------------------------------------------ */
/* signatures and lease rules (SPEC §6, §7)                            */
/* ------------------------------------------------------------------ */

// verify reports whether lease.signature is the lowercase hex HMAC-SHA256,
// under the key, of the canonical bytes of every lease field but signature.
function verify(lease, keyHex) {
  if (!isPlainObject(lease) || typeof lease.signature !== "string" || !SIGNATURE.test(lease.signature)) return false;
  const { signature, ...signed } = lease;
  const mac = createHmac("sha256", Buffer.from(keyHex, "hex")).update(canonicalise(signed), "utf8").digest();
  return timingSafeEqual(Buffer.from(signature, "hex"), mac);
}

// rules returns the findings of the lease rules L1 to L3. chain is the lease's
// ancestor chain from the journal, or undefined when there is no journal; L3
// is then not applied (SPEC §6.1: a reader without the journal cannot check it).
function rules(lease, chain) {
  if (!isPlainObject(lease)) return [{ rule: "L1", path: "" }];
  const found = [];
  const { issued_at: issued, expires_at: expires } = lease;
  if (typeof issued === "string" && typeof expires === "string" && MILLIS_Z.test(issued) && MILLIS_Z.test(expires)) {
    if (Date.parse(expires) <= Date.parse(issued)) found.push({ rule: "L1", path: "/expires_at" });
  }
  if (lease.parent_lease_id !== undefined && lease.parent_lease_id === lease.lease_id) {
    found.push({ rule: "L2", path: "/parent_lease_id" });
  }
  const by = lease.by;
  if (lease.event === "revoked" && typeof by === "string" && by !== "issuer" && chain !== undefined && !chain.includes(by)) {
    found.push({ rule: "L3", path: "/by" });
  }
  return found;
}

/* ------------------------------------------------------------------ */
/* the adapter protocol                                                */
/* ------------------------------------------------------------------ */

// arg returns args[name], which must be present (null is a value).
function arg(args, name) {
  if (!isPlainObject(args) || !has(args, name)) throw new Reject("bad_args", `args.${name} is required`);
  return args[name];
}

// valueArg returns the JSON value args[name], read from its exact text
// args[name + "_text"] when referee sent one.
function valueArg(args, name) {
  const text = isPlainObject(args) ? args[name + "_text"] : undefined;
  if (typeof text !== "string") return arg(args, name);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Reject("bad_args", `args.${name}_text is not JSON: ${e.message}`);
  }
}

// handle answers one request with the reply's ok value.
function handle(op, args) {
  switch (op) {
    case "hello": {
      if (args?.protocol !== PROTOCOL) {
        throw new Reject("unsupported_protocol", `want ${PROTOCOL}, got ${JSON.stringify(args?.protocol)}`);
      }
      if (args?.suite !== undefined && args.suite !== SUITE) {
        process.stderr.write(`cdc-node: hello for suite ${JSON.stringify(args.suite)}; this adapter is for ${SUITE}\n`);
      }
      validators = loadSchemas(corpusDir(args));
      return HELLO;
    }
    case "validate":
      return validate(arg(args, "shape"), arg(args, "value"));
    case "roundTrip": {
      // The shape is not needed: a reader keeps every member it is given.
      return JSON.parse(JSON.stringify(arg(args, "value")));
    }
    case "canonicalise": {
      let value = valueArg(args, "value");
      if (has(args, "nonfinite")) value = plantNonFinite(value, args.nonfinite);
      return canonicalise(value);
    }
    case "hash":
      return sha256Hex(canonicalise(valueArg(args, "value")));
    case "verify": {
      const keyHex = arg(args, "key_hex");
      if (typeof keyHex !== "string" || !HEX_PAIRS.test(keyHex)) {
        throw new Reject("bad_args", "args.key_hex must be a string of hex digit pairs");
      }
      return verify(valueArg(args, "lease"), keyHex);
    }
    case "rules": {
      const lease = arg(args, "lease");
      let chain;
      if (has(args, "chain")) {
        chain = args.chain;
        if (!Array.isArray(chain)) throw new Reject("bad_args", "args.chain, when given, must be an array");
      }
      return rules(lease, chain);
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
    process.stderr.write(`cdc-node: bad request line: ${e.message}\n`);
    return errLine(null, "bad_request", `request is not a JSON object line: ${e.message}`);
  }
  if (!isPlainObject(req) || !Number.isInteger(req.id) || typeof req.op !== "string") {
    const id = Number.isInteger(req?.id) ? req.id : null;
    return errLine(id, "bad_request", "a request needs an integer id and a string op");
  }
  try {
    return JSON.stringify({ id: req.id, ok: handle(req.op, req.args) }) + "\n";
  } catch (e) {
    if (e instanceof Reject) return errLine(req.id, e.code, e.message);
    process.stderr.write(`cdc-node: request ${req.id}: ${e.stack}\n`);
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
