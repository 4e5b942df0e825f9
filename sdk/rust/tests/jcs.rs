//! run_suite of the jcs suite against the two example adapters written with
//! `serve`: examples/jcs_adapter.rs (honest, canonicalJson only) and
//! examples/naive_jcs_adapter.rs (serde_json::to_string). `cargo test` builds
//! both. The expected verdicts come from RFC 8785, docs/suites/jcs.md and
//! serde_json's documented behaviour, not from a run.

use std::path::PathBuf;

use referee::harness::{write_results, Args};
use referee::{run_suite, CheckStatus, Level, Report, RunOptions, Status};

/// The example's binary, beside this test's own: target/<profile>/examples/NAME.
fn example(name: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let p: PathBuf = dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        p.is_file(),
        "{} is not built: `cargo test` builds the examples (or `cargo build --examples`)",
        p.display()
    );
    p.to_string_lossy().into_owned()
}

fn run(name: &str) -> Report {
    match run_suite("jcs", [example(name)], &RunOptions::default()) {
        Ok(r) => r,
        Err(e) => panic!("referee run jcs -- {name}: {e}"),
    }
}

fn check<'a>(r: &'a Report, id: &str) -> &'a referee::Check {
    r.checks
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no check {id}"))
}

#[test]
fn the_honest_adapter_conforms_with_its_one_op() {
    let r = run("jcs_adapter");
    assert_eq!(r.suite.name, "jcs");
    assert_eq!(r.implementation.name, "rust-jcs-example");
    assert_eq!(r.implementation.ops, ["canonicalJson"]);
    let bad: Vec<String> = r
        .verdicts()
        .filter(|(_, v)| !matches!(v, CheckStatus::Pass | CheckStatus::Skipped))
        .map(|(c, v)| format!("{} {v}: {}", c.id, c.reason.as_deref().unwrap_or("")))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    // Input that is not UTF-8 goes to canonicalJsonBytes, which it does not
    // offer: those checks, and only those, are not checked.
    for c in &r.checks {
        let bytes_op = c.id.starts_with("jcs/utf8/");
        assert_eq!(
            c.status == Status::NotChecked,
            bytes_op,
            "{}: {:?}",
            c.id,
            c.status
        );
        if bytes_op {
            assert!(
                c.reason
                    .as_deref()
                    .unwrap_or("")
                    .contains("canonicalJsonBytes"),
                "{}",
                c.id
            );
        }
    }
    assert!(
        r.counts.not_checked > 0 && r.counts.pass > 500,
        "{:?}",
        r.counts
    );
    assert!(r.conformant && r.complete);
    assert_eq!(r.exit_code, Some(0));
    // A may check it rejects is recorded as such: nesting deeper than
    // serde_json's 128 levels.
    assert_eq!(
        check(&r, "jcs/nesting/arrays-1000").outcome.as_deref(),
        Some("rejected")
    );
}

#[test]
fn the_naive_adapter_fails_where_serde_json_differs_from_rfc_8785() {
    let r = run("naive_jcs_adapter");
    use CheckStatus::*;
    let cases = [
        // serde_json writes the double 0.0 as "0.0", 1e6 as "1000000.0".
        (
            "jcs/numbers/zero-fraction",
            Level::Must,
            Fail,
            "[0]",
            Some("[0.0]"),
        ),
        (
            "jcs/numbers/million",
            Level::Must,
            Fail,
            "[1000000]",
            Some("[1000000.0]"),
        ),
        // 1e21 is 2^53 or more, a may check: a wrong text still fails.
        (
            "jcs/numbers/1e21",
            Level::May,
            Fail,
            "[1e+21]",
            Some("[1e21]"),
        ),
        // Value's map orders keys by code point, not UTF-16 code units.
        (
            "jcs/keys/utf16-vs-codepoint",
            Level::Must,
            Fail,
            "{\"😂\":2,\"\u{fb33}\":1}",
            Some("{\"\u{fb33}\":1,\"😂\":2}"),
        ),
        // Last duplicate wins: accepted where RFC 8785 should refuse, a warning.
        ("jcs/rejects/duplicate-key", Level::Should, Warn, "", None),
        // serde_json refuses lone surrogates and numbers beyond double range.
        (
            "jcs/rejects/lone-high-surrogate",
            Level::Must,
            Pass,
            "",
            None,
        ),
        ("jcs/rejects/overflow", Level::Must, Pass, "", None),
        // Strings are escaped as JSON.stringify does.
        ("jcs/strings/other-controls", Level::Must, Pass, "", None),
    ];
    for (id, level, verdict, expected, actual) in cases {
        let c = check(&r, id);
        assert_eq!(
            (c.level, c.verdict(r.strict)),
            (level, verdict),
            "{id}: {:?}",
            c.reason
        );
        if let Some(actual) = actual {
            assert_eq!(c.expected.as_deref(), Some(expected), "{id}");
            assert_eq!(c.actual.as_deref(), Some(actual), "{id}");
            let diff = c.evidence.diff.as_ref().expect("a diff");
            let first = expected
                .bytes()
                .zip(actual.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            assert_eq!(diff.offset as usize, first, "{id}");
            assert!(
                c.evidence
                    .repro
                    .as_deref()
                    .unwrap_or("")
                    .contains("naive_jcs_adapter"),
                "{id}"
            );
        }
    }
    assert!(!r.conformant);
    assert_eq!(r.exit_code, Some(1));
    assert!(r.counts.warn >= 1 && r.counts.fail >= 4, "{:?}", r.counts);
}

#[test]
fn the_harness_shows_a_filtered_run_of_the_naive_adapter() {
    let r = run("naive_jcs_adapter");
    let args = Args::parse([
        "jcs/keys/utf16-vs".to_string(),
        "jcs/rejects/duplicate-key".to_string(),
        "--exact".to_string(),
    ]);
    // --exact: only the second filter names a whole ID.
    let mut out = Vec::new();
    let s = write_results(&r, &args, std::time::Duration::ZERO, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("\nrunning 1 tests\ntest jcs/rejects/duplicate-key ... ok\n"),
        "{out}"
    );
    assert!(s.ok() && s.warned == 1, "{out}");

    let args = Args::parse(["jcs/keys/utf16-vs".to_string()]);
    let mut out = Vec::new();
    let s = write_results(&r, &args, std::time::Duration::ZERO, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("test jcs/keys/utf16-vs-codepoint ... FAILED"),
        "{out}"
    );
    assert!(
        out.contains(
            "    expected: {\"😂\":2,\"\u{fb33}\":1}\n    actual:   {\"\u{fb33}\":1,\"😂\":2}\n"
        ),
        "{out}"
    );
    assert!(!s.ok());
}
