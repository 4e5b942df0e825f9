// adapter.test.js: serveAdapter and serveAdapterHttp speak referee-adapter/1
// (docs/adapter-protocol.md) for an object of ops.

import assert from "node:assert/strict";
import { request } from "node:http";
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runConformance, serveAdapter, serveAdapterHttp } from "@refereehq/referee";
import { fixtures } from "./helpers.js";

// session serves ops on in-memory streams: send(line) resolves to the next reply line's JSON.
function session(ops, options = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const done = serveAdapter(ops, { ...options, input, output });
  const replies = [];
  const waiting = [];
  const lines = [];
  createInterface({ input: output }).on("line", (l) => {
    lines.push(l);
    const r = JSON.parse(l);
    const w = waiting.shift();
    if (w) w(r);
    else replies.push(r);
  });
  const next = () => (replies.length ? Promise.resolve(replies.shift()) : new Promise((res) => waiting.push(res)));
  return {
    lines,
    write: (obj) => input.write(`${typeof obj === "string" ? obj : JSON.stringify(obj)}\n`),
    next,
    async call(obj) {
      this.write(obj);
      return next();
    },
    end: async () => {
      input.end();
      await done;
    },
  };
}

const HELLO = { id: 0, op: "hello", args: { protocol: "referee-adapter/1", suite: "jcs" } };

