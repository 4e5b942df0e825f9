// node-test.test.js: conformanceTests registers one node:test test per
// check; each fixture is run with node --test in a child process and its
// pass, fail, skip and todo counts are the ones predicted from the adapter.

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fixtures, nodeTest } from "./helpers.js";

const file = join(fixtures, "node-test-crosslink.js");
const runFixture = (name) => nodeTest(file, { ...process.env, FIXTURE_ADAPTER: name });
// has says whether the TAP output matches, without printing all of it when it does not.
const has = (r, re) => assert.ok(re.test(r.stdout), `the TAP output has no ${re}`);

describe("conformanceTests", () => {
  it("honest adapter: 249 passing tests and a passing exit status", async () => {
    const r = await runFixture("honest");
    assert.deepEqual(r.counts, { tests: 250, pass: 250, fail: 0, skipped: 0, todo: 0, cancelled: 0 }, r.stderr);
    assert.equal(r.code, 0);
    has(r, /^\s*ok \d+ - crosslink\/cases\/ping\/frame$/m);
  });

  it("broken adapter: the 15 predicted checks and the exit status fail, with the text report's evidence", async () => {
    const r = await runFixture("broken");
    assert.deepEqual(r.counts, { tests: 250, pass: 234, fail: 16, skipped: 0, todo: 0, cancelled: 0 });
    assert.notEqual(r.code, 0);
    has(r, /^\s*not ok \d+ - crosslink\/cases\/keys-non-ascii\/frame$/m);
    has(r, /^\s*not ok \d+ - crosslink\/invalid\/invalid-json$/m);
    has(r, /^\s*not ok \d+ - exit status$/m);
    // The frame failure's evidence, as the text report has it.
    for (const want of [/frame differs at byte/, /first difference at byte/, /sent: +\{"id":/, /received: +\{"id":/, /repro: curl /]) {
      has(r, want);
    }
  });

  it("an adapter without encodeFrame: its 56 checks are skipped with the reason, the rest pass", async () => {
    const r = await runFixture("no-frame");
    assert.deepEqual(r.counts, { tests: 250, pass: 194, fail: 0, skipped: 56, todo: 0, cancelled: 0 });
    has(r, /crosslink\/limits\/at-max # SKIP adapter offers no encodeFrame/);
  });

  it("a baseline that lists the broken adapter's failures: they are todo, and the exit status passes", async () => {
    const r = await runFixture("known-failing");
    assert.deepEqual(r.counts, { tests: 250, pass: 235, fail: 0, skipped: 0, todo: 15, cancelled: 0 });
    assert.equal(r.code, 0);
  });

  it("an op that never resolves: its checks fail as errors with the timeout, the test process finishes", async () => {
    const r = await runFixture("hanging");
    assert.deepEqual(r.counts, { tests: 4, pass: 1, fail: 3, skipped: 0, todo: 0, cancelled: 0 });
    has(r, /ERROR \(must\): adapter timeout/);
  });

  it("the jcs example adapter as a command: its three failed should checks pass with a warning diagnostic", async () => {
    const r = await runFixture("jcs-example");
    assert.deepEqual(r.counts, { tests: 567, pass: 567, fail: 0, skipped: 0, todo: 0, cancelled: 0 });
    assert.equal(r.stdout.match(/^\s*# warning \(a failed should check\): accepted duplicate member names/gm)?.length, 3);
  });

  it("under strict, the same three warnings fail, and so does the exit status", async () => {
    const r = await runFixture("jcs-example-strict");
    assert.deepEqual(r.counts, { tests: 567, pass: 563, fail: 4, skipped: 0, todo: 0, cancelled: 0 });
    has(r, /^\s*not ok \d+ - jcs\/rejects\/duplicate-key-escaped$/m);
  });

  it("a run referee refuses (exit 2) is one failing test that says why", async () => {
    const r = await runFixture("unrunnable");
    assert.deepEqual(r.counts, { tests: 1, pass: 0, fail: 1, skipped: 0, todo: 0, cancelled: 0 });
    has(r, /not ok 1 - referee run/);
    has(r, /no-such-check/);
  });
});
