//! The Context Graph Protocol seed's API (`contextgraph-conformance`):
//! [`run_conformance`] of a [`ProviderTarget`] into a [`ConformanceReport`],
//! run by referee's `cgp` suite.

use std::fmt;

use crate::report::{printable, CheckStatus, Level, Report};
use crate::run::{run_suite, RunOptions};
use crate::Error;

/// A Context Graph provider to test, as it ships: no adapter around it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProviderTarget {
    /// A program speaking NDJSON on stdio, started without a shell.
    Stdio {
        /// The program: a path, or a name looked up on `PATH`.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A provider served over HTTP: the URL referee POSTs envelopes to
    /// (`http://` only to loopback).
    Http {
        /// The provider's endpoint.
        url: String,
    },
}

impl fmt::Display for ProviderTarget {
    /// The seed's target string: `stdio: <program> <args…>` or `http: <url>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderTarget::Stdio { program, args } => {
                write!(f, "stdio: {program}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                Ok(())
            }
            ProviderTarget::Http { url } => write!(f, "http: {url}"),
        }
    }
}

/// One check's verdict, in the seed's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// The check's name without the suite: `handshake`, `frame-validity`, ...
    pub name: String,
    /// Its verdict: see [`CheckStatus`] for how referee's statuses and levels map.
    pub status: CheckStatus,
    /// One line: what passed, or why not (referee's `reason`).
    pub evidence: String,
    /// How strongly the protocol demands it (every cgp check is a `must` but
    /// `embedding-fingerprint`).
    pub level: Level,
}

/// The verdicts of one run of the cgp suite, in the seed's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ConformanceReport {
    /// `stdio: <program> <args…>` or `http: <url>`.
    pub target: String,
    /// One result per check, in the suite's order.
    pub checks: Vec<CheckResult>,
    /// referee's whole report (diffs, exchanges, stderr, repro lines), or
    /// `None` when referee could not be run (then `checks` holds one `Error`
    /// result, named `referee`, saying why).
    pub report: Option<Report>,
}

impl ConformanceReport {
    /// Builds the seed's report from referee's.
    pub fn from_report(target: String, report: Report) -> ConformanceReport {
        let checks = report
            .verdicts()
            .map(|(c, status)| CheckResult {
                name: c.id.strip_prefix("cgp/").unwrap_or(&c.id).to_string(),
                status,
                evidence: c.reason.clone().unwrap_or_default(),
                level: c.level,
            })
            .collect();
        ConformanceReport {
            target,
            checks,
            report: Some(report),
        }
    }

    /// The report of a run that could not happen: one `Error` check, named
    /// `referee`, whose evidence is the error.
    pub fn from_error(target: String, err: &Error) -> ConformanceReport {
        ConformanceReport {
            target,
            checks: vec![CheckResult {
                name: "referee".into(),
                status: CheckStatus::Error,
                evidence: err.to_string(),
                level: Level::Must,
            }],
            report: None,
        }
    }

    /// Conformant: the run was complete, no check failed or ended in error,
    /// and at least one passed. Skipped checks and warnings (failed `should`
    /// checks) do not block, except in a `strict` run, where a skipped check
    /// blocks too (and a failed `should` check is a `Fail`). This is referee's
    /// `conformant` for a run without a baseline.
    pub fn passed(&self) -> bool {
        let (complete, strict) = self
            .report
            .as_ref()
            .map_or((false, false), |r| (r.complete, r.strict));
        complete
            && !self.checks.iter().any(|c| c.status.blocks())
            && self.checks.iter().any(|c| c.status == CheckStatus::Pass)
            && !(strict && self.checks.iter().any(|c| c.status == CheckStatus::Skipped))
    }

    /// The checks that block conformance: `Fail` and `Error`.
    pub fn failures(&self) -> Vec<&CheckResult> {
        self.checks.iter().filter(|c| c.status.blocks()).collect()
    }

    /// `(passed, failed, skipped)`, as the seed counts: a warning counts as
    /// passed, an error as failed.
    pub fn tally(&self) -> (usize, usize, usize) {
        let count = |f: fn(CheckStatus) -> bool| self.checks.iter().filter(|c| f(c.status)).count();
        (
            count(|s| matches!(s, CheckStatus::Pass | CheckStatus::Warn)),
            count(CheckStatus::blocks),
            count(|s| s == CheckStatus::Skipped),
        )
    }

    /// The check named `name` (`handshake`, or its full ID `cgp/handshake`).
    pub fn check(&self, name: &str) -> Option<&CheckResult> {
        let name = name.strip_prefix("cgp/").unwrap_or(name);
        self.checks.iter().find(|c| c.name == name)
    }
}

