// binary.test.js: where the referee binary is found, in order (bin option,
// REFEREE_BIN, the platform package, PATH), and what is said when it is not.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PLATFORMS, RefereeError, locateBinary, platformPackage } from "@refereehq/referee";

describe("locateBinary", () => {
  let dir;
  let fake;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "referee-path-"));
    fake = join(dir, "referee");
    writeFileSync(fake, "#!/bin/sh\necho fake\n");
    chmodSync(fake, 0o755);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the bin option first, then REFEREE_BIN", () => {
    assert.deepEqual(locateBinary({ bin: fake, env: { REFEREE_BIN: "/nonexistent" } }), { path: fake, source: "option" });
    assert.deepEqual(locateBinary({ env: { REFEREE_BIN: fake } }), { path: fake, source: "REFEREE_BIN" });
  });

  it("says so when REFEREE_BIN names nothing, rather than looking further", () => {
    assert.throws(
      () => locateBinary({ env: { REFEREE_BIN: join(dir, "missing"), PATH: dir } }),
      (e) => e instanceof RefereeError && e.code === "REFEREE_BIN_MISSING" && e.message.includes(join(dir, "missing")),
    );
  });

  it("falls back to referee on PATH where no platform package is installed", () => {
    // riscv64 has no package, so the package step finds nothing.
    assert.deepEqual(locateBinary({ env: { PATH: `/nonexistent:${dir}` }, platform: "linux", arch: "riscv64" }), { path: fake, source: "PATH" });
  });

  it("skips a file on PATH that cannot be executed", () => {
    const d = mkdtempSync(join(tmpdir(), "referee-noexec-"));
    try {
      writeFileSync(join(d, "referee"), "not executable", { mode: 0o644 });
      assert.throws(() => locateBinary({ env: { PATH: d }, platform: "linux", arch: "riscv64" }), (e) => e.code === "REFEREE_NOT_FOUND");
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it("names a platform that has no package, the platforms that have one, and REFEREE_BIN", () => {
    assert.throws(
      () => locateBinary({ env: { PATH: "" }, platform: "freebsd", arch: "x64" }),
      (e) => {
        assert.equal(e.code, "REFEREE_NOT_FOUND");
        assert.equal(e.platform, "freebsd-x64");
        assert.match(e.message, /no package for this platform, freebsd-x64/);
        for (const p of PLATFORMS) assert.ok(e.message.includes(p), p);
        assert.match(e.message, /REFEREE_BIN/);
        return true;
      },
    );
  });

  it("names each platform's package", () => {
    assert.equal(platformPackage("win32-arm64"), "@refereehq/referee-win32-arm64");
    assert.deepEqual(PLATFORMS, ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"]);
  });
});
