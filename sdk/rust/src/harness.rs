//! One test per check under `cargo test`: the `main` of a test target with
//! `harness = false`, printing libtest's lines (`test ID ... ok`) and
//! exiting non-zero when a check blocks conformance.
//!
//! ```toml
//! [[test]]
//! name = "conformance"
//! harness = false
//! ```
//!
//! ```no_run
//! // tests/conformance.rs
//! fn main() -> std::process::ExitCode {
//!     referee::harness::cgp_main(referee::ProviderTarget::Stdio {
//!         program: "my-contextgraph-provider".into(),
//!         args: vec![],
//!     })
//! }
//! ```
//!
//! A check's line: `ok` for a pass, and for a failed `should` check (a
//! warning, listed again under `warnings:` with its reason); `FAILED` for a
//! failed `must` or `may` check and for an error, with referee's evidence
//! under `failures:`; `ignored, REASON` for a not-checked one. Arguments work
//! as libtest's do: `cargo test --test conformance -- frame` shows only the
//! checks whose ID contains `frame` (`--exact` for the whole ID, `--skip` to
//! leave some out, `--list` to list them without running anything).

use std::ffi::OsStr;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::cgp::ProviderTarget;
use crate::report::{printable, CheckStatus, Report};
use crate::run::{list_checks, run_suite, RunOptions};
use crate::Error;

/// The arguments of a test binary that this harness honours.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args {
    /// Show only the checks whose ID contains one of these (all when empty).
    pub filters: Vec<String>,
    /// Leave out the checks whose ID contains one of these (`--skip`).
    pub skips: Vec<String>,
    /// Match filters and skips against the whole ID (`--exact`).
    pub exact: bool,
    /// List the checks instead of running them (`--list`).
    pub list: bool,
}

impl Args {
    /// The arguments of this process (without its name).
    pub fn from_env() -> Args {
        Args::parse(std::env::args().skip(1))
    }

    /// Reads libtest's arguments: a filter is any word that is not a flag;
    /// `--skip F`, `--exact` and `--list` are honoured; libtest's other flags
    /// (`--test-threads N`, `--nocapture`, `-q`, `--color C`, ...) are accepted
    /// and have no effect.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Args {
        let mut a = Args::default();
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--exact" => a.exact = true,
                "--list" => a.list = true,
                "--skip" => a.skips.extend(it.next()),
                "--test-threads" | "--color" | "--format" | "--logfile" | "-Z"
                | "--shuffle-seed" => {
                    it.next();
                }
                s if s.starts_with('-') => {}
                _ => a.filters.push(arg),
            }
        }
        a
    }

    /// Whether the check `id` is shown.
    pub fn selects(&self, id: &str) -> bool {
        let hit = |pat: &String| {
            if self.exact {
                id == pat
            } else {
                id.contains(pat.as_str())
            }
        };
        (self.filters.is_empty() || self.filters.iter().any(hit)) && !self.skips.iter().any(hit)
    }
}

/// What a harness run showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Checks that passed (warnings included).
    pub passed: usize,
    /// Checks that block conformance: failed `must`/`may` checks and errors.
    pub failed: usize,
    /// Not-checked checks.
    pub ignored: usize,
    /// Failed `should` checks (counted in `passed` too).
    pub warned: usize,
    /// Checks the arguments left out.
    pub filtered_out: usize,
    /// The run was `--strict`: a not-checked check blocks too.
    pub strict: bool,
}

impl Summary {
    /// Whether the test binary should exit 0: nothing blocks (under
    /// `--strict`, no check was ignored either), and, when nothing was
    /// filtered out, at least one check passed (a run that checked nothing is
    /// not conformant).
    pub fn ok(&self) -> bool {
        self.failed == 0
            && (self.passed > 0 || self.filtered_out > 0)
            && !(self.strict && self.ignored > 0)
    }
}

/// The `main` of a `harness = false` test target that runs the cgp suite
/// against `target`, one test line per check.
pub fn cgp_main(target: ProviderTarget) -> ExitCode {
    cgp_main_with(target, &RunOptions::default())
}

/// [`cgp_main`] with more of `referee run`'s flags.
pub fn cgp_main_with(target: ProviderTarget, options: &RunOptions) -> ExitCode {
    match target {
        ProviderTarget::Stdio { program, args } => {
            conformance_main("cgp", std::iter::once(program).chain(args), options)
        }
        ProviderTarget::Http { url } => {
            let mut o = options.clone();
            o.url = Some(url);
            conformance_main("cgp", std::iter::empty::<&str>(), &o)
        }
    }
}