impl fmt::Display for ConformanceReport {
    /// One line per check (`PASS  name — evidence`), the tally and the verdict;
    /// under each blocking check, referee's evidence.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.target)?;
        for c in &self.checks {
            let tag = match c.status {
                CheckStatus::Pass => "PASS ",
                CheckStatus::Fail => "FAIL ",
                CheckStatus::Warn => "WARN ",
                CheckStatus::Skipped => "SKIP ",
                _ => "ERROR",
            };
            writeln!(f, "{tag} {} — {}", c.name, printable(&c.evidence))?;
            if c.status.blocks() {
                let full = self.report.as_ref().and_then(|r| {
                    r.checks
                        .iter()
                        .find(|k| k.id.strip_prefix("cgp/") == Some(c.name.as_str()))
                });
                if let Some(k) = full {
                    for line in k
                        .evidence_lines()
                        .iter()
                        .skip(usize::from(k.reason.is_some()))
                    {
                        writeln!(f, "      {line}")?;
                    }
                }
            }
        }
        let (p, fl, s) = self.tally();
        write!(
            f,
            "{p} passed, {fl} failed, {s} skipped: {}",
            if self.passed() {
                "CONFORMANT"
            } else {
                "NOT CONFORMANT"
            }
        )
    }
}

/// Runs referee's cgp suite against `target` and returns the verdicts. It
/// never fails: when referee cannot be found or run, or its report cannot be
/// read, the report holds one `Error` check named `referee` saying why, and
/// `passed()` is false. [`try_run_conformance`] returns that as an [`Error`].
///
/// The seed's `run_conformance` is an `async fn`; this one runs referee when
/// it is called (a second or two for a quick provider) and returns a
/// [`Conformance`], which is the report (it dereferences to it) and can also
/// be awaited for it, so the seed's `run_conformance(..).await` compiles and
/// behaves unchanged. From a busy async runtime, call it on a blocking thread.
pub fn run_conformance(target: ProviderTarget) -> Conformance {
    Conformance(run_conformance_with(target, &RunOptions::default()))
}

/// The verdicts [`run_conformance`] returns: the [`ConformanceReport`] itself
/// (through `Deref`, or [`Conformance::into_report`]), and a value that can
/// be `.await`ed for it, as the seed's async `run_conformance` is.
#[derive(Clone, Debug, PartialEq)]
pub struct Conformance(ConformanceReport);

impl Conformance {
    /// The report, by value.
    pub fn into_report(self) -> ConformanceReport {
        self.0
    }
}

impl std::ops::Deref for Conformance {
    type Target = ConformanceReport;
    fn deref(&self) -> &ConformanceReport {
        &self.0
    }
}

impl From<Conformance> for ConformanceReport {
    fn from(c: Conformance) -> ConformanceReport {
        c.0
    }
}

impl fmt::Display for Conformance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::future::IntoFuture for Conformance {
    type Output = ConformanceReport;
    type IntoFuture = std::future::Ready<ConformanceReport>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(self.0)
    }
}

/// [`run_conformance`] with more of `referee run`'s flags (`--run`, `--env`,
/// a token variable through `args`, ...).
pub fn run_conformance_with(target: ProviderTarget, options: &RunOptions) -> ConformanceReport {
    let name = target.to_string();
    match try_run_conformance_with(target, options) {
        Ok(r) => r,
        Err(e) => ConformanceReport::from_error(name, &e),
    }
}

/// [`run_conformance`], with referee's failures to run as an [`Error`].
pub fn try_run_conformance(target: ProviderTarget) -> Result<ConformanceReport, Error> {
    try_run_conformance_with(target, &RunOptions::default())
}

/// [`run_conformance_with`], with referee's failures to run as an [`Error`].
pub fn try_run_conformance_with(
    target: ProviderTarget,
    options: &RunOptions,
) -> Result<ConformanceReport, Error> {
    let name = target.to_string();
    let report = match target {
        ProviderTarget::Stdio { program, args } => {
            let command = std::iter::once(program).chain(args);
            run_suite("cgp", command, options)?
        }
        ProviderTarget::Http { url } => {
            let mut o = options.clone();
            o.url = Some(url);
            run_suite("cgp", std::iter::empty::<&str>(), &o)?
        }
    };
    if report.suite.name != "cgp" {
        return Err(Error::BadReport {
            referee_version: report.tool.version.clone(),
            reason: format!("the report is of suite {:?}, not cgp", report.suite.name),
        });
    }
    Ok(ConformanceReport::from_report(name, report))
}
