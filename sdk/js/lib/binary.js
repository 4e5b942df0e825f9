// binary.js: where the referee binary is. In this order: the REFEREE_BIN
// environment variable (a path; set but missing is an error), then the binary
// of this platform's package (@refereehq/referee-<os>-<cpu>, an optional
// dependency of this package, checked against the SHA-256 this package
// records for it), then `referee` on PATH.

import { createHash } from "node:crypto";
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { RefereeError } from "./errors.js";

const require = createRequire(import.meta.url);

/** The operating systems and CPUs a platform package exists for. */
export const PLATFORMS = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"];

/** This package's own package.json (version, optional dependencies, binary hashes). */
export function ownPackage() {
  return JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
}

/** The platform key of this process, e.g. "linux-x64". */
export function platformKey(platform = process.platform, arch = process.arch) {
  return `${platform}-${arch}`;
}

/** The name of the package that carries the binary for a platform key. */
export function platformPackage(key = platformKey()) {
  return `@refereehq/referee-${key}`;
}

function exeName(platform) {
  return platform === "win32" ? "referee.exe" : "referee";
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function onPath(env, platform) {
  const dirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter(Boolean);
  const names = platform === "win32" ? ["referee.exe"] : ["referee"];
  for (const dir of dirs) {
    for (const name of names) {
      const p = join(dir, name);
      if (!isFile(p)) continue;
      if (platform !== "win32") {
        try {
          accessSync(p, constants.X_OK);
        } catch {
          continue;
        }
      }
      return p;
    }
  }
  return undefined;
}

const verified = new Map();

function sha256File(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

// verify checks the binary at path against the SHA-256 this package records
// for pkg, once per process for each path, size and modification time.
function verify(path, pkg, own) {
  const want = own.referee?.binaryHashes?.[pkg];
  if (!want) return;
  const st = statSync(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  if (verified.get(key) === want) return;
  const got = sha256File(path);
  if (got !== want) {
    throw new RefereeError(
      "REFEREE_HASH_MISMATCH",
      `the referee binary ${path} (from ${pkg}) has SHA-256 ${got}, but @refereehq/referee ${own.version} ` +
        `records ${want} for it: install ${pkg}@${own.version} beside @refereehq/referee@${own.version}, ` +
        `or set REFEREE_BIN to a referee binary`,
    );
  }
  verified.set(key, want);
}

/**
 * locateBinary finds the referee binary and says where it came from:
 * {path, source} with source "option", "REFEREE_BIN", "package" or "PATH".
 * It throws a RefereeError naming the platform, the package to install and
 * REFEREE_BIN when there is none.
 */
export function locateBinary({ bin, env = process.env, platform = process.platform, arch = process.arch } = {}) {
  if (bin !== undefined && bin !== null && bin !== "") {
    if (!isFile(bin)) {
      throw new RefereeError("REFEREE_BIN_MISSING", `the referee binary given as the bin option, ${bin}, does not exist`);
    }
    return { path: bin, source: "option" };
  }
  const fromEnv = env.REFEREE_BIN;
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!isFile(fromEnv)) {
      throw new RefereeError(
        "REFEREE_BIN_MISSING",
        `REFEREE_BIN is set to ${fromEnv}, which does not exist: point it at a referee binary, or unset it to use the packaged one`,
      );
    }
    return { path: fromEnv, source: "REFEREE_BIN" };
  }
  const key = platformKey(platform, arch);
  const pkg = platformPackage(key);
  const own = ownPackage();
  let pkgDir;
  if (PLATFORMS.includes(key)) {
    try {
      pkgDir = dirname(require.resolve(`${pkg}/package.json`));
    } catch {
      pkgDir = undefined;
    }
  }
  if (pkgDir) {
    const p = join(pkgDir, "bin", exeName(platform));
    if (isFile(p)) {
      verify(p, pkg, own);
      return { path: p, source: "package" };
    }
  }
  const fromPath = onPath(env, platform);
  if (fromPath) return { path: fromPath, source: "PATH" };
  throw notFound(key, pkg, own, pkgDir);
}

function notFound(key, pkg, own, pkgDir) {
  const version = own.version;
  const lines = [];
  if (!PLATFORMS.includes(key)) {
    lines.push(
      `referee has no package for this platform, ${key} (packages exist for ${PLATFORMS.join(", ")}).`,
      `Build referee for it (go install github.com/refereehq/referee/cmd/referee@latest) and set REFEREE_BIN to the binary, or put it on PATH.`,
    );
  } else if (pkgDir) {
    lines.push(`${pkg} is installed at ${pkgDir} but holds no bin/${exeName(key.split("-")[0])}: reinstall ${pkg}@${version}.`);
  } else {
    lines.push(
      `no referee binary for this platform, ${key}: the package ${pkg} is not installed.`,
      `Install it beside @refereehq/referee: npm install ${pkg}@${version} ` +
        `(or its tarball, refereehq-referee-${key}-${version}.tgz; an install with --omit=optional or --no-optional, ` +
        `or a lockfile made on another platform, leaves it out),`,
      `or set REFEREE_BIN to a referee binary, or put referee on PATH.`,
    );
  }
  return new RefereeError("REFEREE_NOT_FOUND", lines.join("\n"), { platform: key, package: pkg });
}

/** findBinary returns the path of the referee binary (see locateBinary). */
export function findBinary(options) {
  return locateBinary(options).path;
}
