#!/usr/bin/env node
// A Context Graph Protocol (contextgraph/1.0) provider over stdio, in plain Node.js 20.
//
//   node cgp-provider.mjs DIR
//
// Every regular file under DIR (dot-files and dot-directories skipped, valid UTF-8 only)
// is served as one `doc` frame. An optional DIR/.cgp.json maps a file's path relative to
// DIR to {"valid_from", "valid_to", "kind", "title"}. Wire: NDJSON, one envelope per line
// on stdin and stdout. stdout carries envelopes only; diagnostics go to stderr.

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const NAME = 'node-docs';
const VERSION = '0.1.0';
const DIM = 16; // dimension of the hashed bag-of-words embedding, see FINGERPRINT
const FINGERPRINT = `node-bow/${DIM}`;

const root = process.argv[2] && resolve(process.argv[2]);
if (!root || !statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
  process.stderr.write('usage: node cgp-provider.mjs DIR\n');
  process.exit(2);
}
const log = (msg) => process.stderr.write(`${NAME}: ${msg}\n`);
const send = (env) => process.stdout.write(JSON.stringify(env) + '\n');
const sha256 = (bytes) => 'sha256:' + createHash('sha256').update(bytes).digest('hex');
const utf8 = new TextDecoder('utf-8', { fatal: true });

// Number of lines in the §1.7 (F17) sense: split on LF, each line keeps its LF, and a
// final LF does not open a new line. So "a\nb" and "a\nb\n" both have 2 lines.
function lineCount(bytes) {
  let n = 0;
  for (const b of bytes) if (b === 0x0a) n++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? n + 1 : n;
}

// Lowercased words (letters, digits, underscore; any script).
const words = (text) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

// A hashed bag of words: each word adds 1 to bucket FNV-1a(word) mod DIM. It is the
// embedder behind FINGERPRINT, used to rank when a query carries an embedding.
function embed(text) {
  const v = new Array(DIM).fill(0);
  for (const word of words(text)) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    v[(h >>> 0) % DIM] += 1;
  }
  return v;
}
function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < DIM; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return na && nb ? Math.min(1, Math.max(0, dot / Math.sqrt(na * nb))) : 0;
}

