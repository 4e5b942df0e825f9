//! Running any suite: `referee run SUITE --format json`, read into a [`Report`].

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::binary::{find_binary, version_of};
use crate::report::{Level, Report};
use crate::Error;

/// How to run a suite: the flags of `referee run` this crate passes on.
/// `Default` runs the suite's embedded corpus with referee's defaults.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Reach the implementation over HTTP (`--url`) instead of a command.
    pub url: Option<String>,
    /// Run another corpus (`--corpus DIR`).
    pub corpus: Option<PathBuf>,
    /// Select checks by ID pattern (`--run`, repeatable).
    pub run: Vec<String>,
    /// Leave checks out by ID pattern (`--skip`, repeatable).
    pub skip: Vec<String>,
    /// The per-call timeout (`--timeout`; referee's default is 10 s). The cgp
    /// suite has fixed timeouts and refuses this flag.
    pub timeout: Option<Duration>,
    /// `--strict`: a not-checked check or a failed `should` check blocks.
    pub strict: bool,
    /// Run referee's built-in implementation in a broken mode (`--mode`);
    /// only with no command and no URL.
    pub mode: Option<String>,
    /// Variables for the implementation's environment (`--env K=V`).
    pub env: Vec<(String, String)>,
    /// Start the implementation with only `PATH`, `HOME` and `env` (`--clean-env`).
    pub clean_env: bool,
    /// The implementation's working directory (`--dir`).
    pub dir: Option<PathBuf>,
    /// Any other flags of `referee run`, passed as they are, before `--`.
    pub args: Vec<OsString>,
    /// The referee binary to run, instead of `REFEREE_BIN` or `PATH`.
    pub referee: Option<PathBuf>,
}

impl RunOptions {
    /// The binary these options run: `referee`, else [`find_binary`].
    pub fn binary(&self) -> Result<PathBuf, Error> {
        match &self.referee {
            Some(p) => Ok(p.clone()),
            None => find_binary(),
        }
    }

    /// The arguments of `referee run SUITE ...` for this command, without the
    /// binary itself.
    pub fn argv<I, S>(&self, suite: &str, command: I) -> Vec<OsString>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut a: Vec<OsString> =
            vec!["run".into(), suite.into(), "--format".into(), "json".into()];
        let mut flag = |name: &str, value: OsString| {
            a.push(name.into());
            a.push(value);
        };
        if let Some(c) = &self.corpus {
            flag("--corpus", c.into());
        }
        for p in &self.run {
            flag("--run", p.into());
        }
        for p in &self.skip {
            flag("--skip", p.into());
        }
        if let Some(t) = self.timeout {
            flag("--timeout", format!("{}ms", t.as_millis().max(1)).into());
        }
        if let Some(m) = &self.mode {
            flag("--mode", m.into());
        }
        for (k, v) in &self.env {
            flag("--env", format!("{k}={v}").into());
        }
        if let Some(d) = &self.dir {
            flag("--dir", d.into());
        }
        if let Some(u) = &self.url {
            flag("--url", u.into());
        }
        if self.strict {
            a.push("--strict".into());
        }
        if self.clean_env {
            a.push("--clean-env".into());
        }
        a.extend(self.args.iter().cloned());
        let command: Vec<OsString> = command
            .into_iter()
            .map(|s| s.as_ref().to_os_string())
            .collect();
        if !command.is_empty() {
            a.push("--".into());
            a.extend(command);
        }
        a
    }
}

/// Runs `suite` against an implementation and returns referee's report.
///
/// `command` is the implementation's argv (`["node", "adapter.mjs"]`), run
/// by referee with no shell; empty runs the URL in `options.url`, or referee's
/// own implementation of the suite. Failing checks are not an error: they are
/// in the report (`conformant`, [`Report::failures`]). An error means there is
/// no report to read: no binary, a usage error (exit 2, with referee's
/// message), or a report this crate cannot parse (naming referee's version).
pub fn run_suite<I, S>(suite: &str, command: I, options: &RunOptions) -> Result<Report, Error>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    if suite.is_empty() {
        return Err(Error::Usage("run_suite: the suite name is empty".into()));
    }
    let bin = options.binary()?;
    let argv = options.argv(suite, command);
    let out = output(&bin, &argv)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if stdout.trim().is_empty() {
        return Err(Error::NoReport {
            command: shown(&bin, &argv),
            status: out.status.code(),
            stderr: tail(&stderr, 4096),
        });
    }
    let mut report = Report::parse(&stdout).map_err(|reason| Error::BadReport {
        referee_version: version_of(&bin),
        reason,
    })?;
    report.exit_code = out.status.code();
    report.stderr = stderr;
    Ok(report)
}

/// The checks of `suite` as `referee list SUITE` gives them (with
/// `options.corpus`), each with its level, in the suite's order, without
/// running anything.
pub fn list_checks(suite: &str, options: &RunOptions) -> Result<Vec<(String, Level)>, Error> {
    let bin = options.binary()?;
    let mut argv: Vec<OsString> = vec!["list".into(), suite.into()];
    if let Some(c) = &options.corpus {
        argv.push("--corpus".into());
        argv.push(c.into());
    }
    let out = output(&bin, &argv)?;
    if !out.status.success() {
        return Err(Error::NoReport {
            command: shown(&bin, &argv),
            status: out.status.code(),
            stderr: tail(&String::from_utf8_lossy(&out.stderr), 4096),
        });
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut checks = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
        let mut parts = line.split('\t');
        let (id, level) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let level = match level {
            "must" => Level::Must,
            "should" => Level::Should,
            "may" => Level::May,
            _ => {
                return Err(Error::BadReport {
                    referee_version: version_of(&bin),
                    reason: format!(
                        "`referee list {suite}` line {}: {line:?} is not ID, tab, level",
                        n + 1
                    ),
                })
            }
        };
        checks.push((id.to_string(), level));
    }
    Ok(checks)
}

fn output(bin: &Path, argv: &[OsString]) -> Result<Output, Error> {
    Command::new(bin)
        .args(argv)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| Error::Spawn {
            program: bin.to_path_buf(),
            source,
        })
}

/// A command line for messages, each word quoted when it needs it.
pub(crate) fn shown(bin: &Path, argv: &[OsString]) -> String {
    std::iter::once(bin.as_os_str())
        .chain(argv.iter().map(OsString::as_os_str))
        .map(|w| {
            let w = w.to_string_lossy();
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
            {
                w.into_owned()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last `max` bytes of `s`, cut at a character boundary.
fn tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    format!("...{}", &s[start..])
}
