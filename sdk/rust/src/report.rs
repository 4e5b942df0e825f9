//! referee-report/2, the JSON report of `referee run --format json`, as
//! typed structs (docs/report-format.md).

use std::fmt;

use serde_json::{Map, Value};

/// The report formats this crate reads: referee-report/2, and /1 (whose
/// checks have no level: every check is a `must`).
pub const FORMATS: [&str; 2] = ["referee-report/2", "referee-report/1"];

/// One run of a suite, as referee reported it.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// `referee-report/2` (or `/1`).
    pub format: String,
    /// referee's name and version.
    pub tool: Tool,
    /// The suite, its version, corpus and digest.
    pub suite: Suite,
    /// The implementation as its hello (or handshake) described it.
    pub implementation: Implementation,
    /// When the run started, RFC 3339 in UTC.
    pub started: String,
    /// Wall time of the run in milliseconds.
    pub duration_ms: u64,
    /// Every selected check reached a verdict.
    pub complete: bool,
    /// The run was made with `--strict`.
    pub strict: bool,
    /// referee's verdict: complete, no failure, no error, at least one pass
    /// (and with `strict`, no not-checked and no warning).
    pub conformant: bool,
    /// How often a broken adapter connection was replaced.
    pub restarts: u64,
    /// How many checks ended in each status.
    pub counts: Counts,
    /// One entry per selected check, in the suite's order.
    pub checks: Vec<Check>,
    /// referee's exit status (0 conformant, 1 not, 3 incomplete), when the
    /// report came from a run.
    pub exit_code: Option<i32>,
    /// What referee wrote on stderr during the run (the adapter's log lines,
    /// prefixed `adapter: `), when the report came from a run.
    pub stderr: String,
    /// The whole document, for members this crate does not type.
    pub raw: Value,
}

/// The tool that wrote the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    /// `referee`.
    pub name: String,
    /// referee's version, with its revision when the build records one.
    pub version: String,
}

/// The suite that ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suite {
    /// As in `referee run NAME`.
    pub name: String,
    /// The suite's own version, when it has one.
    pub version: Option<String>,
    /// `embedded:<suite>` or the `--corpus` directory.
    pub corpus: String,
    /// `sha256:<64 hex>` of the corpus.
    pub corpus_digest: String,
}

/// The implementation under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Implementation {
    /// From its hello (`""` when it never said hello).
    pub name: String,
    /// From its hello.
    pub version: String,
    /// The ops it offered.
    pub ops: Vec<String>,
    /// `stdio`, `http` or `in-process`.
    pub transport: String,
    /// stdio only: the argv.
    pub command: Option<Vec<String>>,
    /// http only: the URL.
    pub url: Option<String>,
    /// in-process only, with `--mode`: the broken mode.
    pub mode: Option<String>,
}

/// How many checks ended in each status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Passed.
    pub pass: u64,
    /// Failed `must` and `may` checks.
    pub fail: u64,
    /// Failed `should` checks (warnings).
    pub warn: u64,
    /// Not checked.
    pub not_checked: u64,
    /// Ended in error.
    pub error: u64,
}

/// A check's status in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// `pass`.
    Pass,
    /// `fail`.
    Fail,
    /// `not-checked`: a capability the implementation did not declare, or a
    /// precondition it could not meet.
    NotChecked,
    /// `error`: the adapter broke, or the check never ran.
    Error,
}

impl Status {
    /// The status as the report spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::NotChecked => "not-checked",
            Status::Error => "error",
        }
    }
}

/// How strongly the protocol demands what a check tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// A failure blocks conformance.
    Must,
    /// A failure is a warning; it blocks only under `--strict`.
    Should,
    /// Implementation-defined: several outcomes conform, any other fails.
    May,
}

impl Level {
    /// The level as the report spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::May => "may",
        }
    }
}

/// What a check means for conformance: its status read with its level and
/// the run's `strict`. It is the status of [`crate::CheckResult`] and of a
/// harness line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CheckStatus {
    /// The check passed.
    Pass,
    /// A `must` or `may` check failed (or a `should` check under `--strict`):
    /// it blocks conformance.
    Fail,
    /// A `should` check failed without `--strict`: a warning, reported with its
    /// evidence, that does not block conformance.
    Warn,
    /// Not checked (the seed's `skipped`): never a pass, never a failure.
    Skipped,
    /// The implementation broke (crash, hang, garbage) or the check never ran:
    /// it blocks conformance, whatever the level.
    Error,
}

