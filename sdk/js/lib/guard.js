// guard.js: a Promise that says so when it is read as if it were its value.

/**
 * guardPromise gives promise getters for the named members of its value that
 * throw a TypeError telling the caller to await it: the seeds' own runners
 * return the report itself, and `if (report.failed)` on a Promise would pass
 * silently.
 */
export function guardPromise(promise, fn, members) {
  for (const m of members) {
    Object.defineProperty(promise, m, {
      configurable: true,
      enumerable: false,
      get() {
        throw new TypeError(`${fn}() returns a Promise: await it (const report = await ${fn}(...)) before reading .${m}`);
      },
    });
  }
  return promise;
}
