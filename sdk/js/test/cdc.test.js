// cdc.test.js: the CDC drop-in, runConformance(adapter) of
// @refereehq/referee/cdc, on the contract's hook object answered by
// referee's reference (`referee serve cdc`), on the same with hooks broken
// or left out, with the contract's report shape predicted for each.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { findBinary } from "@refereehq/referee";
import { runConformance } from "@refereehq/referee/cdc";
import { cdcHooks } from "./fixtures/cdc-hooks.js";
import { startReference } from "./fixtures/reference.js";
import { sharedCorpus } from "./helpers.js";

const FLAGS = ["canonicalChecked", "narrowingChecked", "signaturesChecked", "rulesChecked", "errorPathsChecked"];
const flags = (r) => Object.fromEntries(FLAGS.map((f) => [f, r[f]]));

describe("CDC drop-in on the embedded release 1.0.2", () => {
  let ref;
  before(async () => {
    ref = await startReference(findBinary(), "cdc");
  });
  after(() => ref.close());

  it("every hook answered by the reference: 20 valid, 26 invalid, no failure; 1.0 has only canonical bytes of the later steps", async () => {
    const r = await runConformance(cdcHooks(ref));
    assert.equal(r.validCount, 20);
    assert.equal(r.invalidCount, 26);
    assert.deepEqual(flags(r), {
      canonicalChecked: true,
      narrowingChecked: false,
      signaturesChecked: false,
      rulesChecked: false,
      errorPathsChecked: false,
    });
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.report.counts, { pass: 118, fail: 0, warn: 0, not_checked: 0, error: 0 });
  });

  it("a canonicalise that writes a placeholder for NaN and Infinity fails canonical/infinity and canonical/nan only", async () => {
    const h = cdcHooks(ref);
    const hooks = {
      ...h,
      async validate(shape, value) {
        const v = await h.validate(shape, value);
        hooks.lastErrors = h.lastErrors;
        return v;
      },
      async canonicalise(value) {
        try {
          return await h.canonicalise(value);
        } catch {
          return "null";
        }
      },
    };
    const r = await runConformance(hooks);
    assert.equal(r.failures.length, 2);
    assert.match(r.failures[0], /^canonical\/infinity: serialised without failing, but it must fail/);
    assert.match(r.failures[1], /^canonical\/nan: serialised without failing, but it must fail/);
    assert.deepEqual(
      r.report.checks.filter((c) => c.status === "fail").map((c) => c.id),
      ["cdc/canonical/infinity", "cdc/canonical/nan"],
    );
  });

  it("validate alone: the other hooks' checks are not-checked and canonicalChecked is false", async () => {
    const h = cdcHooks(ref);
    const hooks = {
      lastErrors: undefined,
      async validate(shape, value) {
        const v = await h.validate(shape, value);
        hooks.lastErrors = h.lastErrors;
        return v;
      },
    };
    const r = await runConformance(hooks);
    assert.equal(r.canonicalChecked, false);
    assert.deepEqual(r.failures, []);
    const notChecked = r.report.checks.filter((c) => c.status === "not-checked");
    // 11 canonical checks, 20 roundtrip/*/kept, and the supplement's canonical and round-trip cases.
    assert.ok(notChecked.some((c) => c.id === "cdc/canonical/nan" && c.reason === "canonical bytes NOT CHECKED (adapter offers no canonicalise)"));
    assert.equal(notChecked.filter((c) => /^cdc\/canonical\//.test(c.id)).length, 11);
    assert.equal(notChecked.filter((c) => /^cdc\/roundtrip\/.*\/kept$/.test(c.id)).length, 20);
    assert.equal(r.report.checks.filter((c) => /^cdc\/roundtrip\/.*\/tolerated$/.test(c.id) && c.status === "pass").length, 20);
  });

  it("a validate that returns truthy values and a Promise is read as upstream reads it", async () => {
    const h = cdcHooks(ref);
    const hooks = {
      lastErrors: undefined,
      validate: async (shape, value) => {
        const v = await h.validate(shape, value);
        hooks.lastErrors = h.lastErrors;
        return v ? 1 : 0;
      },
    };
    const r = await runConformance(hooks, { run: ["cdc/valid", "cdc/invalid"] });
    assert.deepEqual([r.validCount, r.invalidCount, r.failures.length], [20, 26, 0]);
  });
});

describe("CDC drop-in on the 1.2.1 corpus (options.corpus)", { skip: !sharedCorpus("cdc") && "REFEREE_SHARED is not set" }, () => {
  let ref;
  before(async () => {
    ref = await startReference(findBinary(), "cdc", ["--corpus", sharedCorpus("cdc")]);
  });
  after(() => ref?.close());

  it("every hook answered by the reference: every flag true, 474 checks pass", async () => {
    const r = await runConformance(cdcHooks(ref), { corpus: sharedCorpus("cdc") });
    assert.equal(r.validCount, 40);
    assert.equal(r.invalidCount, 98);
    assert.deepEqual(Object.values(flags(r)), [true, true, true, true, true]);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.report.counts, { pass: 474, fail: 0, warn: 0, not_checked: 0, error: 0 });
  });

  it("lastErrors that is not an array: the 98 path checks are not-checked and errorPathsChecked is false", async () => {
    const h = cdcHooks(ref);
    const hooks = { ...h, lastErrors: "none", validate: (shape, value) => h.validate(shape, value) };
    const r = await runConformance(hooks, { corpus: sharedCorpus("cdc"), run: "cdc/invalid" });
    assert.equal(r.errorPathsChecked, false);
    assert.equal(r.report.checks.filter((c) => c.status === "not-checked").length, 98);
    assert.equal(r.invalidCount, 98);
  });

  it("a hash in uppercase hex fails the three signature vectors' hash checks", async () => {
    const h = cdcHooks(ref);
    const hooks = {
      ...h,
      validate: async (shape, value) => {
        const v = await h.validate(shape, value);
        hooks.lastErrors = h.lastErrors;
        return v;
      },
      hash: async (value) => (await h.hash(value)).toUpperCase(),
    };
    const r = await runConformance(hooks, { corpus: sharedCorpus("cdc"), run: "cdc/signatures" });
    const failed = r.report.checks.filter((c) => c.status === "fail").map((c) => c.id);
    assert.equal(failed.length, 3);
    assert.ok(failed.every((id) => /^cdc\/signatures\/[^/]+\/hash$/.test(id)), failed.join());
    assert.equal(r.signaturesChecked, true);
  });
});