impl CheckStatus {
    /// Whether this status blocks conformance (`Fail` and `Error`).
    pub fn blocks(self) -> bool {
        matches!(self, CheckStatus::Fail | CheckStatus::Error)
    }

    /// The status in lowercase: `pass`, `fail`, `warn`, `skipped`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Fail => "fail",
            CheckStatus::Warn => "warn",
            CheckStatus::Skipped => "skipped",
            CheckStatus::Error => "error",
        }
    }
}

impl fmt::Display for CheckStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One check of a report.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// The stable check ID, `<suite>/<segment>/...`.
    pub id: String,
    /// pass, fail, not-checked or error.
    pub status: Status,
    /// must, should or may.
    pub level: Level,
    /// A passing `may` check's recorded outcome: `output` or `rejected`.
    pub outcome: Option<String>,
    /// Why it did not pass (the cgp suite gives its evidence line on a pass too).
    pub reason: Option<String>,
    /// What the corpus requires, on a failure.
    pub expected: Option<String>,
    /// What the implementation gave, on a failure.
    pub actual: Option<String>,
    /// The evidence of a failure or an error.
    pub evidence: Evidence,
    /// With a baseline: `failing` or `flaky`.
    pub known: Option<String>,
    /// How long the check took.
    pub duration_ms: f64,
}

impl Check {
    /// The check's verdict for conformance, read as referee reads it: a failed
    /// `should` check is a warning unless the run was strict.
    pub fn verdict(&self, strict: bool) -> CheckStatus {
        match (self.status, self.level) {
            (Status::Pass, _) => CheckStatus::Pass,
            (Status::Fail, Level::Should) if !strict => CheckStatus::Warn,
            (Status::Fail, _) => CheckStatus::Fail,
            (Status::NotChecked, _) => CheckStatus::Skipped,
            (Status::Error, _) => CheckStatus::Error,
        }
    }

    /// The check's evidence as the text report shows it, one line each: the
    /// reason, expected and actual, the diff rows, the notes, each exchange,
    /// the last five lines of stderr and the repro command. What the
    /// implementation wrote is made safe to print: control, bidirectional and
    /// invisible characters are shown as `‹U+XXXX›`, a value stays on its
    /// line and is cut at 400 bytes (`… (N bytes in all)`) as referee's text
    /// report cuts it, and a note's own lines are indented under it. The
    /// repro command is never cut.
    pub fn evidence_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut line =
            |label: &str, text: &str| out.push(format!("{label}{}", printable(&clip(text))));
        if let Some(r) = &self.reason {
            line("", r);
        }
        if let Some(e) = &self.expected {
            line("expected: ", e);
        }
        if let Some(a) = &self.actual {
            line("actual:   ", a);
        }
        if let Some(d) = &self.evidence.diff {
            line(
                "",
                &format!(
                    "first difference at byte {} (expected {} bytes, got {})",
                    d.offset, d.expected_len, d.actual_len
                ),
            );
            line(&format!("expected @{}: ", d.window_start), &d.expected_hex);
            line(&format!("actual   @{}: ", d.window_start), &d.actual_hex);
        }
        for n in &self.evidence.notes {
            for (i, l) in n.lines().enumerate() {
                line(if i == 0 { "note: " } else { "      " }, l);
            }
        }
        for x in &self.evidence.exchanges {
            line("sent:     ", &x.request);
            if let Some(r) = &x.reply {
                line("received: ", r);
            }
        }
        if let Some(s) = &self.evidence.stderr {
            let tail: Vec<&str> = s.lines().collect();
            for l in &tail[tail.len().saturating_sub(5)..] {
                line("stderr: ", l);
            }
        }
        if let Some(r) = &self.evidence.repro {
            out.push(format!("repro: {}", printable(r)));
        }
        out
    }
}

/// The evidence of a failure or an error; every member may be empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Where the bytes first differ, for a byte comparison that failed.
    pub diff: Option<Diff>,
    /// Extra lines.
    pub notes: Vec<String>,
    /// Each request sent and what came back.
    pub exchanges: Vec<Exchange>,
    /// The tail of the adapter's stderr.
    pub stderr: Option<String>,
    /// One shell command that repeats the check.
    pub repro: Option<String>,
}

/// Where a byte comparison first differs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    /// The first differing byte.
    pub offset: u64,
    /// Total length of the expected bytes.
    pub expected_len: u64,
    /// Total length of the actual bytes.
    pub actual_len: u64,
    /// Offset of the first byte of both hex windows.
    pub window_start: u64,
    /// Lowercase hex of the expected window.
    pub expected_hex: String,
    /// Lowercase hex of the actual window.
    pub actual_hex: String,
}

