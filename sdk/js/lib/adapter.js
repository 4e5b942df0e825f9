// adapter.js: the adapter side of referee-adapter/1 (docs/adapter-protocol.md)
// for an object of ops: one request in, one reply out, over stdio
// (serveAdapter) or over loopback HTTP (serveAdapterHttp).

import { Console } from "node:console";
import { createServer } from "node:http";
import { createInterface } from "node:readline";

/** The protocol this package speaks. */
export const PROTOCOL = "referee-adapter/1";

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** toHex is the lowercase hex of bytes (a Uint8Array, Buffer, ArrayBuffer or DataView). */
export function toHex(bytes) {
  return Buffer.from(asBytes(bytes)).toString("hex");
}

/** fromHex is the bytes of a hex string (either case), or throws a TypeError. */
export function fromHex(text) {
  if (typeof text !== "string" || !HEX.test(text)) {
    throw Object.assign(new TypeError(`not a hex string: ${describe(text)}`), { code: "bad_args" });
  }
  return new Uint8Array(Buffer.from(text, "hex"));
}

function asBytes(b) {
  if (b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  throw new TypeError(`not bytes: ${describe(b)}`);
}

/** describe is a short text for any value, for messages. */
export function describe(v) {
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (typeof v === "string") return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "symbol" || typeof v === "function") return String(v);
  if (typeof v !== "object") return String(v);
  try {
    const s = JSON.stringify(v);
    if (s !== undefined) return s.length > 80 ? `${s.slice(0, 80)}…` : s;
  } catch {
    // fall through
  }
  return Object.prototype.toString.call(v);
}

/** opNames lists the functions an ops object offers as ops, own and inherited (not Object's). */
export function opNames(ops) {
  const names = new Set();
  for (let o = ops; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    for (const k of Object.getOwnPropertyNames(o)) {
      if (k === "constructor" || k === "hello") continue;
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (d && typeof d.value === "function") names.add(k);
    }
  }
  return [...names];
}

function codeOf(e, errorCode) {
  let code;
  if (errorCode) {
    try {
      code = errorCode(e);
    } catch {
      code = undefined;
    }
  } else if (e !== null && (typeof e === "object" || typeof e === "function")) {
    code = e.code;
  }
  if (typeof code === "string") return code;
  if (typeof code === "number" && Number.isFinite(code)) return String(code);
  return null;
}

/** errorMessage is the message of an err reply for a thrown value: an Error's message, or what the value was. */
export function errorMessage(e, op) {
  if (e instanceof Error) return e.message || e.name || "Error";
  return `${op} threw a value that is not an Error: ${describe(e)}`;
}

/** AdapterError is an error with a code, thrown by an op to answer err {code, message}. */
export class AdapterError extends Error {
  constructor(code, message) {
    super(message ?? String(code));
    this.name = "AdapterError";
    this.code = code ?? null;
  }
}

/**
 * createHandler turns an ops object into a function from one request object
 * to one reply object (Promise). options: name, version, concurrency,
 * errorCode (error → code; default the error's `code` property).
 */
export function createHandler(ops, options = {}) {
  if (ops === null || typeof ops !== "object") {
    throw new TypeError(`serveAdapter: ops must be an object whose functions are the ops, not ${describe(ops)}`);
  }
  const names = opNames(ops);
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`serveAdapter: concurrency must be an integer of at least 1, not ${describe(concurrency)}`);
  }
  const hello = {
    name: options.name || "js-adapter",
    version: options.version ?? "",
    ops: names,
    concurrency,
  };
  const state = { suite: undefined, corpus: undefined, hello: undefined };
  const offered = new Set(names);

  async function handle(req) {
    if (req === null || typeof req !== "object" || Array.isArray(req)) {
      return { id: null, err: { code: "bad_request", message: "a request is a JSON object" } };
    }
    const id = Number.isInteger(req.id) ? req.id : null;
    if (id === null || typeof req.op !== "string") {
      return { id, err: { code: "bad_request", message: "a request has an integer id and a string op" } };
    }
    const args = req.args !== null && typeof req.args === "object" && !Array.isArray(req.args) ? req.args : {};
    if (req.op === "hello") {
      if (args.protocol !== PROTOCOL) {
        return { id, err: { code: "unsupported_protocol", message: `this adapter speaks ${PROTOCOL}, not ${describe(args.protocol)}` } };
      }
      state.suite = args.suite;
      state.corpus = args.corpus;
      state.hello = args;
      return { id, ok: hello };
    }
    if (!offered.has(req.op)) {
      return { id, err: { code: "unknown_op", message: `no op ${describe(req.op)}` } };
    }
    const call = {
      id,
      op: req.op,
      suite: state.suite,
      corpus: state.corpus,
      hello: state.hello,
      value: (name = "value") => (typeof args[`${name}_text`] === "string" ? JSON.parse(args[`${name}_text`]) : args[name]),
      bytes: (name) => fromHex(name.endsWith("_hex") ? args[name] : args[`${name}_hex`]),
    };
    let result;
    try {
      result = await ops[req.op](args, call);
    } catch (e) {
      return { id, err: { code: codeOf(e, options.errorCode), message: errorMessage(e, req.op) } };
    }
    return { id, ok: okValue(result) };
  }

  return { hello, handle, state };
}

