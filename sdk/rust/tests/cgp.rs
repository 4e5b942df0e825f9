//! run_conformance against referee's own Context Graph provider
//! (`referee serve cgp`), honest and in broken modes, over stdio and HTTP.
//! The binary is REFEREE_BIN, else `referee` on PATH (scripts/test.sh builds
//! one). Each expectation is read from docs/suites/cgp.md, not from a run.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use referee::harness::{write_results, Args};
use referee::{
    find_binary, run_conformance, run_conformance_with, CheckStatus, ConformanceReport, Level,
    ProviderTarget, RunOptions,
};

/// The fourteen checks, in the order docs/suites/cgp.md runs them.
const CHECKS: [&str; 14] = [
    "handshake",
    "consent-scope",
    "frame-validity",
    "verify-honesty",
    "budget-honesty",
    "as-of-temporal",
    "kinds-filter",
    "anchor-relevance",
    "provenance-fixture-consistency",
    "shutdown-clean",
    "malformed-input-tolerance",
    "embedding-fingerprint",
    "correlation",
    "attestation",
];

/// The three checks that each open a fresh stdio connection.
const FRESH: [&str; 3] = [
    "malformed-input-tolerance",
    "embedding-fingerprint",
    "correlation",
];

fn referee() -> String {
    match find_binary() {
        Ok(p) => p.to_string_lossy().into_owned(),
        Err(e) => panic!("these tests run the referee binary: {e}"),
    }
}

fn provider(mode: Option<&str>) -> ProviderTarget {
    let mut args = vec!["serve".to_string(), "cgp".to_string()];
    if let Some(m) = mode {
        args.extend(["--mode".to_string(), m.to_string()]);
    }
    ProviderTarget::Stdio {
        program: referee(),
        args,
    }
}

/// Every check's status, and that the report names the checks in order.
fn statuses(r: &ConformanceReport) -> BTreeMap<&str, CheckStatus> {
    let names: Vec<&str> = r.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, CHECKS, "{r}");
    r.checks
        .iter()
        .map(|c| (c.name.as_str(), c.status))
        .collect()
}

/// `status` for the named checks and `rest` for every other.
fn expect(
    named: &[(&'static str, CheckStatus)],
    rest: CheckStatus,
) -> BTreeMap<&'static str, CheckStatus> {
    CHECKS
        .iter()
        .map(|c| {
            (
                *c,
                named.iter().find(|(n, _)| n == c).map_or(rest, |(_, s)| *s),
            )
        })
        .collect()
}

#[test]
fn the_honest_provider_passes_every_check() {
    let r = run_conformance(provider(None));
    assert!(r.passed(), "{r}");
    assert_eq!(statuses(&r), expect(&[], CheckStatus::Pass), "{r}");
    assert_eq!(r.target, format!("stdio: {} serve cgp", referee()));
    for c in &r.checks {
        let want = if c.name == "embedding-fingerprint" {
            Level::Should
        } else {
            Level::Must
        };
        assert_eq!(c.level, want, "{}", c.name);
        assert!(!c.evidence.is_empty(), "{} has no evidence", c.name);
    }
    assert_eq!(r.tally(), (14, 0, 0));
    let full = r.report.as_ref().expect("referee's report");
    assert!(full.conformant && full.complete);
    assert_eq!(full.exit_code, Some(0));
    assert_eq!(full.implementation.transport, "stdio");
}

#[test]
fn each_broken_mode_fails_the_checks_its_rule_governs() {
    use CheckStatus::*;
    // (mode, the checks it changes, what every other check is, passed()).
    type Case = (
        &'static str,
        &'static [(&'static str, CheckStatus)],
        CheckStatus,
        bool,
    );
    let cases: [Case; 7] = [
        // §F1: one frame scored 1.5.
        ("bad-score", &[("frame-validity", Fail)], Pass, false),
        // §B3: every token_cost 1.
        ("lying-costs", &[("budget-honesty", Fail)], Pass, false),
        // §C5: an off-machine scope with egress false.
        ("scope-lie", &[("consent-scope", Fail)], Pass, false),
        // §H4, on its own fresh connection.
        ("drop-correlation-id", &[("correlation", Fail)], Pass, false),
        // §V2: mutated digests verified valid.
        (
            "rubber-stamp-verify",
            &[("verify-honesty", Fail)],
            Pass,
            false,
        ),
        // §E1 is a should: answering a wrong-sized embedding is a warning,
        // and the provider is still conformant.
        (
            "accept-bad-embedding",
            &[("embedding-fingerprint", Warn)],
            Pass,
            true,
        ),
        // §H3: the handshake fails, the nine checks of the main connection
        // and attestation cannot run, malformed-input-tolerance fails on its
        // fresh connection and the other two fresh ones are not checked.
        (
            "bad-version",
            &[("handshake", Fail), ("malformed-input-tolerance", Fail)],
            Skipped,
            false,
        ),
    ];
    for (mode, named, rest, passed) in cases {
        let r = run_conformance(provider(Some(mode)));
        assert_eq!(statuses(&r), expect(named, rest), "mode {mode}:\n{r}");
        assert_eq!(r.passed(), passed, "mode {mode}:\n{r}");
        let full = r.report.as_ref().unwrap();
        assert_eq!(
            full.conformant, passed,
            "mode {mode}: referee's own verdict"
        );
        assert_eq!(
            full.exit_code,
            Some(if passed { 0 } else { 1 }),
            "mode {mode}"
        );
        for c in r.failures() {
            assert!(
                !c.evidence.is_empty(),
                "mode {mode}: {} fails with no evidence",
                c.name
            );
        }
    }
}