/// One request and its reply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exchange {
    /// The request line.
    pub request: String,
    /// The reply line (absent when nothing came back).
    pub reply: Option<String>,
}

impl Report {
    /// Reads a referee-report/2 (or /1) document. The error says what is
    /// wrong and where (`checks[3].status: ...`).
    pub fn parse(text: &str) -> Result<Report, String> {
        let raw: Value = serde_json::from_str(text).map_err(|e| {
            let start: String = text.trim_start().chars().take(80).collect();
            format!("not JSON ({e}); it starts {start:?}")
        })?;
        Report::from_value(raw)
    }

    /// Reads a report already parsed as JSON.
    pub fn from_value(raw: Value) -> Result<Report, String> {
        let top = Obj::root(&raw)?;
        let format = top.str("format")?;
        if !FORMATS.contains(&format.as_str()) {
            return Err(format!("format is {format:?}, not one of {FORMATS:?}"));
        }
        let has_levels = format != "referee-report/1";
        let tool = top.obj("tool")?;
        let suite = top.obj("suite")?;
        let imp = top.obj("implementation")?;
        let counts = top.obj("counts")?;
        let mut checks = Vec::new();
        for (i, c) in top.array("checks")?.iter().enumerate() {
            checks.push(parse_check(
                Obj::at(c, format!("checks[{i}]"))?,
                has_levels,
            )?);
        }
        let counts = Counts {
            pass: counts.uint("pass")?,
            fail: counts.uint("fail")?,
            warn: if has_levels { counts.uint("warn")? } else { 0 },
            not_checked: counts.uint("not_checked")?,
            error: counts.uint("error")?,
        };
        let total = counts.pass + counts.fail + counts.warn + counts.not_checked + counts.error;
        if total != checks.len() as u64 {
            return Err(format!(
                "counts add up to {total} checks, but the report lists {}",
                checks.len()
            ));
        }
        Ok(Report {
            tool: Tool {
                name: tool.str("name")?,
                version: tool.str("version")?,
            },
            suite: Suite {
                name: suite.str("name")?,
                version: suite.opt_str("version")?,
                corpus: suite.str("corpus")?,
                corpus_digest: suite.str("corpus_digest")?,
            },
            implementation: Implementation {
                name: imp.str("name")?,
                version: imp.str("version")?,
                ops: imp.strings("ops")?,
                transport: imp.str("transport")?,
                command: imp.opt_strings("command")?,
                url: imp.opt_str("url")?,
                mode: imp.opt_str("mode")?,
            },
            started: top.str("started")?,
            duration_ms: top.uint("duration_ms")?,
            complete: top.bool("complete")?,
            strict: top.bool("strict")?,
            conformant: top.bool("conformant")?,
            restarts: top.uint("restarts")?,
            counts,
            checks,
            exit_code: None,
            stderr: String::new(),
            format,
            raw,
        })
    }

    /// Each check with its verdict for conformance ([`Check::verdict`] with
    /// this run's `strict`).
    pub fn verdicts(&self) -> impl Iterator<Item = (&Check, CheckStatus)> {
        self.checks.iter().map(move |c| (c, c.verdict(self.strict)))
    }

    /// The checks that block conformance: failed `must` and `may` checks (and
    /// `should` under `--strict`) and errors.
    pub fn failures(&self) -> Vec<&Check> {
        self.verdicts()
            .filter(|(_, v)| v.blocks())
            .map(|(c, _)| c)
            .collect()
    }
}

