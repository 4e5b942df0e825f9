// examples.test.js: every file under examples/ runs, and does what its
// comments say (install.sh runs in install.test.js, which has the tarballs).

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runConformance } from "@refereehq/referee";
import { examples, nodeTest, run } from "./helpers.js";

describe("examples", () => {
  it("jcs-adapter.mjs: conformant, its only failures the three duplicate-key warnings", async () => {
    const r = await runConformance("jcs", [process.execPath, join(examples, "jcs-adapter.mjs")]);
    assert.equal(r.conformant, true);
    assert.equal(r.implementation.name, "jcs-js-example");
    assert.deepEqual({ ...r.counts, pass: 0 }, { pass: 0, fail: 0, warn: 3, not_checked: 0, error: 0 });
    assert.deepEqual(
      r.checks.filter((c) => c.status !== "pass").map((c) => c.id).sort(),
      ["jcs/rejects/duplicate-key", "jcs/rejects/duplicate-key-escaped", "jcs/rejects/duplicate-key-nested"],
    );
  });

  it("crosslink-dropin.mjs: exits 0 and says 249 checks passed", async () => {
    const r = await run([process.execPath, join(examples, "crosslink-dropin.mjs")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^249 checks passed \(referee .*, corpus embedded:crosslink\)$/m);
  });

  it("crosslink.test.mjs: node --test reports 249 checks and the exit status passing", async () => {
    const r = await nodeTest(join(examples, "crosslink.test.mjs"));
    assert.deepEqual(r.counts, { tests: 250, pass: 250, fail: 0, skipped: 0, todo: 0, cancelled: 0 }, r.stderr);
  });
});