#[test]
fn strict_turns_a_failed_should_into_a_failure() {
    let opts = RunOptions {
        strict: true,
        ..RunOptions::default()
    };
    let r = run_conformance_with(provider(Some("accept-bad-embedding")), &opts);
    assert_eq!(
        r.check("embedding-fingerprint").unwrap().status,
        CheckStatus::Fail,
        "{r}"
    );
    assert!(!r.passed(), "{r}");
    assert_eq!(r.tally(), (13, 1, 0));
}

#[test]
fn a_provider_that_cannot_start_is_an_error_in_every_check() {
    let r = run_conformance(ProviderTarget::Stdio {
        program: "/nonexistent/cgp-provider".into(),
        args: vec!["--stdio".into()],
    });
    assert_eq!(statuses(&r), expect(&[], CheckStatus::Error), "{r}");
    assert!(!r.passed());
    let full = r.report.as_ref().unwrap();
    assert!(!full.complete);
    assert_eq!(full.exit_code, Some(3));
    assert!(
        r.checks[0]
            .evidence
            .starts_with("not run: the implementation could not be started"),
        "{r}"
    );
    assert_eq!(r.target, "stdio: /nonexistent/cgp-provider --stdio");
}

/// `referee serve cgp --http 127.0.0.1:0`, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_http_provider_is_tested_without_the_stdio_checks() {
    let mut child = Command::new(referee())
        .args(["serve", "cgp", "--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("referee serve cgp --http");
    // It says where it listens once it does: "... on http://127.0.0.1:PORT/".
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let server = Server(child);
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line:?}");

    let r = run_conformance(ProviderTarget::Http { url: url.clone() });
    let skipped: Vec<_> = FRESH.iter().map(|c| (*c, CheckStatus::Skipped)).collect();
    assert_eq!(statuses(&r), expect(&skipped, CheckStatus::Pass), "{r}");
    assert!(r.passed(), "{r}");
    assert_eq!(r.target, format!("http: {url}"));
    assert_eq!(
        r.report.as_ref().unwrap().implementation.url.as_deref(),
        Some(url.as_str())
    );
    // --strict refuses the skipped checks: referee and passed() agree.
    let strict = RunOptions {
        strict: true,
        ..RunOptions::default()
    };
    let r = run_conformance_with(ProviderTarget::Http { url }, &strict);
    assert!(!r.passed() && !r.report.as_ref().unwrap().conformant, "{r}");
    drop(server);
}

#[test]
fn the_harness_prints_a_line_per_cgp_check() {
    let r = run_conformance(provider(Some("bad-score")));
    let report = r.into_report().report.expect("a report");
    let mut out = Vec::new();
    let s = write_results(&report, &Args::default(), Duration::from_secs(1), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("\ntest cgp/handshake ... ok\n"), "{out}");
    assert!(
        out.contains("\ntest cgp/frame-validity ... FAILED\n"),
        "{out}"
    );
    assert!(out.contains("---- cgp/frame-validity ----\nmust check failed:\n    frame[0] score 1.5 is outside [0,1] (§F1)\n"), "{out}");
    assert!(
        out.contains("\nfailures:\n    cgp/frame-validity\n"),
        "{out}"
    );
    assert_eq!((s.passed, s.failed, s.ignored), (13, 1, 0));
    assert!(!s.ok());
}

#[test]
fn list_checks_names_the_suite_without_running_it() {
    let listed = referee::list_checks("cgp", &RunOptions::default()).expect("referee list cgp");
    let ids: Vec<String> = CHECKS.iter().map(|c| format!("cgp/{c}")).collect();
    assert_eq!(
        listed.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
        ids
    );
    for (id, level) in &listed {
        let want = if id == "cgp/embedding-fingerprint" {
            Level::Should
        } else {
            Level::Must
        };
        assert_eq!(*level, want, "{id}");
    }
    match referee::list_checks("no-such-suite", &RunOptions::default()) {
        Err(
            e @ referee::Error::NoReport {
                status: Some(2), ..
            },
        ) => {
            assert!(e.to_string().contains("no-such-suite"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_usage_error_is_an_error_with_referees_message() {
    let opts = RunOptions {
        run: vec!["cgp/no-such-check".into()],
        ..RunOptions::default()
    };
    match referee::try_run_conformance_with(provider(None), &opts) {
        Err(
            e @ referee::Error::NoReport {
                status: Some(2), ..
            },
        ) => {
            assert!(e.to_string().contains("no-such-check"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

/// The seed's own example, word for word but the import: an async function
/// that awaits run_conformance, loops over report.checks and asserts
/// passed(). It is driven here by polling once: referee has already run.
#[test]
fn the_seeds_async_example_compiles_and_runs_unchanged() {
    use std::future::Future;
    async fn run() -> Result<(), Box<dyn std::error::Error>> {
        let report = run_conformance(ProviderTarget::Stdio {
            program: referee(),
            args: vec!["serve".into(), "cgp".into()],
        })
        .await;

        for check in &report.checks {
            println!("{}: {:?} — {}", check.name, check.status, check.evidence);
        }
        assert!(report.passed(), "not Context Graph Protocol conformant");
        Ok(())
    }
    let mut fut = std::pin::pin!(run());
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(r) => r.expect("the seed's example"),
        std::task::Poll::Pending => panic!("run_conformance(..).await did not complete at once"),
    }
}