fn parse_check(c: Obj<'_>, has_levels: bool) -> Result<Check, String> {
    let status = match c.str("status")?.as_str() {
        "pass" => Status::Pass,
        "fail" => Status::Fail,
        "not-checked" => Status::NotChecked,
        "error" => Status::Error,
        other => return Err(format!("{}.status: unknown status {other:?}", c.path)),
    };
    let level = if has_levels {
        match c.str("level")?.as_str() {
            "must" => Level::Must,
            "should" => Level::Should,
            "may" => Level::May,
            other => return Err(format!("{}.level: unknown level {other:?}", c.path)),
        }
    } else {
        Level::Must
    };
    let evidence = match c.opt_obj("evidence")? {
        None => Evidence::default(),
        Some(e) => Evidence {
            diff: match e.opt_obj("diff")? {
                None => None,
                Some(d) => Some(Diff {
                    offset: d.uint("offset")?,
                    expected_len: d.uint("expected_len")?,
                    actual_len: d.uint("actual_len")?,
                    window_start: d.uint("window_start")?,
                    expected_hex: d.str("expected_hex")?,
                    actual_hex: d.str("actual_hex")?,
                }),
            },
            notes: e.opt_strings("notes")?.unwrap_or_default(),
            exchanges: match e.opt_array("exchanges")? {
                None => Vec::new(),
                Some(xs) => xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let x = Obj::at(x, format!("{}.exchanges[{i}]", e.path))?;
                        Ok(Exchange {
                            request: x.str("request")?,
                            reply: x.opt_str("reply")?,
                        })
                    })
                    .collect::<Result<_, String>>()?,
            },
            stderr: e.opt_str("stderr")?,
            repro: e.opt_str("repro")?,
        },
    };
    Ok(Check {
        id: c.str("id")?,
        status,
        level,
        outcome: c.opt_str("outcome")?,
        reason: c.opt_str("reason")?,
        expected: c.opt_str("expected")?,
        actual: c.opt_str("actual")?,
        evidence,
        known: c.opt_str("known")?,
        duration_ms: c.num("duration_ms")?,
    })
}

/// A JSON object being read, with its path for error messages.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn root(v: &'a Value) -> Result<Obj<'a>, String> {
        match v {
            Value::Object(map) => Ok(Obj {
                map,
                path: String::new(),
            }),
            other => Err(format!("the document is {}, not an object", kind(other))),
        }
    }

    fn at(v: &'a Value, path: String) -> Result<Obj<'a>, String> {
        match v {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(format!("{path}: {}, not an object", kind(other))),
        }
    }

    fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn get(&self, key: &str) -> Result<&'a Value, String> {
        self.map
            .get(key)
            .ok_or_else(|| format!("{}: missing", self.name(key)))
    }

    fn wrong(&self, key: &str, v: &Value, want: &str) -> String {
        format!("{}: {}, not {want}", self.name(key), kind(v))
    }

    fn str(&self, key: &str) -> Result<String, String> {
        let v = self.get(key)?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.wrong(key, v, "a string"))
    }

    fn opt_str(&self, key: &str) -> Result<Option<String>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.str(key).map(Some),
        }
    }

    fn bool(&self, key: &str) -> Result<bool, String> {
        let v = self.get(key)?;
        v.as_bool().ok_or_else(|| self.wrong(key, v, "a boolean"))
    }

    fn uint(&self, key: &str) -> Result<u64, String> {
        let v = self.get(key)?;
        v.as_u64()
            .ok_or_else(|| self.wrong(key, v, "a non-negative integer"))
    }

    fn num(&self, key: &str) -> Result<f64, String> {
        let v = self.get(key)?;
        v.as_f64().ok_or_else(|| self.wrong(key, v, "a number"))
    }

    fn obj(&self, key: &str) -> Result<Obj<'a>, String> {
        Obj::at(self.get(key)?, self.name(key))
    }

    fn opt_obj(&self, key: &str) -> Result<Option<Obj<'a>>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => Obj::at(v, self.name(key)).map(Some),
        }
    }

    fn array(&self, key: &str) -> Result<&'a Vec<Value>, String> {
        let v = self.get(key)?;
        v.as_array().ok_or_else(|| self.wrong(key, v, "an array"))
    }

    fn opt_array(&self, key: &str) -> Result<Option<&'a Vec<Value>>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.array(key).map(Some),
        }
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, String> {
        self.array(key)?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{}[{i}]: {}, not a string", self.name(key), kind(v)))
            })
            .collect()
    }

    fn opt_strings(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.strings(key).map(Some),
        }
    }
}

/// The kind of a JSON value, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `s` safe to print on one line of a terminal: control characters (line
/// breaks and ESC included), bidirectional and invisible format characters
/// and line separators shown as `‹U+XXXX›`, as referee's text report does.
pub(crate) fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let hidden = c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}');
        if hidden {
            out.push_str(&format!("\u{2039}U+{:04X}\u{203A}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The longest value [`Check::evidence_lines`] shows, in bytes.
pub const SHOWN_BYTES: usize = 400;

/// `s` cut to [`SHOWN_BYTES`] at a character boundary, saying how long it was.
fn clip(s: &str) -> std::borrow::Cow<'_, str> {
    if s.len() <= SHOWN_BYTES {
        return s.into();
    }
    let mut end = SHOWN_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &s[..end], s.len()).into()
}
