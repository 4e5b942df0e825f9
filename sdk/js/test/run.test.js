// run.test.js: runConformance against referee's own reference
// implementations and against implementations broken by hand, with the
// verdicts predicted from the suites' pages and corpora.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RefereeError, findBinary, runConformance } from "@refereehq/referee";
import { adapter as codec } from "../examples/crosslink-codec.js";

const bin = findBinary();

// Crosslink ops over the honest codec, as a plain serveAdapter ops object.
function crosslinkOps(overrides = {}) {
  return {
    canonicalJson: (args, call) => codec.canonicalJson(call.value()),
    encodeFrame: (args, call) => codec.encodeFrame(call.value()),
    decodeMessage: (args, call) => codec.decodeMessage(call.bytes("payload_hex")),
    ...overrides,
  };
}

const ids = (report, status) => report.checks.filter((c) => c.status === status).map((c) => c.id).sort();

// A JCS "canonicaliser" as many first tries write it: JSON.parse, keys sorted
// into a new object, JSON.stringify. Its failures, from RFC 8785 and the jcs
// corpus's inputs (docs/suites/jcs.md): lone surrogates and numbers beyond
// double range are written instead of refused (JSON.stringify escapes the
// one and writes null for the other); "__proto__" assigned into {} sets the
// prototype, so the member is lost; and integer-like keys ("10", "9") are
// enumerated first, in numeric order, whatever order they were added in.
// Duplicate keys are accepted (a should: warnings). The 22 inputs that are
// not UTF-8 travel to canonicalJsonBytes, which it does not offer.
const naiveJcs = {
  canonicalJson: ({ value_text }) => {
    const sortKeys = (v) =>
      Array.isArray(v)
        ? v.map(sortKeys)
        : v !== null && typeof v === "object"
          ? Object.keys(v)
              .sort()
              .reduce((o, k) => {
                o[k] = sortKeys(v[k]);
                return o;
              }, {})
          : v;
    return JSON.stringify(sortKeys(JSON.parse(value_text)));
  },
};
const NAIVE_JCS_FAILS = [
  "jcs/keys/ascii", "jcs/keys/numeric-strings", "jcs/scale/object-500", "jcs/scale/object-1000-numeric-names",
  "jcs/names/proto", "jcs/names/proto-object", "jcs/names/proto-among-others", "jcs/names/proto-nested", "jcs/names/all-together",
  "jcs/rejects/lone-high-surrogate", "jcs/rejects/lone-low-surrogate", "jcs/rejects/lone-surrogate-key", "jcs/rejects/reversed-pair",
  "jcs/rejects/overflow", "jcs/rejects/overflow-negative", "jcs/rejects/overflow-just-above-max",
  "jcs/surrogates/high-high", "jcs/surrogates/high-high-low", "jcs/surrogates/low-low", "jcs/surrogates/high-bmp-escape",
  "jcs/surrogates/high-escaped-quote", "jcs/surrogates/high-short-escape", "jcs/surrogates/high-raw-ascii",
  "jcs/surrogates/high-raw-non-ascii", "jcs/surrogates/high-raw-astral", "jcs/surrogates/high-at-end-of-text",
  "jcs/surrogates/high-before-pair", "jcs/surrogates/key-high-high", "jcs/surrogates/key-high-bmp-escape",
  "jcs/surrogates/key-high-at-end", "jcs/surrogates/key-low-low",
];
const DUPLICATES = ["jcs/rejects/duplicate-key", "jcs/rejects/duplicate-key-escaped", "jcs/rejects/duplicate-key-nested"];