describe("serveAdapter", () => {
  it("answers hello with the name, version, the functions as ops and the concurrency", async () => {
    const s = session({ b: () => 1, a: () => 2, notAnOp: 3 }, { name: "t", version: "9", concurrency: 2 });
    assert.deepEqual(await s.call(HELLO), { id: 0, ok: { name: "t", version: "9", ops: ["b", "a"], concurrency: 2 } });
    await s.end();
  });

  it("offers methods a class instance inherits", async () => {
    class Impl {
      canonicalJson() {
        return "x";
      }
    }
    const s = session(new Impl());
    assert.deepEqual((await s.call(HELLO)).ok.ops, ["canonicalJson"]);
    assert.deepEqual(await s.call({ id: 1, op: "canonicalJson", args: {} }), { id: 1, ok: "x" });
    await s.end();
  });

  it("refuses a hello for another protocol", async () => {
    const s = session({});
    const r = await s.call({ id: 0, op: "hello", args: { protocol: "referee-adapter/9" } });
    assert.equal(r.err.code, "unsupported_protocol");
    await s.end();
  });

  it("passes args and the call's text and hex forms to the op, and answers with the request's id", async () => {
    const seen = [];
    const s = session({
      canonicalJson: (args, call) => {
        seen.push([args, call.value(), call.suite]);
        return "ok";
      },
      decodeMessage: (args, call) => Array.from(call.bytes("payload_hex")),
      raw: (args, call) => Array.from(call.bytes("value")),
    });
    await s.call(HELLO);
    assert.deepEqual(await s.call({ id: 7, op: "canonicalJson", args: { value: 1, value_text: "1.0" } }), { id: 7, ok: "ok" });
    assert.deepEqual(seen, [[{ value: 1, value_text: "1.0" }, 1, "jcs"]]);
    assert.deepEqual(await s.call({ id: 8, op: "decodeMessage", args: { payload_hex: "00ff7B" } }), { id: 8, ok: [0, 255, 123] });
    assert.deepEqual(await s.call({ id: 9, op: "raw", args: { value_hex: "41" } }), { id: 9, ok: [65] });
    const bad = await s.call({ id: 10, op: "decodeMessage", args: { payload_hex: "abc" } });
    assert.equal(bad.err.code, "bad_args");
    await s.end();
  });

  it("writes returned bytes as lowercase hex and undefined as null", async () => {
    const s = session({ frame: () => new Uint8Array([0, 0xab, 0xcd]), buf: () => Buffer.from([0xfe]), nothing: () => undefined });
    await s.call(HELLO);
    assert.deepEqual(await s.call({ id: 1, op: "frame", args: {} }), { id: 1, ok: "00abcd" });
    assert.deepEqual(await s.call({ id: 2, op: "buf", args: {} }), { id: 2, ok: "fe" });
    assert.deepEqual(await s.call({ id: 3, op: "nothing", args: {} }), { id: 3, ok: null });
    await s.end();
  });

  it("answers err with a thrown error's code and message, and null for a value that is no Error", async () => {
    const s = session({
      coded: () => {
        throw Object.assign(new Error("duplicate key"), { code: "duplicate_key" });
      },
      plain: () => {
        throw new TypeError("no");
      },
      string: () => {
        throw "boom";
      },
      rejects: () => Promise.reject({ code: "parse_error" }),
    });
    await s.call(HELLO);
    assert.deepEqual(await s.call({ id: 1, op: "coded", args: {} }), { id: 1, err: { code: "duplicate_key", message: "duplicate key" } });
    assert.deepEqual(await s.call({ id: 2, op: "plain", args: {} }), { id: 2, err: { code: null, message: "no" } });
    assert.deepEqual(await s.call({ id: 3, op: "string", args: {} }), {
      id: 3,
      err: { code: null, message: 'string threw a value that is not an Error: "boom"' },
    });
    const r = await s.call({ id: 4, op: "rejects", args: {} });
    assert.equal(r.err.code, "parse_error");
    await s.end();
  });

  it("answers unknown_op for an op it does not offer, and bad_request for a line that is not a request", async () => {
    const s = session({ a: () => 1 });
    await s.call(HELLO);
    assert.equal((await s.call({ id: 1, op: "b", args: {} })).err.code, "unknown_op");
    assert.deepEqual((await s.call("not json")).id, null);
    assert.equal((await s.call({ op: "a" })).err.code, "bad_request");
    await s.end();
  });

  it("answers concurrent requests as each finishes, matched by id", async () => {
    let release;
    const gate = new Promise((r) => (release = r));
    const s = session({ slow: async () => (await gate, "slow"), fast: () => "fast" }, { concurrency: 2 });
    await s.call(HELLO);
    s.write({ id: 1, op: "slow", args: {} });
    s.write({ id: 2, op: "fast", args: {} });
    assert.deepEqual(await s.next(), { id: 2, ok: "fast" });
    release();
    assert.deepEqual(await s.next(), { id: 1, ok: "slow" });
    await s.end();
  });

  it("makes a result JSON cannot carry a line with neither ok nor err (an adapter fault)", async () => {
    const s = session({ big: () => 1n });
    await s.call(HELLO);
    const r = await s.call({ id: 1, op: "big", args: {} });
    assert.equal(r.id, 1);
    assert.ok(!("ok" in r) && !("err" in r), JSON.stringify(r));
    assert.match(r.fault, /big returned a value JSON cannot carry/);
    await s.end();
  });

  it("finishes the replies in flight when stdin ends, then resolves", async () => {
    let release;
    const gate = new Promise((r) => (release = r));
    const s = session({ slow: async () => (await gate, "late") });
    await s.call(HELLO);
    s.write({ id: 1, op: "slow", args: {} });
    const ended = s.end();
    release();
    await ended;
    assert.deepEqual(JSON.parse(s.lines.at(-1)), { id: 1, ok: "late" });
  });

  it("on process.stdout, sends console.log and console.info to stderr, so a logging op is no fault", async () => {
    const logged = [];
    const r = await runConformance("jcs", [process.execPath, join(fixtures, "noisy-adapter.js")], {
      run: "jcs/numbers/million",
      onStderr: (c) => logged.push(c),
    });
    assert.deepEqual(r.counts, { pass: 1, fail: 0, warn: 0, not_checked: 0, error: 0 });
    assert.equal(r.restarts, 0);
    assert.match(logged.join(""), /adapter: canonicalising \[1e6\]/);
    assert.match(logged.join(""), /adapter: info line/);
  });

  it("rejects ops that are not an object, and a concurrency that is not a positive integer", () => {
    assert.throws(() => serveAdapter(null), TypeError);
    assert.throws(() => serveAdapter({}, { concurrency: 0, input: new PassThrough(), output: new PassThrough() }), TypeError);
  });
});

function post(url, body, method = "POST") {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { "Content-Type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("serveAdapterHttp", () => {
  it("answers each POSTed request with its reply, on loopback", async () => {
    const s = await serveAdapterHttp({ canonicalJson: ({ value_text }) => value_text }, { name: "h" });
    try {
      assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      const hello = await post(s.url, JSON.stringify(HELLO));
      assert.equal(hello.status, 200);
      assert.deepEqual(JSON.parse(hello.text).ok.ops, ["canonicalJson"]);
      const r = await post(s.url, JSON.stringify({ id: 3, op: "canonicalJson", args: { value_text: "[1]" } }));
      assert.deepEqual(JSON.parse(r.text), { id: 3, ok: "[1]" });
      assert.equal((await post(s.url, "", "GET")).status, 405);
      assert.equal(JSON.parse((await post(s.url, "{")).text).err.code, "bad_request");
    } finally {
      await s.close();
    }
  });
});
