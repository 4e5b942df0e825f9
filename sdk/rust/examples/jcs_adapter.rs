//! A referee-adapter/1 adapter for referee's jcs suite (RFC 8785), written
//! with the referee crate's `serve`. It offers `canonicalJson` only: the
//! suite's `canonicalJsonBytes` checks (input that is not UTF-8) end
//! not-checked.
//!
//!     cargo build --example jcs_adapter
//!     referee run jcs -- target/debug/examples/jcs_adapter
//!
//! serde_json reads the text (with its `float_roundtrip` feature, so every
//! number is the nearest double; it refuses lone surrogates, NaN, numbers
//! beyond double range and text that is not JSON); a visitor of our own
//! refuses duplicate member names, which serde_json's `Value` would drop.
//! The output is written here, not by `serde_json::to_string`: RFC 8785
//! sorts members by UTF-16 code units and writes numbers as ECMAScript does.

use std::fmt;

use referee::{serve, str_arg, OpError, Ops};
use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

fn main() -> std::io::Result<()> {
    serve(
        Ops::new("rust-jcs-example", "0.1.0").op("canonicalJson", |args| {
            let value = parse(str_arg(args, "value_text")?)?;
            let mut out = String::new();
            write_canonical(&value, &mut out);
            Ok(Value::String(out))
        }),
    )
}

/// Reads a JSON text strictly: duplicate member names are an error.
fn parse(text: &str) -> Result<Value, OpError> {
    match serde_json::from_str::<Strict>(text) {
        Ok(Strict(v)) => Ok(v),
        Err(e) => {
            let msg = e.to_string();
            let code = if msg.contains("duplicate member") {
                "duplicate_key"
            } else if msg.contains("surrogate") {
                "lone_surrogate"
            } else if msg.contains("out of range") {
                "number_out_of_range"
            } else {
                "parse_error"
            };
            Err(OpError::new(code, msg))
        }
    }
}

/// A JSON value read with duplicate member names refused.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_bool<E>(self, b: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(n.into())))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(n.into())))
    }
    fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Strict, E> {
        Number::from_f64(x)
            .map(|n| Strict(Value::Number(n)))
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Strict, E> {
        Ok(Strict(Value::String(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Strict(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            if members.contains_key(&name) {
                return Err(A::Error::custom(format!("duplicate member name {name:?}")));
            }
            let Strict(v) = map.next_value()?;
            members.insert(name, v);
        }
        Ok(Strict(Value::Object(members)))
    }
}

/// Writes the RFC 8785 canonical form of `v`.
fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // Every number is a double to RFC 8785: 9007199254740993 is 2^53.
        Value::Number(n) => out.push_str(&number(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut names: Vec<&String> = members.keys().collect();
            names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, name) in names.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_canonical(&members[name], out);
            }
            out.push('}');
        }
    }
}

/// A string as JSON.stringify writes it.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c < ' ' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A finite double as ECMAScript's Number::toString writes it.
fn number(x: f64) -> String {
    if x == 0.0 {
        return "0".into(); // -0 too
    }
    if x < 0.0 {
        return format!("-{}", number(-x));
    }
    // Rust's {:e} gives the shortest digits that read back as x: d.ddde±N.
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp = exp.parse::<i32>().unwrap_or(0);
    let digits = even_on_tie(mantissa.chars().filter(|c| *c != '.').collect(), exp, x);
    let k = digits.len() as i32;
    let n = exp + 1; // x = 0.digits × 10^n
    if k <= n && n <= 21 {
        digits + &"0".repeat((n - k) as usize)
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat(-n as usize))
    } else {
        let e = n - 1;
        let sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        format!("{first}{dot}{rest}e{sign}{}", e.abs())
    }
}

/// When x lies exactly halfway between two shortest candidates, Rust rounds
/// up and ECMAScript takes the one whose last digit is even:
/// 1424953923781206.25 is `1424953923781206.2`. x's exact decimal expansion
/// (every double has one of at most 767 digits) tells a tie.
fn even_on_tie(digits: String, exp: i32, x: f64) -> String {
    let exact = format!("{x:.800e}");
    let (mantissa, e) = exact.split_once('e').unwrap_or((&exact, ""));
    let exact: Vec<u8> = mantissa.bytes().filter(|b| *b != b'.').collect();
    let k = digits.len();
    let tie = e.parse() == Ok(exp) && exact[k] == b'5' && exact[k + 1..].iter().all(|b| *b == b'0');
    if !tie || (digits.as_bytes()[k - 1] - b'0') % 2 == 0 {
        return digits;
    }
    let mut down = exact[..k].to_vec();
    if down != digits.as_bytes() {
        return String::from_utf8(down).unwrap_or(digits); // Rust rounded up: take the one below
    }
    for d in down.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1; // Rust rounded down to an odd digit: take the one above
            return String::from_utf8(down).unwrap_or(digits);
        }
    }
    digits
}
