// helpers.js: what the tests share: where things are, a child process
// runner, and node --test run on a fixture with its counts read back.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const testDir = dirname(fileURLToPath(import.meta.url));
export const fixtures = join(testDir, "fixtures");
export const examples = join(testDir, "..", "examples");
/** The project the tests run in: the scratch install (scripts/test.sh), or sdk/js itself. */
export const projectDir = join(testDir, "..");

/** sharedCorpus is REFEREE_SHARED/corpora/<name>, or undefined when it is not there. */
export function sharedCorpus(name) {
  const s = process.env.REFEREE_SHARED;
  if (!s) return undefined;
  const p = join(s, "corpora", name);
  return existsSync(p) ? p : undefined;
}

/** run runs argv and resolves to {code, signal, stdout, stderr}. */
export function run(argv, { cwd = projectDir, env = process.env, input, timeout = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ["pipe", "pipe", "pipe"], timeout });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

/**
 * nodeTest runs `node --test --test-reporter=tap file` and resolves to the
 * summary's counts ({tests, pass, fail, skipped, todo, cancelled}) and the output.
 */
export async function nodeTest(file, env = process.env) {
  // A node --test run inside one marks its child with NODE_TEST_CONTEXT,
  // which would make this one report to a parent instead of writing TAP.
  const { NODE_TEST_CONTEXT: _, ...clean } = env;
  const r = await run([process.execPath, "--test", "--test-reporter=tap", file], { env: clean });
  const counts = {};
  for (const k of ["tests", "pass", "fail", "skipped", "todo", "cancelled"]) {
    const m = new RegExp(`^# ${k} (\\d+)$`, "m").exec(r.stdout);
    counts[k] = m ? Number(m[1]) : undefined;
  }
  return { ...r, counts };
}
