//! The adapter side of referee-adapter/1 (docs/adapter-protocol.md): an
//! adapter program is its ops and one call to [`serve`].

use std::fmt;
use std::io::{self, BufRead, Write};

use serde_json::Value;

use crate::report::kind;

/// The protocol this module speaks.
pub const PROTOCOL: &str = "referee-adapter/1";

/// An op's rejection: the `err` of its reply. Any `std::error::Error`
/// converts into one with no code, so `?` works inside an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpError {
    /// The protocol's stable error code (`parse_error`, `duplicate_key`, ...),
    /// or `None` when the implementation has none.
    pub code: Option<String>,
    /// Free text for people.
    pub message: String,
}

impl OpError {
    /// An error with a code.
    pub fn new(code: impl Into<String>, message: impl fmt::Display) -> OpError {
        OpError {
            code: Some(code.into()),
            message: message.to_string(),
        }
    }

    /// An error with no code (`"code": null`).
    pub fn uncoded(message: impl fmt::Display) -> OpError {
        OpError {
            code: None,
            message: message.to_string(),
        }
    }
}

impl<E: std::error::Error> From<E> for OpError {
    fn from(e: E) -> OpError {
        OpError::uncoded(e)
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.code {
            Some(c) => write!(f, "{c}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// What an op returns: the `ok` value, or an [`OpError`].
pub type OpResult = Result<Value, OpError>;

type OpFn = Box<dyn FnMut(&Value) -> OpResult>;

/// An adapter: its name and version for `hello`, and its ops, each a
/// function of the request's `args`. Only the ops added here are listed in
/// `hello`, so referee sends no other (and reports the checks that need one
/// as not-checked).
pub struct Ops {
    name: String,
    version: String,
    ops: Vec<(String, OpFn)>,
}

impl fmt::Debug for Ops {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ops")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("ops", &self.names())
            .finish()
    }
}

impl Ops {
    /// An adapter with no ops yet. `name` must not be empty (referee refuses
    /// a hello without one).
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Ops {
        Ops {
            name: name.into(),
            version: version.into(),
            ops: Vec::new(),
        }
    }

    /// Adds the op `name` (replacing one of that name), answered by `f` of the
    /// request's `args`: `Ok(value)` is the reply's `ok`, `Err` its `err`.
    ///
    /// A panic in `f` ends the adapter process, as a crash does: referee
    /// reports the check in flight as `error`, with the panic message from
    /// stderr in its evidence, and starts the adapter again.
    pub fn op<F>(mut self, name: impl Into<String>, f: F) -> Ops
    where
        F: FnMut(&Value) -> OpResult + 'static,
    {
        let name = name.into();
        let f: OpFn = Box::new(f);
        match self.ops.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = f,
            None => self.ops.push((name, f)),
        }
        self
    }

    /// The ops offered, in the order they were added.
    pub fn names(&self) -> Vec<&str> {
        self.ops.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The `ok` of the hello reply.
    pub fn hello(&self) -> Value {
        serde_json::json!({
            "name": self.name,
            "version": self.version,
            "ops": self.names(),
            "concurrency": 1,
        })
    }

    /// Answers one request line (without its line ending) with one reply
    /// line (without its `\n`). A line that is not a request gets
    /// `{"id":null,"err":{"code":"bad_request",...}}`.
    pub fn handle(&mut self, line: &[u8]) -> String {
        let req: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                return reply_err(
                    &Value::Null,
                    &OpError::new("bad_request", format!("not JSON: {e}")),
                )
            }
        };
        let id = match req.get("id") {
            Some(id @ Value::Number(n)) if n.is_u64() || n.is_i64() => id.clone(),
            Some(other) => {
                let why = format!("the request's id is {}, not an integer", kind(other));
                return reply_err(&Value::Null, &OpError::new("bad_request", why));
            }
            None => {
                let why = format!("{} has no id", kind(&req));
                return reply_err(&Value::Null, &OpError::new("bad_request", why));
            }
        };
        let op = match req.get("op").and_then(Value::as_str) {
            Some(op) => op,
            None => return reply_err(&id, &OpError::new("bad_request", "the request has no op")),
        };
        let args = req.get("args").unwrap_or(&Value::Null);
        if op == "hello" {
            return reply_ok(&id, &self.hello());
        }
        match self.ops.iter_mut().find(|(n, _)| n == op) {
            Some((_, f)) => match f(args) {
                Ok(v) => reply_ok(&id, &v),
                Err(e) => reply_err(&id, &e),
            },
            None => reply_err(&id, &OpError::new("unknown_op", format!("no op {op:?}"))),
        }
    }
}

fn reply_ok(id: &Value, ok: &Value) -> String {
    format!("{{\"id\":{id},\"ok\":{ok}}}")
}

fn reply_err(id: &Value, e: &OpError) -> String {
    let err = serde_json::json!({"code": e.code, "message": e.message});
    format!("{{\"id\":{id},\"err\":{err}}}")
}

/// Serves `ops` on stdin and stdout until stdin closes: one request per
/// line in, one reply per line out, flushed after each. Log to stderr:
/// stdout carries protocol lines only.
pub fn serve(ops: Ops) -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    serve_io(ops, stdin.lock(), stdout.lock())
}

/// [`serve`] over any reader and writer.
pub fn serve_io<R: BufRead, W: Write>(mut ops: Ops, mut input: R, mut output: W) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let mut req = line.as_slice();
        while let [rest @ .., b'\n' | b'\r'] = req {
            req = rest;
        }
        if req.is_empty() {
            continue;
        }
        let reply = ops.handle(req);
        output.write_all(reply.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

/// The string member `name` of `args`, or a `bad_args` error.
pub fn str_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, OpError> {
    match args.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(OpError::new(
            "bad_args",
            format!("args.{name} is {}, not a string", kind(other)),
        )),
        None => Err(OpError::new("bad_args", format!("args has no {name}"))),
    }
}

/// The bytes of the hex string member `name` of `args` (either case), or a
/// `bad_args` error. Ops that carry bytes send them so (`value_hex`, `payload_hex`).
pub fn hex_arg(args: &Value, name: &str) -> Result<Vec<u8>, OpError> {
    hex_decode(str_arg(args, name)?)
        .map_err(|e| OpError::new("bad_args", format!("args.{name}: {e}")))
}

/// Lowercase hex of `bytes`, as replies carry bytes.
pub fn hex_encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// The bytes of a hex string (either case), or why it is not hex.
pub fn hex_decode(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("hex of odd length {}", s.len()));
    }
    let digit = |i: usize| -> Result<u8, String> {
        let c = s.as_bytes()[i];
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(format!("not hex at offset {i}")),
        }
    };
    (0..s.len() / 2)
        .map(|i| Ok(digit(2 * i)? << 4 | digit(2 * i + 1)?))
        .collect()
}
