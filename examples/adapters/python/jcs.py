#!/usr/bin/env python3
"""jcs.py: a referee-adapter/1 adapter for referee's "jcs" suite, in Python.

Python 3.11 or later, standard library only.

It offers two ops. canonicalJson: given {"value_text": T}, where T is a JSON
text, it answers with the RFC 8785 (JCS) canonical form of T as a string, or
rejects T with one of the error codes parse_error, duplicate_key,
lone_surrogate or number_out_of_range. canonicalJsonBytes: given
{"value_hex": H}, the same for the bytes H spells in hex, which the suite
uses for input that is not UTF-8 (no JSON string can carry it); bytes that
are not UTF-8 are rejected with invalid_utf8.

referee starts it as a child process and speaks NDJSON over its stdio:

    referee run jcs -- python3 examples/adapters/python/jcs.py

Each request is one JSON object on one line of stdin; each reply is one line
on stdout. stdout carries protocol only; logs go to stderr. The adapter exits
0 when stdin closes.

The stdlib json module recurses once per nesting level, so the value text is
read by the small strict parser below, which keeps an explicit stack: nesting
depth is limited only by memory. Numbers are formatted by our own
ECMAScript Number::toString on top of repr(float).
"""

import json
import re
import sys

PROTOCOL = "referee-adapter/1"
HELLO = {"name": "jcs-python", "version": "1.0.0", "ops": ["canonicalJson", "canonicalJsonBytes"], "concurrency": 1}
HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")


