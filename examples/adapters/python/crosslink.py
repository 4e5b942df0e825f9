#!/usr/bin/env python3
"""crosslink.py: a referee-adapter/1 adapter for referee's "crosslink" suite, in Python.

Python 3.11 or later, standard library only. It is a small, self-contained
implementation of the Crosslink v1 wire protocol: canonical JSON,
length-prefixed framing and the payload decode pipeline.

referee starts it as a child process and speaks NDJSON over its stdio:

    referee run crosslink -- python3 examples/adapters/python/crosslink.py

Each request is one JSON object on one line of stdin; each reply is one line
on stdout. stdout carries protocol only; logs go to stderr. The adapter exits
0 when stdin closes.

Ops:
    canonicalJson {value: V, value_text: T}
                                   -> ok: canonical JSON text of V (read from T,
                                      its exact text, when given), as a string;
                                      err with no code for a number beyond double
                                      range (1e400), as the reference throws
    encodeFrame   {value: V, value_text: T}
                                   -> ok: lowercase hex of u32_be(len) || payload;
                                      err as canonicalJson, or payload_too_large
    decodeMessage {payload_hex: H} -> ok: the decoded message, or err with a
                                      Crosslink error code

The Crosslink reference is TypeScript, so JSON is read here the way
JavaScript's JSON.parse reads it: every number becomes an IEEE double,
duplicate keys keep the last value (at the first one's position), and lone
surrogate escapes survive. Python's str holds them as code points in
U+D800..U+DFFF; an escaped surrogate pair is joined into one code point, as
JavaScript would see it. The whole request line, not just the payload, is
read this way. The stdlib json module does it fast, with the hooks in
parse(), but it recurses once per nesting level; a text nested too deeply for
it is read by parse_own, our own parser with an explicit stack, so nesting
depth is limited only by memory. The canonical writer, framing, depth check,
version check and message validation are written here, without recursion.
"""

import json
import math
import re
import sys

PROTOCOL = "referee-adapter/1"
SUITE = "crosslink"
HELLO = {
    "name": "crosslink-python",
    "version": "1.0.0",
    "ops": ["canonicalJson", "encodeFrame", "decodeMessage"],
    "concurrency": 1,
}

# DEFAULT_MAX_FRAME_BYTES of the reference: 4 MiB. (PROTOCOL.md and the
# native SDKs say 1 MiB; the TypeScript limits win.)
MAX_FRAME_BYTES = 4 * 1024 * 1024
# A value nested inside more than this many containers is rejected.
MAX_DEPTH = 64
SUPPORTED_VERSIONS = ("1.0",)

MESSAGE_TYPES = frozenset(
    "req res err chunk end evt sub unsub cancel ping pong hello hello_ok bye".split()
)

# The 23 wire error codes.
ERROR_CODES = frozenset(
    """parse_error invalid_message version_unsupported unauthorized capability_denied
    method_not_found validation_failed payload_too_large rate_limited device_revoked
    session_expired pairing_expired pairing_invalid host_offline timeout cancelled
    internal not_connected peer_lost grant_expired consent_denied consent_timeout
    policy_denied""".split()
)

# Used with fullmatch, which is what JavaScript's ^...$ means without the m
# flag. JavaScript's \d is ASCII-only, Python's is not, hence [0-9].
ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}")  # methods and events
DEVICE_ID_RE = re.compile(r"cd1_[0-9a-f]{32}")
VERSION_RE = re.compile(r"[0-9]+\.[0-9]+")
HEX_RE = re.compile(r"[0-9a-fA-F]*")


