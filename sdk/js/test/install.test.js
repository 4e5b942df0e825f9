// install.test.js: the packages pack.mjs wrote, installed from their
// tarballs with no registry (scripts/test.sh names them in
// REFEREE_SDK_TARBALLS and REFEREE_SDK_VERSION): the shim, the platform
// package's binary and its recorded hash, and what happens without it.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { locateBinary, platformKey } from "@refereehq/referee";
import { examples, projectDir, run } from "./helpers.js";

const tarballs = process.env.REFEREE_SDK_TARBALLS;
const version = process.env.REFEREE_SDK_VERSION;
const skip = !(tarballs && version) && "REFEREE_SDK_TARBALLS and REFEREE_SDK_VERSION are not set (scripts/test.sh sets them)";
const key = platformKey();
const require = createRequire(join(projectDir, "package.json"));

// env is this process's environment without REFEREE_BIN, with PATH holding node's own directory only.
function env(extra = {}) {
  const { REFEREE_BIN: _, NODE_TEST_CONTEXT: __, ...rest } = process.env;
  return { ...rest, PATH: dirname(process.execPath), ...extra };
}

const tarball = (name) => join(tarballs, `${name}-${version}.tgz`);
const untar = (file, member) => run(["tar", "-xzOf", file, member]);

describe("the installed packages", { skip }, () => {
  it("npx referee version prints the packaged version", async () => {
    const r = await run(["npx", "--no", "referee", "version"], { env: { ...env(), PATH: process.env.PATH } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split("\n")[0], `referee ${version}`);
  });

  it("the library finds the binary of this platform's package, executable, with the SHA-256 the main package records", () => {
    assert.equal(process.env.REFEREE_BIN, undefined);
    const found = locateBinary({ env: {} });
    assert.equal(found.source, "package");
    const pkgDir = dirname(require.resolve(`@refereehq/referee-${key}/package.json`));
    assert.equal(found.path, join(pkgDir, "bin", process.platform === "win32" ? "referee.exe" : "referee"));
    assert.ok(statSync(found.path).mode & 0o111);
    const main = JSON.parse(readFileSync(require.resolve("@refereehq/referee/package.json"), "utf8"));
    const sha = createHash("sha256").update(readFileSync(found.path)).digest("hex");
    assert.equal(main.referee.binaryHashes[`@refereehq/referee-${key}`], sha);
  });

  it("the main package pins every platform package built, each to exactly its own version", () => {
    const main = JSON.parse(readFileSync(require.resolve("@refereehq/referee/package.json"), "utf8"));
    assert.equal(main.version, version);
    const built = readdirSync(tarballs)
      .map((f) => /^refereehq-referee-((?:darwin|linux|win32)-(?:x64|arm64))-/.exec(f)?.[1])
      .filter(Boolean)
      .sort();
    assert.ok(built.includes(key));
    assert.deepEqual(Object.keys(main.optionalDependencies).sort(), built.map((k) => `@refereehq/referee-${k}`));
    assert.ok(Object.values(main.optionalDependencies).every((v) => v === version));
    assert.deepEqual(Object.keys(main.referee.binaryHashes).sort(), Object.keys(main.optionalDependencies).sort());
  });

  it("each platform tarball has os, cpu, preferUnplugged and its binary at mode 0755", async () => {
    for (const f of readdirSync(tarballs).filter((f) => /^refereehq-referee-(darwin|linux|win32)-/.test(f))) {
      const [, os, cpu] = /^refereehq-referee-(darwin|linux|win32)-(x64|arm64)-/.exec(f);
      const pkg = JSON.parse((await untar(join(tarballs, f), "package/package.json")).stdout);
      assert.deepEqual([pkg.name, pkg.version, pkg.os, pkg.cpu, pkg.preferUnplugged], [`@refereehq/referee-${os}-${cpu}`, version, [os], [cpu], true]);
      const list = (await run(["tar", "-tvzf", join(tarballs, f)])).stdout;
      const exe = os === "win32" ? "referee.exe" : "referee";
      assert.match(list, new RegExp(`^-rwxr-xr-x .* package/bin/${exe.replace(".", "\\.")}$`, "m"), f);
    }
  });

  it("the shim passes stdin, stdout and the exit status through", async () => {
    const shim = join(projectDir, "node_modules", ".bin", "referee");
    const hello = '{"id":0,"op":"hello","args":{"protocol":"referee-adapter/1","suite":"jcs"}}';
    const call = '{"id":1,"op":"canonicalJson","args":{"value_text":"[1E3, {\\"b\\":1,\\"a\\":2}]"}}';
    const served = await run([shim, "serve", "jcs"], { env: env(), input: `${hello}\n${call}\n` });
    assert.equal(served.code, 0, served.stderr);
    assert.deepEqual(JSON.parse(served.stdout.split("\n")[1]), { id: 1, ok: '[1000,{"a":2,"b":1}]' });
    const notConformant = await run([shim, "run", "crosslink", "--mode", "little-endian", "--run", "crosslink/cases/ping", "-q"], { env: env() });
    assert.equal(notConformant.code, 1);
    assert.match(notConformant.stdout, /^FAIL {2}crosslink\/cases\/ping\/frame/m);
    const usage = await run([shim, "run", "jcs", "--run", "jcs/no-such-check"], { env: env() });
    assert.equal(usage.code, 2);
  });

  it("examples/install.sh installs from the tarballs into a new project and runs npx referee version", async () => {
    const dir = mkdtempSync(join(tmpdir(), "referee-install-"));
    try {
      assert.equal((await run(["npm", "init", "-y"], { cwd: dir, env: { ...env(), PATH: process.env.PATH } })).code, 0);
      const r = await run(["sh", join(examples, "install.sh"), tarballs, version], { cwd: dir, env: { ...env(), PATH: process.env.PATH } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^referee ${version.replaceAll(".", "\\.")}$`, "m"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a project that names every platform tarball in overrides", { skip }, () => {
  it("npm skips the other platforms for os and cpu, the lockfile lists them all, and npm ci works offline", async () => {
    const dir = mkdtempSync(join(tmpdir(), "referee-overrides-"));
    const npmEnv = { ...env(), PATH: process.env.PATH };
    try {
      const platforms = readdirSync(tarballs)
        .map((f) => /^refereehq-referee-((?:darwin|linux|win32)-(?:x64|arm64))-/.exec(f)?.[1])
        .filter(Boolean);
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({
          name: "overrides-project",
          version: "1.0.0",
          devDependencies: { "@refereehq/referee": `file:${tarball("refereehq-referee")}` },
          overrides: Object.fromEntries(platforms.map((k) => [`@refereehq/referee-${k}`, `file:${tarball(`refereehq-referee-${k}`)}`])),
        }),
      );
      const install = await run(["npm", "install", "--offline", "--no-audit", "--no-fund"], { cwd: dir, env: npmEnv });
      assert.equal(install.code, 0, install.stderr);
      assert.deepEqual(readdirSync(join(dir, "node_modules", "@refereehq")).sort(), ["referee", `referee-${key}`]);
      const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8"));
      assert.deepEqual(
        Object.keys(lock.packages).filter((k) => k.includes("referee-")).sort(),
        platforms.map((k) => `node_modules/@refereehq/referee-${k}`).sort(),
      );
      rmSync(join(dir, "node_modules"), { recursive: true });
      const ci = await run(["npm", "ci", "--offline", "--no-audit", "--no-fund"], { cwd: dir, env: npmEnv });
      assert.equal(ci.code, 0, ci.stderr);
      const v = await run(["npx", "--no", "referee", "version"], { cwd: dir, env: npmEnv });
      assert.equal(v.stdout.split("\n")[0], `referee ${version}`, v.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("without this platform's package", { skip }, () => {
  let dir;
  const shim = () => join(dir, "node_modules", ".bin", "referee");
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "referee-noplatform-"));
    const npmEnv = { ...env(), PATH: process.env.PATH };
    await run(["npm", "init", "-y"], { cwd: dir, env: npmEnv });
    // The main tarball alone: npm cannot fetch the platform packages offline
    // and, as they are optional, leaves them out without an error.
    const r = await run(["npm", "install", "--offline", "--no-audit", "--no-fund", tarball("refereehq-referee")], { cwd: dir, env: npmEnv });
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("npm installed the main package and no platform package, and its lockfile does not satisfy npm ci", async () => {
    assert.deepEqual(readdirSync(join(dir, "node_modules", "@refereehq")), ["referee"]);
    const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8"));
    assert.deepEqual(Object.keys(lock.packages).filter((k) => k.includes("referee-")), []);
    const ci = await run(["npm", "ci", "--offline", "--dry-run", "--no-audit", "--no-fund"], { cwd: dir, env: { ...env(), PATH: process.env.PATH } });
    assert.notEqual(ci.code, 0);
    assert.match(ci.stderr, /Missing: @refereehq\/referee-[a-z0-9]+-[a-z0-9]+@ from lock file/);
  });

  it("the shim says which platform, which package to install and REFEREE_BIN, with no stack trace", async () => {
    const r = await run([shim(), "version"], { cwd: dir, env: env() });
    assert.equal(r.code, 127);
    assert.match(r.stderr, new RegExp(`no referee binary for this platform, ${key}`));
    assert.ok(r.stderr.includes(`npm install @refereehq/referee-${key}@${version}`), r.stderr);
    assert.match(r.stderr, /REFEREE_BIN/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });

  it("runConformance rejects with the same RefereeError", async () => {
    const script = `import { runConformance } from "@refereehq/referee";
try { await runConformance("jcs", null); } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, platform: e.platform, message: e.message })); }`;
    const r = await run([process.execPath, "--input-type=module", "-e", script], { cwd: dir, env: env() });
    const e = JSON.parse(r.stdout);
    assert.deepEqual([e.name, e.code, e.platform], ["RefereeError", "REFEREE_NOT_FOUND", key]);
    assert.match(e.message, new RegExp(`@refereehq/referee-${key}`));
  });

  it("REFEREE_BIN: a missing path is an error saying so; the real binary works", async () => {
    const missing = await run([shim(), "version"], { cwd: dir, env: env({ REFEREE_BIN: "/nonexistent/referee" }) });
    assert.equal(missing.code, 127);
    assert.match(missing.stderr, /REFEREE_BIN is set to \/nonexistent\/referee, which does not exist/);
    const real = locateBinary({ env: {} }).path;
    const ok = await run([shim(), "version"], { cwd: dir, env: env({ REFEREE_BIN: real }) });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.split("\n")[0], `referee ${version}`);
  });

  it("a platform package whose binary is not the one the main package records is refused", async () => {
    if (process.platform === "win32") return;
    const fake = join(dir, "node_modules", "@refereehq", `referee-${key}`);
    mkdirSync(join(fake, "bin"), { recursive: true });
    writeFileSync(join(fake, "package.json"), JSON.stringify({ name: `@refereehq/referee-${key}`, version }));
    writeFileSync(join(fake, "bin", "referee"), "#!/bin/sh\necho not referee\n", { mode: 0o755 });
    try {
      const r = await run([shim(), "version"], { cwd: dir, env: env() });
      assert.equal(r.code, 127);
      assert.match(r.stderr, /has SHA-256 [0-9a-f]{64}, but @refereehq\/referee .* records [0-9a-f]{64}/);
      assert.doesNotMatch(r.stdout, /not referee/);
    } finally {
      rmSync(fake, { recursive: true, force: true });
      assert.ok(!existsSync(fake));
    }
  });
});