class Reject(Exception):
    """A rejection of the value text with a protocol error code."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


WS = re.compile(r"[ \t\n\r]*")
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
PLAIN = re.compile(r'[^"\\\x00-\x1f]*')  # a run of string characters needing no decoding
HEX4 = re.compile(r"[0-9a-fA-F]{4}")
SURROGATE = re.compile("[\ud800-\udfff]")
SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
ESCAPE_OUT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def quote(s):
    """Return s as a JCS string literal: only '"', '\\' and controls escaped."""
    return '"' + NEEDS_ESCAPE.sub(lambda m: ESCAPE_OUT.get(m.group(), "\\u%04x" % ord(m.group())), s) + '"'


def es_number(x):
    """Return ECMAScript Number::toString(x) for a finite float x."""
    if x == 0:
        return "0"  # also -0
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")  # shortest round-trip digits
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0")
    # The value is 0.<digits> * 10**n once leading zeros are dropped.
    n = len(whole) + int(exp or 0) - (len(whole + frac) - len(digits))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


def parse_string(text, i):
    """Decode the string literal whose opening quote is text[i]; return (str, end)."""
    parts, start = [], i
    i += 1
    while True:
        m = PLAIN.match(text, i)
        parts.append(m.group())
        i = m.end()
        c = text[i : i + 1]
        if c == '"':
            break
        if c == "":
            raise Reject("parse_error", "unterminated string at offset %d" % i)
        if c != "\\":
            raise Reject("parse_error", "control character in string at offset %d" % i)
        e = text[i + 1 : i + 2]
        if e == "u" and HEX4.fullmatch(text, i + 2, i + 6):
            parts.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
        elif e in SIMPLE_ESCAPES:
            parts.append(SIMPLE_ESCAPES[e])
            i += 2
        else:
            raise Reject("parse_error", "bad escape at offset %d" % i)
    # Join escaped surrogate pairs into code points; any surrogate left is lone.
    s = "".join(parts)
    if SURROGATE.search(s):
        s = s.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    if SURROGATE.search(s):
        raise Reject("lone_surrogate", "lone surrogate in string at offset %d" % start)
    return s, i + 1


class Obj:
    """A parsed JSON object: its members in input order."""

    def __init__(self):
        self.members = []  # (key, value) pairs
        self.keys = set()
        self.pending = None  # the key whose value is being parsed


def parse(text):
    """Parse a strict RFC 8259 JSON text without recursion.

    Scalars become their canonical text (str), arrays lists, objects Obj.
    """
    if SURROGATE.search(text):
        raise Reject("lone_surrogate", "value text contains a lone surrogate")
    stack, root, state, i = [], None, "value", 0

    def fail(what):
        raise Reject("parse_error", "%s at offset %d" % (what, i))

    while True:
        i = WS.match(text, i).end()
        c = text[i : i + 1]
        if state == "value":
            if c in ("[", "{"):
                i = WS.match(text, i + 1).end()
                if text[i : i + 1] == ("]" if c == "[" else "}"):
                    i, v = i + 1, ([] if c == "[" else Obj())
                else:
                    stack.append([] if c == "[" else Obj())
                    state = "value" if c == "[" else "key"
                    continue
            elif c == '"':
                s, i = parse_string(text, i)
                v = quote(s)
            elif c == "-" or (c != "" and "0" <= c <= "9"):
                m = NUMBER.match(text, i) or fail("bad number")
                x = float(m.group())
                if x in (float("inf"), float("-inf")):
                    raise Reject("number_out_of_range", "number %s overflows a double" % m.group())
                i, v = m.end(), es_number(x)
            else:
                v = next((w for w in ("true", "false", "null") if text.startswith(w, i)), None)
                if v is None:
                    fail("unexpected end of text" if c == "" else "unexpected character")
                i += len(v)
        elif state == "key":
            if c != '"':
                fail("expected a string key")
            top = stack[-1]
            key, i = parse_string(text, i)
            if key in top.keys:
                raise Reject("duplicate_key", "duplicate key %s" % quote(key))
            top.keys.add(key)
            top.pending = key
            i = WS.match(text, i).end()
            if text[i : i + 1] != ":":
                fail("expected ':'")
            i, state = i + 1, "value"
            continue
        else:
            top = stack[-1]
            is_obj = isinstance(top, Obj)
            if c == ",":
                i, state = i + 1, ("key" if is_obj else "value")
                continue
            if c != ("}" if is_obj else "]"):
                fail("expected ',' or '}'" if is_obj else "expected ',' or ']'")
            i, v = i + 1, stack.pop()
        # A value v is complete: attach it to its container, or finish.
        state = "after"
        if not stack:
            root = v
            break
        top = stack[-1]
        if isinstance(top, Obj):
            top.members.append((top.pending, v))
        else:
            top.append(v)
    i = WS.match(text, i).end()
    if i != len(text):
        fail("trailing data")
    return root


def serialize(root):
    """Write a parsed value as canonical text, without recursion."""
    out, work = [], [root]  # values to write and literal punctuation, next last
    while work:
        v = work.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, Obj):
            members = sorted(v.members, key=lambda m: m[0].encode("utf-16-be"))
            work.append("}")
            for k in range(len(members) - 1, -1, -1):
                work.extend((members[k][1], quote(members[k][0]) + ":"))
                if k > 0:
                    work.append(",")
            out.append("{")
        else:
            work.append("]")
            for k in range(len(v) - 1, -1, -1):
                work.append(v[k])
                if k > 0:
                    work.append(",")
            out.append("[")
    return "".join(out)


def handle(req):
    """Answer one request object with a reply object."""
    rid, op, args = req.get("id"), req.get("op"), req.get("args")
    args = args if isinstance(args, dict) else {}
    if op == "hello":
        if args.get("protocol") != PROTOCOL:
            msg = "want %s, got %s" % (PROTOCOL, json.dumps(args.get("protocol")))
            return {"id": rid, "err": {"code": "unsupported_protocol", "message": msg}}
        return {"id": rid, "ok": HELLO}
    if op in ("canonicalJson", "canonicalJsonBytes"):
        text = args.get("value_text")
        if op == "canonicalJsonBytes":
            raw = args.get("value_hex")
            if not isinstance(raw, str) or not HEX.fullmatch(raw):
                return {"id": rid, "err": {"code": "bad_args", "message": "args.value_hex must be a hex string"}}
            try:
                # Strict UTF-8: overlong forms, encoded surrogates and cut
                # sequences are errors, and a byte order mark stays a character.
                text = bytes.fromhex(raw).decode("utf-8")
            except UnicodeDecodeError as e:
                return {"id": rid, "err": {"code": "invalid_utf8", "message": str(e)}}
        if not isinstance(text, str):
            return {"id": rid, "err": {"code": "bad_args", "message": "args.value_text must be a string"}}
        try:
            return {"id": rid, "ok": serialize(parse(text))}
        except Reject as e:
            return {"id": rid, "err": {"code": e.code, "message": str(e)}}
        except Exception as e:  # a bug or resource limit, not a rejection
            print("jcs-python: request %s: %r" % (rid, e), file=sys.stderr)
            return {"id": rid, "err": {"code": "internal_error", "message": repr(e)}}
    return {"id": rid, "err": {"code": "unknown_op", "message": "unknown op %s" % json.dumps(op)}}


def reply_line(reply):
    """Render a reply as one line; the ok string of canonicalJson stays raw UTF-8."""
    if isinstance(reply.get("ok"), str):
        return '{"id":%s,"ok":%s}\n' % (json.dumps(reply["id"]), quote(reply["ok"]))
    return json.dumps(reply, separators=(",", ":")) + "\n"


def on_line(raw):
    """Answer one request line; a line that is not a request object gets a
    bad_request reply with a null id."""
    try:
        req = json.loads(raw.decode("utf-8"))
        ok = isinstance(req, dict) and type(req.get("id")) is int and isinstance(req.get("op"), str)
        if ok:
            return reply_line(handle(req))
        rid = req.get("id") if isinstance(req, dict) and type(req.get("id")) is int else None
        msg = "a request needs an integer id and a string op"
    except (ValueError, RecursionError) as e:
        print("jcs-python: bad request line: %s" % e, file=sys.stderr)
        rid, msg = None, "request is not a JSON object line: %s" % e
    return reply_line({"id": rid, "err": {"code": "bad_request", "message": msg}})


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
