#!/usr/bin/env node
// pack.mjs --bins BINS --version V --out DIR: the npm packages of referee,
// as tarballs in DIR, made with `npm pack` (offline) from staged directories:
//
//   refereehq-referee-V.tgz              @refereehq/referee: this folder's bin/, lib/ and examples/,
//                                        optionalDependencies on every platform package
//                                        built, each pinned to exactly V, and the SHA-256
//                                        of each platform's binary (referee.binaryHashes)
//   refereehq-referee-<os>-<cpu>-V.tgz   @refereehq/referee-<os>-<cpu>: bin/referee[.exe],
//                                        mode 0755, with os, cpu and preferUnplugged
//
// BINS holds <goos>-<goarch>/referee[.exe] (release/packages.sh builds it),
// goos linux, darwin or windows and goarch amd64 or arm64; the platforms
// present are the ones packaged.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");

const GOOS = { linux: "linux", darwin: "darwin", windows: "win32" };
const GOARCH = { amd64: "x64", arm64: "arm64" };
const OS_NAME = { linux: "Linux", darwin: "macOS", win32: "Windows" };
// Semantic Versioning 2.0.0, which npm requires of a version.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function fail(msg) {
  process.stderr.write(`pack.mjs: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--(bins|version|out)(?:=(.*))?$/.exec(a);
    if (!m) fail(`unknown argument ${a}; usage: pack.mjs --bins BINS --version V --out DIR`);
    opts[m[1]] = m[2] ?? argv[++i];
    if (opts[m[1]] === undefined) fail(`--${m[1]} needs a value`);
  }
  for (const k of ["bins", "version", "out"]) if (!opts[k]) fail(`--${k} is required; usage: pack.mjs --bins BINS --version V --out DIR`);
  opts.version = opts.version.replace(/^v/, "");
  if (!SEMVER.test(opts.version)) fail(`version ${opts.version} is not a semantic version, which npm requires (e.g. 0.1.0 or 0.1.0-dev)`);
  return opts;
}

/** platforms lists the binaries in BINS: [{goos, goarch, os, cpu, key, exe, path}]. */
function platforms(bins) {
  if (!existsSync(bins) || !statSync(bins).isDirectory()) fail(`--bins ${bins} is not a directory`);
  const found = [];
  for (const name of readdirSync(bins).sort()) {
    const m = /^([a-z0-9]+)-([a-z0-9]+)$/.exec(name);
    if (!m) continue;
    const [, goos, goarch] = m;
    if (!GOOS[goos] || !GOARCH[goarch]) {
      process.stderr.write(`pack.mjs: skipping ${name}: no npm platform for it\n`);
      continue;
    }
    const exe = goos === "windows" ? "referee.exe" : "referee";
    const path = join(bins, name, exe);
    if (!existsSync(path)) fail(`${join(bins, name)} has no ${exe}`);
    const os = GOOS[goos];
    const cpu = GOARCH[goarch];
    found.push({ goos, goarch, os, cpu, key: `${os}-${cpu}`, exe, path });
  }
  if (found.length === 0) fail(`no <goos>-<goarch>/referee[.exe] under ${bins}`);
  return found;
}

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

function writeJSON(path, v) {
  writeFileSync(path, `${JSON.stringify(v, null, 2)}\n`);
}

function npmPack(dir, out) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const res = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--offline", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(res)[0];
}

function stagePlatform(stage, p, version) {
  const name = `@refereehq/referee-${p.key}`;
  const dir = join(stage, p.key);
  mkdirSync(join(dir, "bin"), { recursive: true });
  const bin = join(dir, "bin", p.exe);
  copyFileSync(p.path, bin);
  chmodSync(bin, 0o755);
  writeJSON(join(dir, "package.json"), {
    name,
    version,
    description: `The referee binary for ${OS_NAME[p.os]} on ${p.cpu}, installed by @refereehq/referee`,
    os: [p.os],
    cpu: [p.cpu],
    preferUnplugged: true,
    files: ["bin"],
  });
  writeFileSync(
    join(dir, "README.md"),
    `# ${name}\n\nThe static referee binary for ${OS_NAME[p.os]} on ${p.cpu} (\`bin/${p.exe}\`).\n` +
      `Install \`@refereehq/referee\`, which depends on this package for this platform only, instead.\n`,
  );
  return { name, dir, hash: sha256(bin) };
}

function stageMain(stage, version, plats) {
  const dir = join(stage, "main");
  mkdirSync(dir, { recursive: true });
  cpSync(join(root, "bin"), join(dir, "bin"), { recursive: true });
  cpSync(join(root, "lib"), join(dir, "lib"), { recursive: true });
  cpSync(join(root, "examples"), join(dir, "examples"), { recursive: true });
  copyFileSync(join(root, "README.md"), join(dir, "README.md"));
  chmodSync(join(dir, "bin", "referee.js"), 0o755);
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  pkg.version = version;
  delete pkg.scripts;
  delete pkg.devDependencies;
  pkg.optionalDependencies = Object.fromEntries(plats.map((p) => [p.name, version]));
  pkg.referee = { binaryHashes: Object.fromEntries(plats.map((p) => [p.name, p.hash])) };
  writeJSON(join(dir, "package.json"), pkg);
  return dir;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), "referee-pack-"));
  try {
    const found = platforms(resolve(opts.bins));
    const plats = found.map((p) => stagePlatform(stage, p, opts.version));
    const dirs = [stageMain(stage, opts.version, plats), ...plats.map((p) => p.dir)];
    for (const d of dirs) {
      const r = npmPack(d, out);
      process.stdout.write(`${r.filename}  ${r.size} bytes, ${r.entryCount} files, ${r.integrity}\n`);
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

main();
