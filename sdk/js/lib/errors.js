// errors.js: the one error class this package throws for anything that goes
// wrong around referee (finding the binary, running it, reading its report).

/**
 * RefereeError is an error about referee itself, not about the
 * implementation under test: `code` says which kind (REFEREE_NOT_FOUND,
 * REFEREE_BIN_MISSING, REFEREE_HASH_MISMATCH, REFEREE_USAGE,
 * REFEREE_INCOMPLETE, REFEREE_BAD_REPORT, REFEREE_FAILED).
 */
export class RefereeError extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.name = "RefereeError";
    this.code = code;
    Object.assign(this, extra);
  }
}