class Reject(Exception):
    """An answer of err. code is a wire error code, an adapter code
    (bad_args, ...), or None where the reference throws an error without one."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------
# Parsing, with JSON.parse semantics
# ---------------------------------------------------------------------------


class ParseError(Exception):
    """The text is not JSON."""

    def __init__(self, what, offset):
        super().__init__("%s at offset %d" % (what, offset))


WS = re.compile(r"[ \t\n\r]*")
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
PLAIN = re.compile(r'[^"\\\x00-\x1f]*')  # a run of string characters needing no decoding
HEX4 = re.compile(r"[0-9a-fA-F]{4}")  # int(s, 16) alone would also take "+1_a"
ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def parse_string(text, i):
    """Decode the string literal whose opening quote is text[i]; return (str, end)."""
    parts = []
    surrogates = False
    i += 1
    while True:
        m = PLAIN.match(text, i)
        parts.append(m.group())
        i = m.end()
        c = text[i : i + 1]
        if c == '"':
            break
        if c != "\\":
            raise ParseError("unterminated string" if c == "" else "control character in string", i)
        e = text[i + 1 : i + 2]
        if e == "u":
            if not HEX4.fullmatch(text, i + 2, i + 6):
                raise ParseError("bad \\u escape", i)
            u = int(text[i + 2 : i + 6], 16)
            surrogates = surrogates or 0xD800 <= u <= 0xDFFF
            parts.append(chr(u))
            i += 6
        elif e in ESCAPES:
            parts.append(ESCAPES[e])
            i += 2
        else:
            raise ParseError("bad escape", i)
    s = parts[0] if len(parts) == 1 else "".join(parts)
    if surrogates:
        # Join each high+low pair into its code point; any other stays lone.
        s = s.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    return s, i + 1


def parse_key(text, i):
    """Read `"key" :` starting at text[i] (whitespace allowed); return (key, end)."""
    i = WS.match(text, i).end()
    if text[i : i + 1] != '"':
        raise ParseError("expected a string key", i)
    key, i = parse_string(text, i)
    i = WS.match(text, i).end()
    if text[i : i + 1] != ":":
        raise ParseError("expected ':'", i)
    return key, i + 1


# A value, after optional whitespace. The group that matched says which kind:
# 1 a number, 2 the content of a string without escapes, 3 the opening quote
# of a string with escapes, 4 "[", 5 "{", 6 true, 7 false, 8 null.
VALUE = re.compile(
    r'[ \t\n\r]*(?:(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|"([^"\\\x00-\x1f]*)"|(")|(\[)|(\{)'
    r"|(true)|(false)|(null))"
)
AFTER = re.compile(r"[ \t\n\r]*([,\]}])")  # what may follow a value inside a container
EMPTY_ARRAY = re.compile(r"[ \t\n\r]*\]")
EMPTY_OBJECT = re.compile(r"[ \t\n\r]*\}")
SIMPLE_KEY = re.compile(r'[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:')
LITERALS = {6: True, 7: False, 8: None}


def read_key(text, i):
    """Read `"key" :` at text[i], whitespace allowed; return (key, end)."""
    m = SIMPLE_KEY.match(text, i)
    if m is not None:
        return m.group(1), m.end()
    return parse_key(text, i)


def parse_own(text):
    """Parse a JSON text as JSON.parse does, without recursion.

    Objects become dict, arrays list, numbers float, strings str, literals
    True, False and None.
    """
    stack = []  # open containers, innermost last
    keys = []  # for each open object, the key whose value is being read
    value_match, after_match = VALUE.match, AFTER.match
    i = 0
    while True:
        # A value starts here.
        m = value_match(text, i)
        if m is None:
            j = WS.match(text, i).end()
            raise ParseError("unexpected end of text" if j == len(text) else "unexpected character", j)
        g = m.lastindex
        i = m.end()
        if g == 1:
            value = float(m.group(1))  # 1e400 becomes inf, as in JavaScript
        elif g == 2:
            value = m.group(2)
        elif g == 3:
            value, i = parse_string(text, i - 1)
        elif g == 4:
            e = EMPTY_ARRAY.match(text, i)
            if e is None:
                stack.append([])
                continue
            value, i = [], e.end()
        elif g == 5:
            e = EMPTY_OBJECT.match(text, i)
            if e is None:
                key, i = read_key(text, i)
                stack.append({})
                keys.append(key)
                continue
            value, i = {}, e.end()
        else:
            value = LITERALS[g]
        # The value is complete: attach it, closing every container that ends.
        while True:
            if not stack:
                i = WS.match(text, i).end()
                if i != len(text):
                    raise ParseError("trailing data", i)
                return value
            m = after_match(text, i)
            top = stack[-1]
            if type(top) is list:
                top.append(value)
                if m is None or m.group(1) == "}":
                    raise ParseError("expected ',' or ']'", WS.match(text, i).end())
                i = m.end()
                if m.group(1) == ",":
                    break
            else:
                top[keys[-1]] = value  # a duplicate key: last wins, first position
                if m is None or m.group(1) == "]":
                    raise ParseError("expected ',' or '}'", WS.match(text, i).end())
                i = m.end()
                if m.group(1) == ",":
                    keys[-1], i = read_key(text, i)
                    break
                keys.pop()
            value = stack.pop()


def reject_constant(name):
    raise ParseError("%s is not JSON" % name, 0)


def parse(text):
    """Parse a JSON text as JSON.parse does.

    The stdlib json module's C scanner, with these hooks, reads exactly what
    JSON.parse reads and the same way (every number a double, NaN and
    Infinity refused, last duplicate key wins at the first one's position,
    lone surrogate escapes kept, pairs joined), and is fast. It recurses once
    per nesting level, though, so a text nested too deeply for it goes to
    parse_own, which keeps an explicit stack.
    """
    try:
        return json.loads(text, parse_float=float, parse_int=float, parse_constant=reject_constant)
    except json.JSONDecodeError as e:
        raise ParseError(e.msg, e.pos) from None
    except RecursionError:
        return parse_own(text)


def too_deep(root):
    """Whether any value (container or scalar) in root is nested inside more
    than MAX_DEPTH containers; the top level is depth 0. Only containers are
    visited, never one below MAX_DEPTH, so deep inputs cost little: a
    non-empty container at depth MAX_DEPTH has a child one level too deep."""
    work = [(root, 0)] if type(root) in (list, dict) else []
    while work:
        v, d = work.pop()
        if d == MAX_DEPTH:
            if v:
                return True
            continue
        d += 1
        work.extend([(x, d) for x in (v if type(v) is list else v.values()) if type(x) is list or type(x) is dict])
    return False


# ---------------------------------------------------------------------------
# Canonical JSON
# ---------------------------------------------------------------------------

ESCAPE_OUT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')


def quote(s):
    """Write s as JSON.stringify does (ES2019): escape '"', '\\', the short
    forms \\b \\t \\n \\f \\r, other C0 controls as lowercase \\u00xx and lone
    surrogates as lowercase \\udxxx; everything else raw."""
    return '"' + NEEDS_ESCAPE.sub(lambda m: ESCAPE_OUT.get(m.group(), "\\u%04x" % ord(m.group())), s) + '"'


def utf16(s):
    """s as UTF-16 code units (big-endian bytes compare in code unit order)."""
    return s.encode("utf-16-be", "surrogatepass")


def es_number(x):
    """ECMAScript Number::toString(x), i.e. String(x) in JavaScript."""
    if -9007199254740992.0 < x < 9007199254740992.0 and x.is_integer():
        return str(int(x))  # below 2**53 the exact integer is also the shortest; -0 gives "0"
    if not math.isfinite(x):
        raise Reject(None, "TypeError: canonicalJson: non-finite number")
    sign = "-" if x < 0 else ""
    # repr gives the shortest digits that round-trip, as ES requires.
    mant, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mant.partition(".")
    raw = (whole + frac).lstrip("0")
    digits = raw.rstrip("0")
    k = len(digits)
    # x = 0.<digits> * 10**n
    n = k + int(exp or 0) - len(frac) + (len(raw) - k)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e > 0 else "-") + str(abs(e))
    return sign + out


def scalar_text(x):
    """Write a non-container value canonically."""
    t = type(x)
    if t is float:
        return es_number(x)
    if t is str:
        return quote(x)
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is int:  # only our own replies hold ints
        return str(x)
    raise Reject(None, "TypeError: canonicalJson: unsupported type %s" % type(x).__name__)


def canonical(root):
    """Write a value as Crosslink canonical JSON: object keys sorted by UTF-16
    code units (as JavaScript's default sort), no whitespace, arrays in order.

    No recursion: frames holds, for each container being written, an iterator
    over what is left of it; scalars are written on the spot, and a container
    child suspends its parent until it is done."""
    if type(root) not in (list, dict):
        return scalar_text(root)
    out = []
    frames = []

    def open_container(v):
        if type(v) is list:
            out.append("[")
            frames.append((iter(v), False, "]"))
        else:
            out.append("{")
            frames.append((iter(sorted(v.items(), key=lambda kv: utf16(kv[0]))), True, "}"))

    open_container(root)
    first = True  # nothing written yet in the innermost open container
    while frames:
        it, keyed, close = frames[-1]
        for item in it:
            if first:
                first = False
            else:
                out.append(",")
            if keyed:
                out.append(quote(item[0]) + ":")
                item = item[1]
            t = type(item)
            if t is list or t is dict:
                open_container(item)
                first = True
                break
            out.append(scalar_text(item))
        else:
            out.append(close)
            frames.pop()
            first = False
    return "".join(out)


# ---------------------------------------------------------------------------
# Framing
# ---------------------------------------------------------------------------


def encode_frame(value):
    """Return u32_be(len(payload)) || payload as lowercase hex, payload being
    the UTF-8 of the canonical JSON (which never holds a lone surrogate:
    they are escaped)."""
    payload = canonical(value).encode("utf-8")
    if len(payload) > MAX_FRAME_BYTES:
        raise Reject("payload_too_large", "frame %dB exceeds limit %dB" % (len(payload), MAX_FRAME_BYTES))
    return len(payload).to_bytes(4, "big").hex() + payload.hex()


# ---------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------


def is_id(x):
    return type(x) is str and ID_RE.fullmatch(x) is not None


def is_name(x):
    return type(x) is str and NAME_RE.fullmatch(x) is not None


def is_version(x):
    return type(x) is str and VERSION_RE.fullmatch(x) is not None


def utf16_len(s):
    """JavaScript's s.length: the number of UTF-16 code units."""
    return len(utf16(s)) // 2


def validate(m):
    """Return None for a structurally valid message, else a short problem name.

    Where the notes leave a detail open:
    - Unknown extra members are accepted; only the listed fields are checked.
    - Optional fields without a stated rule (req.ts, p, e.data, features,
      bye.code/reason) are not checked at all.
    - "Present" means the member exists, whatever its value: idem:null is
      rejected (not true), chunk d:null is accepted (d is present).
    - chunk n: any integral double >= 0, so -0 and 1e300 pass and 1.5
      fails; there is no upper bound.
    - appId length counts UTF-16 code units (JavaScript's .length).
    - err e: must be an object; an array fails, as it has no code.
    """
    if type(m) not in (dict, list):
        return "not-an-object"
    if type(m) is list:
        return "bad-version"  # an array has no v
    v = m.get("v")
    if not is_version(v) or v not in SUPPORTED_VERSIONS:
        return "bad-version"
    t = m.get("t")
    if type(t) is not str or t not in MESSAGE_TYPES:
        return "bad-type"
    if t == "req":
        if not is_id(m.get("i")):
            return "req-id"
        if not is_name(m.get("m")):
            return "req-method"
        if "idem" in m and m["idem"] is not True:
            return "req-idem-flag"
    elif t in ("res", "end", "cancel"):
        if not is_id(m.get("i")):
            return t + "-id"
    elif t == "err":
        if not is_id(m.get("i")):
            return "err-id"
        e = m.get("e")
        if (
            type(e) is not dict
            or type(e.get("code")) is not str
            or e["code"] not in ERROR_CODES
            or type(e.get("message")) is not str
        ):
            return "err-body"
    elif t == "chunk":
        if not is_id(m.get("i")):
            return "chunk-id"
        n = m.get("n")
        if type(n) is not float or not n.is_integer() or n < 0:
            return "chunk-n"
        if "d" not in m:
            return "chunk-data-missing"
    elif t == "evt":
        if not is_id(m.get("s")):
            return "evt-sub"
        if not is_name(m.get("e")):
            return "evt-name"
    elif t == "sub":
        if not is_id(m.get("s")):
            return "sub-sub"
        if not is_name(m.get("e")):
            return "sub-event"
    elif t == "unsub":
        if not is_id(m.get("s")):
            return "unsub-sub"
    elif t in ("ping", "pong"):
        ts = m.get("ts")
        if type(ts) is not float or not math.isfinite(ts):
            return "ts"
    elif t == "hello":
        versions = m.get("versions")
        if type(versions) is not list or not versions:
            return "hello-versions"
        if not all(is_version(x) for x in versions):
            return "hello-version-format"
        d = m.get("deviceId")
        if type(d) is not str or DEVICE_ID_RE.fullmatch(d) is None:
            return "hello-device-id"
        a = m.get("appId")
        if type(a) is not str or not 1 <= utf16_len(a) <= 256:
            return "hello-app-id"
    elif t == "hello_ok":
        if not is_version(m.get("version")):
            return "hello-ok-version"
    # bye: nothing is required.
    return None


def decode_message(payload):
    """Run the reference's decode pipeline on payload bytes (no length
    prefix); return the message's canonical JSON text."""
    # 1. UTF-8. The reference's default TextDecoder turns bad bytes into
    # U+FFFD; we choose parse_error instead. It also strips one leading byte
    # order mark, and so do we.
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise Reject("parse_error", "payload is not valid UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    # 2. JSON.parse.
    try:
        parsed = parse(text)
    except ParseError:
        raise Reject("parse_error", "payload is not valid JSON") from None
    # 3. Nesting: no value inside more than 64 containers.
    if too_deep(parsed):
        raise Reject("invalid_message", "payload nesting exceeds %d" % MAX_DEPTH)
    # 4. Version, before any structural check.
    if type(parsed) is dict and type(parsed.get("v")) is str and parsed["v"] not in SUPPORTED_VERSIONS:
        raise Reject("version_unsupported", "protocol version is not supported")
    # 5. Structure.
    problem = validate(parsed)
    if problem is not None:
        raise Reject("invalid_message", "invalid message: " + problem)
    try:
        return canonical(parsed)
    except Reject as e:
        # The reference accepts such a message (say p holds the lexeme 1e400,
        # read as Infinity), but it has no JSON form to reply with. We answer
        # err "unrepresentable", which is not a Crosslink code.
        if e.code is None:
            raise Reject(
                "unrepresentable",
                "the payload decodes to a valid message, but it cannot be written back as JSON: %s" % e,
            ) from None
        raise


# ---------------------------------------------------------------------------
# The adapter protocol
# ---------------------------------------------------------------------------


def value_arg(args):
    """The message to write: args.value_text, the message's exact text, read
    as JSON.parse reads it, when the request has it, and otherwise
    args.value, which must be present (null is a value). Both read the same
    here, since the request line goes through parse too; value_text is there
    for hosts whose parsers lose what a verdict turns on."""
    if type(args) is not dict or "value" not in args:
        raise Reject("bad_args", "args.value is required")
    if "value_text" in args:
        text = args["value_text"]
        if type(text) is not str:
            raise Reject("bad_args", "args.value_text is not a string")
        try:
            return parse(text)
        except ParseError as e:
            raise Reject("bad_args", "args.value_text is not JSON: %s" % e) from None
    return args["value"]


def handle(op, args):
    """Answer one request; return the reply's ok member as JSON text."""
    if op == "hello":
        protocol = args.get("protocol") if type(args) is dict else None
        if protocol != PROTOCOL:
            raise Reject("unsupported_protocol", "want %s, got %s" % (PROTOCOL, scalar_or_kind(protocol)))
        suite = args.get("suite", SUITE)
        if suite != SUITE:
            log("hello for suite %s; this adapter is for %s" % (scalar_or_kind(suite), SUITE))
        return canonical(HELLO)
    if op == "canonicalJson":
        return quote(canonical(value_arg(args)))
    if op == "encodeFrame":
        return quote(encode_frame(value_arg(args)))
    if op == "decodeMessage":
        h = args.get("payload_hex") if type(args) is dict else None
        if type(h) is not str or len(h) % 2 or HEX_RE.fullmatch(h) is None:
            raise Reject("bad_args", "args.payload_hex must be a string of hex digit pairs")
        return decode_message(bytes.fromhex(h))
    raise Reject("unknown_op", "unknown op %s" % quote(op))


def scalar_or_kind(x):
    """A short rendering of x for messages."""
    return canonical(x) if type(x) not in (list, dict) else type(x).__name__


def log(msg):
    print("crosslink-python: " + msg, file=sys.stderr, flush=True)


def err_line(rid, code, message):
    rid_text = "null" if rid is None else str(rid)
    code_text = "null" if code is None else quote(code)
    return '{"id":%s,"err":{"code":%s,"message":%s}}\n' % (rid_text, code_text, quote(message))


def on_line(raw):
    """Answer one request line."""
    try:
        req = parse(raw.decode("utf-8"))
    except (UnicodeDecodeError, ParseError) as e:
        log("bad request line: %s" % e)
        return err_line(None, "bad_request", "request is not a JSON object line: %s" % e)
    rid = req.get("id") if type(req) is dict else None
    rid = int(rid) if type(rid) is float and rid.is_integer() else None
    if rid is None or type(req.get("op")) is not str:
        return err_line(rid, "bad_request", "a request needs an integer id and a string op")
    try:
        return '{"id":%d,"ok":%s}\n' % (rid, handle(req["op"], req.get("args")))
    except Reject as e:
        return err_line(rid, e.code, str(e))
    except Exception as e:  # a bug or resource limit, not a rejection
        log("request %d: %r" % (rid, e))
        return err_line(rid, "internal_error", repr(e))


def main():
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        if raw.strip(b" \t\r\n") == b"":
            continue
        out.write(on_line(raw).encode("utf-8"))
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
