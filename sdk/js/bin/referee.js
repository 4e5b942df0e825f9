#!/usr/bin/env node
// referee: runs the referee binary of this platform's package (or
// REFEREE_BIN, or referee on PATH) with this command's arguments, stdin,
// stdout and stderr, and exits with its exit status.

import { spawn } from "node:child_process";
import { locateBinary } from "../lib/binary.js";

let bin;
try {
  bin = locateBinary().path;
} catch (e) {
  if (e?.name !== "RefereeError") throw e;
  process.stderr.write(`referee: ${e.message}\n`);
  process.exit(127);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: false });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
const forward = (signal) => {
  try {
    child.kill(signal);
  } catch {
    // the child has gone already
  }
};
for (const s of forwarded) process.on(s, forward);

child.on("error", (e) => {
  process.stderr.write(`referee: cannot run ${bin}: ${e.message}\n`);
  process.exit(127);
});
child.on("exit", (code, signal) => {
  for (const s of forwarded) process.off(s, forward);
  if (signal) {
    // End the same way the binary ended, so a caller sees the signal.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
