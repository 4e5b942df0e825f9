// binary.test.js: where the referee binary is found, in order (bin option,
// REFEREE_BIN, the platform package, PATH), and what is said when it is not.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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

// The referee command of the package under test (installed, or this folder).
const shim = join(dirname(createRequire(import.meta.url).resolve("@refereehq/referee/package.json")), "bin", "referee.js");

describe("the referee command", () => {
  it("forwards SIGTERM to the binary, which it does not leave running, and ends by the same signal", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "referee-signal-"));
    const bin = join(dir, "referee");
    // A stand-in binary that runs until a signal ends it.
    writeFileSync(bin, "#!/bin/sh\nexec sleep 60\n", { mode: 0o755 });
    const child = spawn(process.execPath, [shim, "serve", "jcs"], { env: { ...process.env, REFEREE_BIN: bin }, stdio: "ignore" });
    let pid;
    try {
      const children = `/proc/${child.pid}/task/${child.pid}/children`;
      for (let i = 0; i < 250 && !pid; i++) {
        pid = Number(readFileSync(children, "utf8").trim().split(" ")[0]) || undefined;
        if (!pid) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(pid, "the shim started no binary");
      const exited = new Promise((resolve) => child.on("exit", (c, s) => resolve([c, s])));
      child.kill("SIGTERM");
      assert.deepEqual(await exited, [null, "SIGTERM"]);
      let alive = true;
      for (let i = 0; i < 250 && alive; i++) {
        alive = existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (alive) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(alive, false, `the binary (pid ${pid}) is still running`);
    } finally {
      if (pid && existsSync(`/proc/${pid}`)) process.kill(pid, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes the binary's exit status through", async () => {
    const dir = mkdtempSync(join(tmpdir(), "referee-status-"));
    const bin = join(dir, "referee");
    writeFileSync(bin, '#!/bin/sh\necho "args: $*"; exit 3\n', { mode: 0o755 });
    try {
      const r = await new Promise((resolve) => {
        const c = spawn(process.execPath, [shim, "run", "jcs", "--x"], { env: { ...process.env, REFEREE_BIN: bin } });
        let out = "";
        c.stdout.on("data", (d) => (out += d));
        c.on("close", (code) => resolve({ code, out }));
      });
      assert.deepEqual(r, { code: 3, out: "args: run jcs --x\n" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