// An RFC 3339 UTC timestamp as a BigInt of nanoseconds, so that instants compare exactly
// (Date.parse would drop digits past milliseconds). null when it is not one.
function instant(ts) {
  const m = typeof ts === 'string' && /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z$/.exec(ts);
  if (!m) return null;
  const ms = Date.UTC(+m[1], m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return BigInt(ms) * 1000000n + BigInt(((m[7] ?? '') + '000000000').slice(0, 9));
}

// Reads DIR afresh (so verify sees edits and deletions) and returns the frames by id.
function loadFrames() {
  let sidecar = {};
  try { sidecar = JSON.parse(readFileSync(join(root, '.cgp.json'), 'utf8')); }
  catch (e) { if (e.code !== 'ENOENT') log(`ignoring .cgp.json: ${e.message}`); }
  const frames = new Map();
  const walk = (dir) => {
    for (const ent of readdirSync(dir, { withFileTypes: true })) {
      if (ent.name.startsWith('.')) continue;
      const abs = join(dir, ent.name);
      if (ent.isDirectory()) { walk(abs); continue; }
      if (!ent.isFile()) continue;
      const bytes = readFileSync(abs);
      let content;
      try { content = utf8.decode(bytes); } catch { log(`skipping ${abs}: not UTF-8`); continue; }
      const name = relative(root, abs).split('\\').join('/');
      const meta = sidecar[name] ?? {};
      const lines = lineCount(bytes);
      const range = lines > 0 ? `L1-${lines}` : undefined; // no range = the whole (empty) file
      const uri = pathToFileURL(abs).href;
      const heading = /^#+\s+(.+)$/m.exec(content)?.[1]?.trim();
      const title = meta.title || heading || name;
      const frame = {
        id: `${NAME}:${name}`, kind: meta.kind || 'doc', title, content,
        content_digest: sha256(bytes), // the content is exactly the file's bytes
        uri, score: 0,
        token_cost: Math.ceil(Buffer.byteLength(content, 'utf8') / 4), // UTF-8 bytes, not chars
        valid_from: meta.valid_from, valid_to: meta.valid_to,
        recorded_at: statSync(abs).mtime.toISOString(),
        provenance: [{ type: 'file', uri, range, digest: sha256(bytes), method: 'file-read', by: NAME }],
        citation_label: range ? `${name} ${range}` : name,
        relations: [{
          rel: 'doc.documents',
          target_uri: `symbol:///docs/${name.split('/').map(encodeURIComponent).join('/')}#overview`,
          display_name: title,
        }],
      };
      const text = `${title} ${content}`;
      frames.set(frame.id, { frame, vector: embed(text), terms: new Set(words(text)) });
    }
  };
  walk(root);
  return frames;
}

class BadRequest extends Error {}
const isCount = (n) => Number.isInteger(n) && n >= 0;

function query(q) {
  if (!q || typeof q !== 'object' || typeof q.goal !== 'string') throw new BadRequest('query.goal must be a string');
  if (!isCount(q.max_frames) || !isCount(q.max_tokens)) throw new BadRequest('query.max_frames and query.max_tokens must be non-negative integers');
  const kinds = q.kinds ?? [], anchors = q.anchors ?? [];
  if (!Array.isArray(kinds) || !Array.isArray(anchors)) throw new BadRequest('query.kinds and query.anchors must be arrays');
  let asOf = null;
  if (q.as_of != null && (asOf = instant(q.as_of)) === null) throw new BadRequest(`as_of ${JSON.stringify(q.as_of)} is not an RFC 3339 UTC timestamp`);
  // Relevance: cosine similarity for an embedding query; otherwise the share of the
  // distinct query words (query_text, else goal) that occur in the document.
  let relevance;
  if (q.embedding != null) { // E1: only a vector of the declared dimension is meaningful
    if (!Array.isArray(q.embedding) || q.embedding.length !== DIM || !q.embedding.every(Number.isFinite))
      throw new BadRequest(`embedding must be ${DIM} numbers (fingerprint ${FINGERPRINT})`);
    relevance = ({ vector }) => cosine(q.embedding, vector);
  } else {
    const asked = new Set(words(q.query_text || q.goal));
    relevance = ({ terms }) => asked.size ? [...asked].filter((w) => terms.has(w)).length / asked.size : 0;
  }

  const ranked = [];
  for (const entry of loadFrames().values()) {
    const { frame } = entry;
    if (kinds.length && !kinds.includes(frame.kind)) continue;
    if (asOf !== null) { // Q2: the half-open window [valid_from, valid_to)
      const from = instant(frame.valid_from), to = instant(frame.valid_to);
      if ((from !== null && from > asOf) || (to !== null && to <= asOf)) continue;
    }
    const anchored = anchors.includes(frame.uri) || frame.relations.some((r) => anchors.includes(r.target_uri));
    const sim = relevance(entry);
    // With anchors, anchored frames take the upper half of [0,1] and the others stay
    // below it, a perfect match included, so rank and score agree and no unanchored
    // frame ties with an anchored one.
    const score = anchors.length ? (anchored ? 0.5 + sim / 2 : sim * 0.499) : sim;
    ranked.push({ ...frame, score: Math.round(score * 1e6) / 1e6 });
  }
  ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  // Budget: greedy in rank order; a frame that does not fit is dropped, not cut.
  const frames = [];
  let tokens = 0;
  for (const f of ranked) {
    if (frames.length >= q.max_frames || tokens + f.token_cost > q.max_tokens) continue;
    frames.push(f);
    tokens += f.token_cost;
  }
  const dropped = ranked.length - frames.length;
  return { frames, truncated: dropped > 0, ...(dropped > 0 && { dropped_estimate: dropped }) };
}

// V1–V4: valid if the digest still matches, stale (with the current digest) if not,
// gone if the file is no longer there, unknown for an id this provider never minted.
function verify(req) {
  if (!req || !Array.isArray(req.frames)) throw new BadRequest('verify.request.frames must be an array');
  const current = loadFrames();
  const verdicts = req.frames.map((id) => {
    if (!id || typeof id.frame_id !== 'string') throw new BadRequest('each FrameId needs a frame_id');
    const frame = { provider_id: id.provider_id, frame_id: id.frame_id };
    if (id.content_digest != null) frame.content_digest = id.content_digest;
    if (!id.frame_id.startsWith(`${NAME}:`)) return { frame, status: 'unknown' };
    const now = current.get(id.frame_id)?.frame;
    if (!now) return { frame, status: 'gone' };
    if (id.content_digest == null || id.content_digest === now.content_digest) return { frame, status: 'valid' };
    return { frame, status: 'stale', replacement_digest: now.content_digest };
  });
  return { verdicts };
}

let handshaken = false;
function handle(line) {
  let env;
  try { env = JSON.parse(line); } catch { env = undefined; }
  if (!env || typeof env !== 'object' || Array.isArray(env) || typeof env.type !== 'string') {
    send({ type: 'error', code: 'bad_request', message: 'line was not a valid CGP envelope' });
    return;
  }
  const idm = typeof env.id === 'string' ? { id: env.id } : {}; // H4: echo the id verbatim
  const error = (code, message) => send({ type: 'error', ...idm, code, message });
  try {
    switch (env.type) {
      case 'handshake': {
        const v = env.protocol_version;
        if (typeof v !== 'string' || !/^contextgraph\/1\./.test(v))
          return error('incompatible_version', `this provider speaks contextgraph/1.x, not ${JSON.stringify(v)}`);
        handshaken = true;
        return send({
          type: 'handshake_ack', protocol_version: 'contextgraph/1.0',
          provider: { name: NAME, version: VERSION,
            data_flow: { reads: true, writes: false, egress: false, egress_scopes: ['local-only'] } },
          capabilities: { query: { kinds: ['doc'] }, correlation: true, graph: true,
            verify: true, embeddings_fingerprint: FINGERPRINT },
        });
      }
      case 'query':
        if (!handshaken) return error('bad_request', 'query before handshake');
        return send({ type: 'frames', result: query(env.query), ...idm });
      case 'verify':
        if (!handshaken) return error('bad_request', 'verify before handshake');
        return send({ type: 'verified', ...idm, response: verify(env.request) });
      case 'shutdown':
        log('shutdown');
        process.exit(0);
      default: // U1: an unknown request gets bad_request; a bare unknown notification is ignored
        if (env.id !== undefined || Object.keys(env).length > 1) error('bad_request', `unsupported envelope type ${JSON.stringify(env.type)}`);
    }
  } catch (e) {
    if (e instanceof BadRequest) return error('bad_request', e.message);
    log(`internal error: ${e.stack}`);
    error('internal', e.message);
  }
}

process.stdout.on('error', () => process.exit(0)); // the host closed our stdout: nothing left to do
// Envelopes are LF-terminated lines (§2.1). Split on LF only: node:readline
// also ends a line at a bare CR, which a malformed line may hold, and would
// answer its halves as two lines.
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let start = 0;
  for (let nl; (nl = pending.indexOf('\n', start)) >= 0; start = nl + 1) {
    const line = pending.slice(start, nl);
    if (line.trim() !== '') handle(line);
  }
  pending = pending.slice(start);
});
process.stdin.on('end', () => { // EOF on stdin ends the session too
  if (pending.trim() !== '') handle(pending);
  process.exit(0);
});
log(`serving ${root}`);