describe("runConformance against referee's reference", () => {
  it("referee serve crosslink, as a command: all 249 checks pass", async () => {
    const r = await runConformance("crosslink", [bin, "serve", "crosslink"]);
    assert.equal(r.format, "referee-report/2");
    assert.equal(r.implementation.transport, "stdio");
    assert.deepEqual(r.counts, { pass: 249, fail: 0, warn: 0, not_checked: 0, error: 0 });
    assert.equal(r.conformant, true);
  });

  it("referee serve jcs, as a command: conformant, nothing failed", async () => {
    const r = await runConformance("jcs", [bin, "serve", "jcs"]);
    assert.equal(r.conformant, true);
    assert.equal(r.counts.fail + r.counts.error + r.counts.not_checked, 0);
    assert.equal(r.counts.pass, r.checks.length);
  });

  it("the built-in in a broken mode: little-endian fails every frame and the three framed limits", async () => {
    const r = await runConformance("crosslink", null, { mode: "little-endian" });
    const want = [
      ...r.checks.filter((c) => /^crosslink\/cases\/[^/]+\/frame$/.test(c.id)).map((c) => c.id),
      "crosslink/limits/at-max", "crosslink/limits/over-1mib", "crosslink/limits/small",
    ].sort();
    assert.equal(want.length, 41);
    assert.deepEqual(ids(r, "fail"), want);
    assert.equal(r.conformant, false);
  });
});