function okValue(v) {
  if (v === undefined) return null;
  if (v instanceof Uint8Array || v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return toHex(v);
  return v;
}

/**
 * replyLine is the JSON text of a reply. A reply whose ok value JSON cannot
 * carry (a BigInt, a cycle) becomes a line with neither ok nor err, which
 * referee takes for an adapter fault: the check ends in error, with the line
 * (and so this message) as its evidence.
 */
export function replyLine(reply, op) {
  try {
    return JSON.stringify(reply);
  } catch (e) {
    return JSON.stringify({
      id: reply.id,
      fault: `serveAdapter: ${op ?? "the op"} returned a value JSON cannot carry (${e.message})`,
    });
  }
}

function consoleToStderr() {
  const err = new Console({ stdout: process.stderr, stderr: process.stderr });
  const names = ["log", "info", "debug", "dir", "dirxml", "table", "trace", "group", "groupCollapsed", "groupEnd", "count", "countReset", "time", "timeEnd", "timeLog"];
  const saved = names.map((n) => [n, console[n]]);
  for (const n of names) console[n] = err[n].bind(err);
  return () => {
    for (const [n, f] of saved) console[n] = f;
  };
}

/**
 * serveAdapter answers referee-adapter/1 requests on stdin (one JSON line
 * each) with one reply line each on stdout, until stdin ends; it resolves
 * when every reply has been written. While it serves process.stdout, the
 * console's log, info and debug write to stderr, which is the adapter's log.
 */
export function serveAdapter(ops, options = {}) {
  const { handle } = createHandler(ops, options);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const restore = output === process.stdout && options.guardConsole !== false ? consoleToStderr() : () => {};
  return new Promise((resolve, reject) => {
    const pending = new Set();
    let ended = false;
    const finish = () => {
      if (ended && pending.size === 0) {
        restore();
        resolve();
      }
    };
    const rl = createInterface({ input, crlfDelay: Infinity, terminal: false });
    rl.on("line", (line) => {
      if (line.trim() === "") return;
      let req;
      try {
        req = JSON.parse(line);
      } catch (e) {
        output.write(`${JSON.stringify({ id: null, err: { code: "bad_request", message: `not JSON: ${e.message}` } })}\n`);
        return;
      }
      const p = handle(req).then(
        (reply) => {
          output.write(`${replyLine(reply, req?.op)}\n`);
        },
        (e) => {
          output.write(`${JSON.stringify({ id: req?.id ?? null, err: { code: null, message: String(e?.message ?? e) } })}\n`);
        },
      );
      pending.add(p);
      p.finally(() => {
        pending.delete(p);
        finish();
      });
    });
    rl.on("close", () => {
      ended = true;
      finish();
    });
    input.on("error", (e) => {
      restore();
      reject(e);
    });
    // referee gone (EPIPE): nobody reads the replies any more, so stop.
    output.on("error", () => {
      ended = true;
      pending.clear();
      rl.close();
      finish();
    });
  });
}

const MAX_BODY = 64 * 1024 * 1024;

/**
 * serveAdapterHttp serves the same ops over HTTP, as `referee run --url`
 * reaches them: each request line is the body of a POST and the reply its
 * response body. It listens on options.host (127.0.0.1) and options.port (0:
 * any free one) and resolves to {url, port, server, close()}.
 */
export async function serveAdapterHttp(ops, options = {}) {
  const { handle } = createHandler(ops, options);
  const server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405, { Allow: "POST", "Content-Type": "text/plain" });
      res.end("referee adapter: POST one request per call\n");
      return;
    }
    const chunks = [];
    let size = 0;
    let refused = false;
    req.on("data", (c) => {
      if (refused) return;
      size += c.length;
      if (size > MAX_BODY) {
        refused = true;
        res.writeHead(413, { "Content-Type": "text/plain" });
        res.end("request too large\n");
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", async () => {
      if (refused) return;
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (e) {
        send(res, JSON.stringify({ id: null, err: { code: "bad_request", message: `not JSON: ${e.message}` } }));
        return;
      }
      let line;
      try {
        line = replyLine(await handle(body), body?.op);
      } catch (e) {
        line = JSON.stringify({ id: body?.id ?? null, err: { code: null, message: String(e?.message ?? e) } });
      }
      send(res, line);
    });
  });
  server.keepAliveTimeout = 60_000;
  const host = options.host ?? "127.0.0.1";
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address();
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    server,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res, line) {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(`${line}\n`);
}
