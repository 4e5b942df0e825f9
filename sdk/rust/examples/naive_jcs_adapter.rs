//! A jcs adapter that canonicalises with serde_json alone: it reads the text
//! into a `Value` and writes it back with `serde_json::to_string`. It looks
//! close to RFC 8785 and is not; referee's jcs suite shows where.
//!
//!     cargo build --example naive_jcs_adapter
//!     referee run jcs -q -- target/debug/examples/naive_jcs_adapter
//!
//! - serde_json writes a double with a fraction or an exponent as Rust does,
//!   `1000000.0` and `1e21`, where RFC 8785 (ECMAScript) wants `1000000` and
//!   `1e+21`: the number checks fail.
//! - `Value`'s objects are ordered by UTF-8 bytes (code points), not UTF-16
//!   code units: keys above U+FFFF sort after U+E000..U+FFFF, and
//!   `jcs/keys/utf16-vs-codepoint` fails.
//! - `Value` keeps the last of two duplicate member names instead of refusing
//!   them: a `should` failure, a warning.

use referee::{serve, str_arg, Ops};
use serde_json::Value;

fn main() -> std::io::Result<()> {
    serve(
        Ops::new("naive-serde-json", "0.1.0").op("canonicalJson", |args| {
            let value: Value = serde_json::from_str(str_arg(args, "value_text")?)?;
            Ok(Value::String(serde_json::to_string(&value)?))
        }),
    )
}
