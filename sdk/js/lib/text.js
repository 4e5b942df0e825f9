// text.js: the text report's block for each check that did not pass (its
// line and the evidence indented under it), and a stand-in built from the
// JSON report when a check has no block.

const LINE = /^(PASS|FAIL|WARN|ERROR|NOT CHECKED) +(\S+)(?: {2}(.*))?$/;

/** textBlocks maps each check ID in a text report to {status, reason, evidence: [lines]}. */
export function textBlocks(text) {
  const blocks = new Map();
  let cur;
  for (const line of (text ?? "").split("\n")) {
    const m = LINE.exec(line);
    if (m) {
      cur = { status: m[1], reason: m[3] ?? "", evidence: [] };
      blocks.set(m[2], cur);
      continue;
    }
    if (cur && line.startsWith("      ")) {
      cur.evidence.push(line.slice(6));
      continue;
    }
    cur = undefined;
  }
  return blocks;
}

function one(v) {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 400 ? `${s.slice(0, 400)}… (${s.length} characters in all)` : s;
}

/** evidenceLines renders a check's evidence from the JSON report, as the text report does. */
export function evidenceLines(check) {
  const out = [];
  if (check.expected !== undefined) out.push(`expected: ${one(check.expected)}`);
  if (check.actual !== undefined) out.push(`actual:   ${one(check.actual)}`);
  const ev = check.evidence ?? {};
  if (ev.diff) {
    out.push(`first difference at byte ${ev.diff.offset} (counting from 0; expected ${ev.diff.expected_len} bytes, got ${ev.diff.actual_len})`);
    out.push(`expected @${ev.diff.window_start}: ${ev.diff.expected_hex.replace(/(..)(?!$)/g, "$1 ")}`);
    out.push(`actual   @${ev.diff.window_start}: ${ev.diff.actual_hex.replace(/(..)(?!$)/g, "$1 ")}`);
  }
  for (const n of ev.notes ?? []) out.push(one(n));
  for (const x of ev.exchanges ?? []) {
    out.push(`sent:     ${one(x.request)}`);
    if (x.reply !== undefined) out.push(`received: ${one(x.reply)}`);
  }
  if (ev.stderr) {
    out.push("stderr:");
    for (const l of ev.stderr.trimEnd().split("\n").slice(-5)) out.push(`  ${one(l)}`);
  }
  if (ev.repro) out.push(`repro: ${ev.repro}`);
  return out;
}

/** checkText is one check's reason and evidence as text: the text report's block, or one built from the JSON. */
export function checkText(check, blocks) {
  const b = blocks?.get(check.id);
  const evidence = b && b.evidence.length ? b.evidence : evidenceLines(check);
  const reason = (b?.reason || check.reason) ?? "";
  return [reason, ...evidence.map((l) => `  ${l}`)].join("\n");
}