describe("runConformance against implementations broken by hand", () => {
  it("a naive JSON.stringify JCS, in process: the predicted 31 failures, 3 warnings, 22 not checked", async () => {
    const r = await runConformance("jcs", naiveJcs, { name: "naive-jcs" });
    assert.equal(r.implementation.transport, "http");
    assert.equal(r.implementation.name, "naive-jcs");
    assert.deepEqual(
      r.checks.filter((c) => c.status === "fail" && c.level !== "should").map((c) => c.id).sort(),
      [...NAIVE_JCS_FAILS].sort(),
    );
    assert.deepEqual(r.checks.filter((c) => c.level === "should" && c.status === "fail").map((c) => c.id).sort(), DUPLICATES);
    assert.equal(r.counts.not_checked, 22);
    assert.ok(r.checks.filter((c) => c.status === "not-checked").every((c) => c.id.startsWith("jcs/utf8/")));
    assert.deepEqual(r.counts, { pass: r.checks.length - 31 - 3 - 22, fail: 31, warn: 3, not_checked: 22, error: 0 });
    assert.equal(r.conformant, false);
  });

  it("the honest Crosslink codec as ops, in process: all 249 pass", async () => {
    const r = await runConformance("crosslink", crosslinkOps(), { concurrency: 4 });
    assert.deepEqual(r.counts, { pass: 249, fail: 0, warn: 0, not_checked: 0, error: 0 });
  });

  it("an ops object missing an op: its checks are not-checked, and block only under strict", async () => {
    const { encodeFrame: _, ...ops } = crosslinkOps();
    const r = await runConformance("crosslink", ops);
    // 38 cases/*/frame, 4 limits/, 14 refuse/*/frame.
    assert.equal(r.counts.not_checked, 56);
    assert.equal(r.counts.pass, 193);
    for (const c of r.checks.filter((c) => c.status === "not-checked")) {
      assert.match(c.id, /\/frame$|^crosslink\/limits\//);
      assert.equal(c.reason, "adapter offers no encodeFrame");
    }
    assert.ok(!r.implementation.ops.includes("encodeFrame"));
    assert.equal(r.conformant, true);
    const strict = await runConformance("crosslink", ops, { strict: true, run: "crosslink/limits" });
    assert.equal(strict.conformant, false);
  });

  const ping = { run: "crosslink/cases/ping" };
  const isPing = (v) => v?.t === "ping" && v.ts === 1700000000000;

  it("an op that throws a value that is not an Error: a failed check with the value in evidence", async () => {
    const ops = crosslinkOps({
      canonicalJson: (args, call) => {
        const v = call.value();
        if (isPing(v)) throw "boom";
        return codec.canonicalJson(v);
      },
    });
    const r = await runConformance("crosslink", ops, ping);
    assert.deepEqual(ids(r, "fail"), ["crosslink/cases/ping/canonical", "crosslink/cases/ping/decode"]);
    const c = r.checks.find((c) => c.id === "crosslink/cases/ping/canonical");
    assert.match(c.reason, /^canonicalJson threw/);
    assert.match(c.evidence.exchanges[0].reply, /not an Error: \\"boom\\"/);
  });

  it("an op that returns a number where a string is due: failed, saying so", async () => {
    const ops = crosslinkOps({ canonicalJson: () => 42 });
    const r = await runConformance("crosslink", ops, ping);
    const c = r.checks.find((c) => c.id === "crosslink/cases/ping/canonical");
    assert.equal(c.status, "fail");
    assert.match(c.reason, /canonicalJson returned .*number.*not a string/);
  });

  it("an op that never resolves: an error check with the timeout as its reason, and the run goes on", async () => {
    const ops = crosslinkOps({
      canonicalJson: (args, call) => (isPing(call.value()) ? new Promise(() => {}) : codec.canonicalJson(call.value())),
    });
    const t0 = Date.now();
    const r = await runConformance("crosslink", ops, { ...ping, timeout: 300 });
    assert.ok(Date.now() - t0 < 8000);
    assert.deepEqual(ids(r, "error"), ["crosslink/cases/ping/canonical", "crosslink/cases/ping/decode"]);
    assert.deepEqual(ids(r, "pass"), ["crosslink/cases/ping/frame"]);
    for (const c of r.checks.filter((c) => c.status === "error")) assert.match(c.reason, /timeout/);
    assert.equal(r.complete, true);
  });

  it("an op that returns what JSON cannot carry: an error check (an adapter fault), not a crash", async () => {
    const ops = crosslinkOps({ encodeFrame: () => 1n });
    const r = await runConformance("crosslink", ops, { run: "crosslink/cases/ping/frame" });
    const c = r.checks[0];
    assert.equal(c.status, "error");
    assert.match(JSON.stringify(c.evidence), /JSON cannot carry/);
  });

  it("an ops object for an adapter that never answers at all: exit 3 is a RefereeError carrying the incomplete report", async () => {
    const ops = { canonicalJson: () => new Promise(() => {}) };
    await assert.rejects(runConformance("jcs", ops, { timeout: 200, run: "jcs/numbers" }), (e) => {
      assert.ok(e instanceof RefereeError);
      assert.equal(e.code, "REFEREE_INCOMPLETE");
      assert.equal(e.report.complete, false);
      assert.ok(e.report.checks.every((c) => c.status === "error"));
      return true;
    });
  });
});

describe("runConformance's errors", () => {
  it("exit 2 (a selection that matches nothing) is a RefereeError with referee's stderr", async () => {
    await assert.rejects(runConformance("crosslink", null, { run: "crosslink/no-such-check" }), (e) => {
      assert.equal(e.code, "REFEREE_USAGE");
      assert.equal(e.exitCode, 2);
      assert.match(e.message, /no-such-check/);
      return true;
    });
  });

  it("a program that cannot be started is exit 3, a RefereeError", async () => {
    await assert.rejects(runConformance("jcs", ["/nonexistent/adapter"]), (e) => e.code === "REFEREE_INCOMPLETE" && /nonexistent/.test(e.message));
  });

  it("a report that cannot be parsed is an error naming referee's version", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fake-referee-"));
    try {
      const fake = join(dir, "referee");
      // A stand-in for a referee of another version: it writes no report it should.
      writeFileSync(
        fake,
        `#!/bin/sh
if [ "$1" = version ]; then echo "referee 9.9.9-other"; exit 0; fi
while [ $# -gt 0 ]; do if [ "$1" = --json ]; then echo '{"format":"referee-report/9","checks":[]}' > "$2"; fi; shift; done
exit 0
`,
      );
      chmodSync(fake, 0o755);
      await assert.rejects(runConformance("jcs", null, { bin: fake }), (e) => {
        assert.equal(e.code, "REFEREE_BAD_REPORT");
        assert.match(e.message, /referee 9\.9\.9-other/);
        assert.match(e.message, /referee-report\/9/);
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("options that do not fit the target are a TypeError before referee runs", async () => {
    await assert.rejects(runConformance("jcs", ["node", "x.mjs"], { mode: "go-float" }), TypeError);
    await assert.rejects(runConformance("jcs", naiveJcs, { env: { A: "1" } }), TypeError);
    await assert.rejects(runConformance("jcs", "node x.mjs"), TypeError);
  });

  it("a bin option that does not exist is a RefereeError saying so", async () => {
    await assert.rejects(runConformance("jcs", null, { bin: "/nonexistent/referee" }), (e) => e.code === "REFEREE_BIN_MISSING");
  });
});
