"""A naive JCS built on Python's json module, and the jcs checks it fails, predicted by hand.

The prediction comes from reading RFC 8785, docs/suites/jcs.md and the inputs of
suites/jcs/corpus/vectors.json against what json.loads and json.dumps do; none of it comes
from a referee report. Run as a program, this is the same naive JCS as a stdio adapter.
"""

import json

from referee import serve_adapter


def naive(args):
    """canonicalJson as many first tries write it: parse, then dump with sorted keys."""
    return json.dumps(json.loads(args["value_text"]), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# Numbers. json.loads reads a lexeme with '.', 'e' or 'E' as a float and anything else as
# an exact int; json.dumps writes a float with repr. RFC 8785 §3.2.2.3 wants ECMAScript's
# Number.prototype.toString of the double. They differ where
# - repr keeps ".0" on an integral float below 1e16: 0.0, 1.0, 1000.0, 1e6, 2^53 written
#   as 9007199254740992.0, 1E15 (ES: 0, 1, 1000, 1000000, 9007199254740992, ...);
# - repr uses exponent form from 1e16 up, ES only from 1e21: 1e20, 9.999999999999999e20,
#   2^68 = 2.9514790517935283e20, -8.76596438581751E+16, 2.2046021016277027E+17;
# - repr uses exponent form below 1e-4, ES only below 1e-6, and repr pads the exponent to
#   two digits: 1e-06, 9.999999999999997e-07, 1e-07, -3.3333333333333333e-06 and
#   1.1570221556542668e-05 (ES: 0.000001, 9.999999999999997e-7, 1e-7, -0.0000033333333333333333,
#   0.000011570221556542668);
# - -0.0 stays "-0.0" (ES: "0"); an int lexeme stays exact, so 9007199254740993 and
#   12345678901234567890 are not rounded to the doubles 9007199254740992 and
#   12345678901234567000.
# Integers read as ints (-0, 1e21 read as float but written 1e+21 alike, exponents of
# two or more digits beyond 1e21 and below 1e-9) come out as ES writes them.
NUMBERS = {
    "jcs/numbers/" + n for n in (
        "zero-fraction", "minus-zero-exponent", "trailing-zeros", "exponent-integer", "million",
        "1e20", "below-1e21", "2-pow-68", "1e-6", "below-1e-6", "1e-7", "negative-small",
        "2-pow-53", "2-pow-53-plus-1", "large-integer", "top-level",
        "random/024",  # -8.76596438581751E+16: between 1e16 and 1e21
        "random/154",  # 1.1570221556542668E-05: between 1e-6 and 1e-4
        "random/251",  # 2.2046021016277027E+17: between 1e16 and 1e21
    )
}
# RFC 8785 Appendix B, by the same rules: 0E+00 and -0E+00 (0.0, -0.0), 9.007199254740992E+15
# and its negative (.0 kept), 2.9514790517935283E+20, 9.999999999999997E+20 and
# 9.999999999999999E+20 (exponent form below 1e21), 9.999999999999997E-07, 1E-06 and
# -3.3333333333333333E-06 (exponent form above 1e-7, or a padded exponent). And NaN,
# Infinity and -Infinity: json.loads reads them and json.dumps (allow_nan left True)
# writes them back, where RFC 8785 §3.2.2.3 requires an error.
APPENDIX_B = {
    "jcs/appendix-b/" + n for n in (
        "0000000000000000", "8000000000000000", "4340000000000000", "c340000000000000",
        "4430000000000000", "444b1ae4d6e2ef4e", "444b1ae4d6e2ef4f", "3eb0c6f7a0b5ed8c",
        "3eb0c6f7a0b5ed8d", "becbf647612f3696",
        "7fffffffffffffff", "7ff0000000000000", "fff0000000000000",
    )
}
# Rejections RFC 8785 makes a must: json.loads accepts lone surrogate escapes in every shape
# (§3.2.2.2 requires an error), and reads 1e400, -1E400 and 1.8e308 as infinities, which
# json.dumps writes as Infinity (§3.2.2.3: an error).
REJECTS = {
    "jcs/rejects/" + n for n in (
        "lone-high-surrogate", "lone-low-surrogate", "lone-surrogate-key", "reversed-pair",
        "overflow", "overflow-negative", "overflow-just-above-max",
    )
}
SURROGATES = {
    "jcs/surrogates/" + n for n in (
        "high-high", "high-high-low", "low-low", "high-bmp-escape", "high-escaped-quote",
        "high-short-escape", "high-raw-ascii", "high-raw-non-ascii", "high-raw-astral",
        "high-at-end-of-text", "high-before-pair", "key-high-high", "key-high-bmp-escape",
        "key-high-at-end", "key-low-low",
    )
}
# Key order. sort_keys sorts by code point; RFC 8785 §3.2.3 by UTF-16 code units. They
# differ when one key has a character above U+FFFF (a surrogate pair, D800-DBFF) and
# another a BMP character from U+E000 up: U+FB33, U+E000, U+FFFF, U+FFFD against
# U+1F602, U+10000, U+10FFFF, U+10FFFD.
KEYS = {
    "jcs/keys/utf16-vs-codepoint", "jcs/keys/utf16-private-use", "jcs/keys/utf16-ffff",
    "jcs/keys/utf16-fffd", "jcs/surrogates/pair-uppercase-key",
}
# A number alone, with whitespace: 1E3 → 1000.0, -0.0 → -0.0.
TOP_LEVEL = {"jcs/top-level/number-spaces", "jcs/top-level/negative-zero-tabs"}
# Scale: each array of 256 random doubles holds numbers the rules above get wrong (below
# 2^53: values between 1e-9 and 1e-4, such as -1.5880156659552926E-09, -2.005284897325535E-05,
# 1.9621264516096585E-06, -8.604848224355673E-05, -1.5942341817926202E-07,
# -5.108363221886127E-08, -3.8055002619700335E-08, -2.19523523892144E-06; from 2^53:
# values between 2^53 and 1e21, such as 4.4020546326071165E+19); the 500 names mix astral
# characters and U+E000 to U+FFFF; the 10,000 scalars hold integral floats (9.6225E+04).
SCALE = {"jcs/scale/doubles-below-2-53/%d" % i for i in range(1, 9)} | {
    "jcs/scale/doubles-from-2-53/%d" % i for i in range(1, 9)} | {
    "jcs/scale/object-500", "jcs/scale/array-10000"}

FAILS = NUMBERS | APPENDIX_B | REJECTS | SURROGATES | KEYS | TOP_LEVEL | SCALE

# Duplicate names: json.loads keeps the last one. RFC 8785 §3.1 puts their absence on the
# data (I-JSON), so accepting them is a should failure, a warning.
WARNS = {"jcs/rejects/duplicate-key", "jcs/rejects/duplicate-key-nested", "jcs/rejects/duplicate-key-escaped"}

# Everything else passes: strings (ensure_ascii=False escapes as JSON.stringify does),
# structure, names, grammar (json.loads is strict), and nesting (a RecursionError is a
# rejection, which a check deeper than 64 may take).

if __name__ == "__main__":
    serve_adapter({"canonicalJson": naive}, name="naive-jcs", version="0")
