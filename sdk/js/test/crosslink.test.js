// crosslink.test.js: the Crosslink drop-in, runConformance(adapter, options)
// of @refereehq/referee/crosslink, on an honest ProtocolAdapter and on one
// broken by hand, with upstream's report shape predicted for each.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runConformance } from "@refereehq/referee/crosslink";
import { adapter as honest } from "../examples/crosslink-codec.js";
import { FAILING_CHECKS, FRAME_FAILURES, NEGATIVE_FAILURES, UPSTREAM_FAILURES, broken } from "./fixtures/crosslink-broken.js";
import { sharedCorpus } from "./helpers.js";

describe("Crosslink drop-in", () => {
  it("the honest adapter passes all 249 checks of the embedded corpus", async () => {
    const r = await runConformance(honest);
    assert.equal(r.passed, 249);
    assert.equal(r.failed, 0);
    assert.deepEqual(r.failures, []);
    assert.equal(r.report.conformant, true);
    assert.equal(r.report.suite.corpus, "embedded:crosslink");
    assert.deepEqual(r.report.implementation.ops.sort(), ["canonicalJson", "decodeMessage", "encodeFrame"]);
  });

  it("the broken adapter fails exactly the 15 predicted checks, in upstream's shape", async () => {
    const r = await runConformance(broken);
    assert.equal(r.passed, 234);
    assert.equal(r.failed, 15);
    assert.equal(r.failures.length, 15);
    const frames = r.failures.filter((f) => f.operation === "frame");
    assert.deepEqual(frames.map((f) => f.case).sort(), [...FRAME_FAILURES].sort());
    for (const f of frames) {
      // The same payload behind a different prefix: the first 4 bytes differ, the rest not.
      assert.notEqual(f.expected.slice(0, 8), f.actual.slice(0, 8));
      assert.equal(f.expected.slice(8), f.actual.slice(8));
    }
    const negatives = r.failures.filter((f) => f.operation === "negative");
    assert.deepEqual(negatives.map((f) => f.case).sort(), [...NEGATIVE_FAILURES].sort());
    for (const f of negatives) assert.deepEqual([f.expected, f.actual], ["parse_error", "invalid_message"]);
    // referee's report beside it: the same checks, with levels and evidence.
    const failed = r.report.checks.filter((c) => c.status !== "pass");
    assert.deepEqual(failed.map((c) => c.id).sort(), [...FAILING_CHECKS].sort());
    for (const c of failed) {
      assert.equal(c.level, "must");
      assert.ok(c.evidence.exchanges.length > 0 && c.evidence.repro, c.id);
    }
  });

  it("upstream's own corpus (options.corpus): 31 checks, and the broken adapter fails invalid-json only", { skip: !sharedCorpus("crosslink") && "REFEREE_SHARED is not set" }, async () => {
    const corpus = sharedCorpus("crosslink");
    const h = await runConformance(honest, { corpus });
    assert.deepEqual([h.passed, h.failed], [31, 0]);
    const b = await runConformance(broken, { corpus, version: 1, cases: [], invalid: [] });
    assert.deepEqual([b.passed, b.failed], [30, 1]);
    assert.deepEqual(b.failures, UPSTREAM_FAILURES);
  });

  it("a method the adapter lacks counts in neither passed nor failed (not-checked)", async () => {
    const { decodeMessage: _, ...noDecode } = honest;
    const r = await runConformance(noDecode);
    // decodeMessage is in every /decode check (38), every invalid/ (89) and decode/ (14).
    assert.equal(r.report.counts.not_checked, 141);
    assert.deepEqual([r.passed, r.failed], [108, 0]);
  });

  it("decodeMessage's value reaches canonicalJson as it was returned, as in upstream's round trip", async () => {
    const seen = new Set();
    const tagged = {
      ...honest,
      decodeMessage(bytes) {
        const v = honest.decodeMessage(bytes);
        seen.add(v);
        return v;
      },
      canonicalJson(v) {
        if (!seen.has(v)) throw new Error("not the object decodeMessage returned");
        return honest.canonicalJson(v);
      },
    };
    const r = await runConformance(tagged, { run: "crosslink/cases/ping/decode" });
    assert.deepEqual([r.passed, r.failed], [1, 0]);
  });

  it("an adapter that never answers: referee gives up, and the report still resolves, every check a failure", async () => {
    const hang = () => new Promise(() => {});
    const r = await runConformance({ canonicalJson: hang, encodeFrame: hang, decodeMessage: hang, errorCode: () => undefined }, { timeout: 200 });
    assert.deepEqual([r.passed, r.failed], [0, 249]);
    assert.equal(r.report.complete, false);
    assert.match(r.failures[0].actual, /^error: adapter timeout/);
    assert.match(r.failures.at(-1).actual, /^error: not run: adapter gave up after repeated faults/);
  });

  it("the Promise says to await it when read as the report", () => {
    const p = runConformance(honest, { run: "crosslink/cases/ping" });
    assert.throws(() => p.failed, /await/);
    return p;
  });

  it("an object that is no adapter is a TypeError", () => {
    assert.throws(() => runConformance(null), TypeError);
  });
});
