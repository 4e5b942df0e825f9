// jcs-adapter.mjs: a complete referee adapter for the jcs suite (RFC 8785,
// the JSON Canonicalization Scheme), built on serveAdapter. JavaScript's
// own JSON.parse, String(number) and JSON.stringify of strings are what
// RFC 8785 is written in terms of, so the canonicaliser is short.
//
//   referee run jcs -- node jcs-adapter.mjs

import { serveAdapter } from "@refereehq/referee";

// canonical writes a parsed JSON value as RFC 8785 canonical text.
function canonical(v) {
  if (typeof v === "number" && !Number.isFinite(v)) {
    throw Object.assign(new RangeError("number out of range"), { code: "number_out_of_range" });
  }
  if (typeof v === "string" && !v.isWellFormed()) {
    throw Object.assign(new TypeError("lone surrogate"), { code: "lone_surrogate" });
  }
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  // Keys sorted by UTF-16 code units: Array.prototype.sort's own order.
  return `{${Object.keys(v).sort().map((k) => `${canonical(k)}:${canonical(v[k])}`).join(",")}}`;
}

// parse reads JSON text as RFC 8259 says: JSON.parse is strict about the
// grammar, and keeps the last of duplicate member names.
function parse(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw Object.assign(e, { code: "parse_error" });
  }
}

// The bytes of canonicalJsonBytes must be UTF-8, decoded strictly.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

await serveAdapter(
  {
    canonicalJson: ({ value_text }) => canonical(parse(value_text)),
    canonicalJsonBytes: (args, call) => canonical(parse(utf8.decode(call.bytes("value_hex")))),
  },
  { name: "jcs-js-example", version: "1.0.0" },
);
