#!/usr/bin/env python3
# jcs_adapter.py: an RFC 8785 (JCS) canonicaliser and, run as a program, a referee
# adapter for the jcs suite built with referee.serve_adapter.
#   referee run jcs -- python3 jcs_adapter.py
import json
import math
import re

from referee import AdapterError, serve_adapter

SURROGATE = re.compile("[\ud800-\udfff]")
ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\]')


def number(lexeme):
    """A JSON number read as an IEEE 754 double, as RFC 8785 §3.2.2.3 reads it."""
    x = float(lexeme)  # correctly rounded; huge integers too, with no int in between
    if math.isinf(x):
        raise AdapterError("number_out_of_range", "%s is beyond the range of a double" % lexeme[:40])
    return x


def no_duplicates(pairs):
    """An object's members, refusing a name given twice (I-JSON, RFC 7493 §2.3)."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise AdapterError("duplicate_key", "duplicate key %r" % key)
        obj[key] = value
    return obj


def no_constants(name):
    raise AdapterError("parse_error", "%s is not JSON" % name)


def parse(text):
    """The value of a strict RFC 8259 JSON text, refusing what RFC 8785 must refuse."""
    try:
        return json.loads(text, parse_float=number, parse_int=number,
                          parse_constant=no_constants, object_pairs_hook=no_duplicates)
    except RecursionError:
        raise AdapterError("too_deep", "nested too deeply for this parser") from None
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        raise AdapterError("parse_error", str(e)) from None


def es_number(x):
    """A double as ECMAScript's Number.prototype.toString writes it (RFC 8785 §3.2.2.3)."""
    if x == 0:
        return "0"  # -0 too
    if x < 0:
        return "-" + es_number(-x)
    # repr gives the shortest digits that read back as x, and the closest of those:
    # the digits ECMAScript asks for. Only the layout differs.
    mantissa, _, exp = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    e = int(exp or 0) - len(fraction)  # x = int(digits) * 10**e
    trimmed = digits.rstrip("0")
    e += len(digits) - len(trimmed)
    digits, k = trimmed, len(trimmed)
    n = e + k  # x = 0.digits * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return "%se%s%d" % (head, "+" if n - 1 > 0 else "-", abs(n - 1))


def es_string(s):
    """A string as JSON.stringify writes it (RFC 8785 §3.2.2.2), refusing lone surrogates."""
    if SURROGATE.search(s):
        raise AdapterError("lone_surrogate", "a string holds a surrogate without its partner")
    return '"' + NEEDS_ESCAPE.sub(lambda m: ESCAPES.get(m.group()) or "\\u%04x" % ord(m.group()), s) + '"'


def utf16_order(item):
    return item[0].encode("utf-16-be")  # big-endian bytes sort as UTF-16 code units do


def write(value):
    """The canonical text of a parsed value (RFC 8785 §3.2)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return es_number(value)
    if isinstance(value, str):
        return es_string(value)
    if isinstance(value, list):
        return "[" + ",".join(write(v) for v in value) + "]"
    members = sorted(value.items(), key=utf16_order)  # §3.2.3
    return "{" + ",".join(es_string(k) + ":" + write(v) for k, v in members) + "}"


def canonical_json(text):
    """The RFC 8785 canonical text of the JSON text `text`."""
    try:
        return write(parse(text))
    except RecursionError:
        raise AdapterError("too_deep", "nested too deeply for this writer") from None


def canonical_json_bytes(data):
    """The canonical text of JSON given as bytes, which must be UTF-8."""
    try:
        text = data.decode("utf-8")  # strict: no overlong forms, no encoded surrogates
    except UnicodeDecodeError as e:
        raise AdapterError("invalid_utf8", str(e)) from None
    return canonical_json(text)


OPS = {
    "canonicalJson": lambda args: canonical_json(args["value_text"]),
    "canonicalJsonBytes": lambda args: canonical_json_bytes(args.bytes("value")),
}

if __name__ == "__main__":
    serve_adapter(OPS, name="example-jcs", version="1.0.0")