/// The `main` of a `harness = false` test target that runs `suite` against
/// `command` (as [`run_suite`] does), one test line per check, honouring the
/// process's libtest arguments.
pub fn conformance_main<I, S>(suite: &str, command: I, options: &RunOptions) -> ExitCode
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args = Args::from_env();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let ok = if args.list {
        list(&args, list_checks(suite, options), &mut out)
    } else {
        let start = Instant::now();
        let result = run_suite(suite, command, options);
        match result {
            Ok(report) => write_results(&report, &args, start.elapsed(), &mut out).map(|s| s.ok()),
            Err(e) => {
                let _ = writeln!(out, "\nrunning {suite}: error: {e}\n");
                Ok(false)
            }
        }
    };
    match ok {
        Ok(true) => ExitCode::SUCCESS,
        _ => ExitCode::from(101),
    }
}

fn list(
    args: &Args,
    checks: Result<Vec<(String, crate::Level)>, Error>,
    out: &mut dyn Write,
) -> io::Result<bool> {
    match checks {
        Ok(checks) => {
            let shown: Vec<&String> = checks
                .iter()
                .map(|(id, _)| id)
                .filter(|id| args.selects(id))
                .collect();
            for id in &shown {
                writeln!(out, "{id}: test")?;
            }
            writeln!(out, "\n{} tests, 0 benchmarks", shown.len())?;
            Ok(true)
        }
        Err(e) => {
            writeln!(out, "error: {e}")?;
            Ok(false)
        }
    }
}

/// Writes libtest's report of `report`'s checks that `args` selects: one
/// line per check, the warnings, the failures with their evidence, and the
/// `test result:` line.
pub fn write_results(
    report: &Report,
    args: &Args,
    elapsed: Duration,
    out: &mut dyn Write,
) -> io::Result<Summary> {
    let mut s = Summary {
        strict: report.strict,
        ..Summary::default()
    };
    let shown: Vec<_> = report
        .verdicts()
        .filter(|(c, _)| args.selects(&c.id))
        .collect();
    s.filtered_out = report.checks.len() - shown.len();
    writeln!(out, "\nrunning {} tests", shown.len())?;
    let mut failures = Vec::new();
    let mut warnings = Vec::new();
    for &(c, v) in &shown {
        match v {
            CheckStatus::Pass => {
                s.passed += 1;
                writeln!(out, "test {} ... ok", c.id)?;
            }
            CheckStatus::Warn => {
                s.passed += 1;
                s.warned += 1;
                warnings.push(c);
                writeln!(out, "test {} ... ok", c.id)?;
            }
            CheckStatus::Skipped => {
                s.ignored += 1;
                match &c.reason {
                    Some(r) => writeln!(out, "test {} ... ignored, {}", c.id, printable(r))?,
                    None => writeln!(out, "test {} ... ignored", c.id)?,
                }
            }
            _ => {
                s.failed += 1;
                failures.push((c, v));
                writeln!(out, "test {} ... FAILED", c.id)?;
            }
        }
    }
    if !warnings.is_empty() {
        writeln!(
            out,
            "\nwarnings (failed should checks, which do not block conformance):"
        )?;
        for c in &warnings {
            writeln!(
                out,
                "    {}: {}",
                c.id,
                printable(c.reason.as_deref().unwrap_or(""))
            )?;
        }
    }
    if !failures.is_empty() {
        writeln!(out, "\nfailures:")?;
        for (c, v) in &failures {
            let what = if *v == CheckStatus::Error {
                "error"
            } else {
                "failed"
            };
            writeln!(out, "\n---- {} ----", c.id)?;
            writeln!(out, "{} check {what}:", c.level.as_str())?;
            for line in c.evidence_lines() {
                writeln!(out, "    {line}")?;
            }
        }
        writeln!(out, "\nfailures:")?;
        for (c, _) in &failures {
            writeln!(out, "    {}", c.id)?;
        }
    }
    if s.strict && s.ignored > 0 {
        writeln!(
            out,
            "\n{} not-checked checks block conformance under --strict",
            s.ignored
        )?;
    } else if s.failed == 0 && !s.ok() {
        writeln!(
            out,
            "\nno check passed: referee's verdict is not conformant"
        )?;
    }
    writeln!(
        out,
        "\ntest result: {}. {} passed; {} failed; {} ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
        if s.ok() { "ok" } else { "FAILED" },
        s.passed,
        s.failed,
        s.ignored,
        s.filtered_out,
        elapsed.as_secs_f64()
    )?;
    Ok(s)
}
