//! Reading referee-report/2 by hand-written documents: every status and
//! level, their verdicts, the seed's report and the harness lines built on
//! them, and malformed reports. No referee binary is needed.

use std::time::Duration;

use referee::harness::{write_results, Args};
use referee::{CheckStatus, ConformanceReport, Level, Report, Status};
use serde_json::{json, Value};

/// A jcs report with one check of each status and level.
fn every_status() -> Value {
    json!({
      "format": "referee-report/2",
      "tool": {"name": "referee", "version": "0.1.0-dev (0123456789ab)"},
      "suite": {"name": "jcs", "version": "1.0.0", "corpus": "embedded:jcs", "corpus_digest": "sha256:fc8e"},
      "implementation": {"name": "my-jcs", "version": "1.2.0", "ops": ["canonicalJson"], "transport": "stdio", "command": ["my-jcs", "--adapter"]},
      "started": "2026-12-01T19:52:25Z",
      "duration_ms": 12,
      "complete": true,
      "strict": false,
      "conformant": false,
      "restarts": 1,
      "counts": {"pass": 2, "fail": 2, "warn": 1, "not_checked": 1, "error": 1},
      "checks": [
        {"id": "jcs/numbers/zero-fraction", "status": "pass", "level": "must", "duration_ms": 0.1},
        {"id": "jcs/nesting/arrays-1000", "status": "pass", "level": "may", "outcome": "rejected", "duration_ms": 0.2},
        {"id": "jcs/keys/utf16-vs-codepoint", "status": "fail", "level": "must",
         "reason": "canonical text differs at byte 2",
         "expected": "{\"😂\":2,\"\u{fb33}\":1}", "actual": "{\"\u{fb33}\":1,\"😂\":2}",
         "evidence": {
           "diff": {"offset": 2, "expected_len": 18, "actual_len": 18, "window_start": 0,
                    "expected_hex": "7b22f09f", "actual_hex": "7b22efac"},
           "notes": ["first note", "a line\nbreak and \u{1b}[31mESC"],
           "exchanges": [{"request": "{\"id\":1}", "reply": "{\"id\":1,\"ok\":\"x\"}"}, {"request": "{\"id\":2}"}],
           "stderr": "one\ntwo\n",
           "repro": "printf ... | my-jcs --adapter"},
         "duration_ms": 0.3},
        {"id": "jcs/numbers/1e21", "status": "fail", "level": "may", "reason": "canonical text differs at byte 3",
         "expected": "[1e+21]", "actual": "[1e21]", "evidence": {}, "duration_ms": 0.4},
        {"id": "jcs/rejects/duplicate-key", "status": "fail", "level": "should",
         "reason": "accepted duplicate member names, which should be rejected",
         "expected": "err (a rejection)", "actual": "{\"a\":2}", "evidence": {}, "duration_ms": 0.5},
        {"id": "jcs/utf8/latin-1", "status": "not-checked", "level": "must",
         "reason": "adapter offers no canonicalJsonBytes", "duration_ms": 0},
        {"id": "jcs/scale/long-string", "status": "error", "level": "must",
         "reason": "adapter timeout: no reply to canonicalJson (id 9) in time (limit 10s, --timeout)",
         "evidence": {"exchanges": [{"request": "{\"id\":9}"}]}, "duration_ms": 10000.5}
      ]
    })
}

#[test]
fn reads_every_status_and_level() {
    let r = Report::parse(&every_status().to_string()).expect("a valid report");
    assert_eq!(r.format, "referee-report/2");
    assert_eq!(r.tool.version, "0.1.0-dev (0123456789ab)");
    assert_eq!(r.suite.name, "jcs");
    assert_eq!(r.suite.version.as_deref(), Some("1.0.0"));
    assert_eq!(
        r.implementation.command,
        Some(vec!["my-jcs".to_string(), "--adapter".to_string()])
    );
    assert_eq!(r.implementation.url, None);
    assert_eq!(r.restarts, 1);
    assert!(r.complete && !r.conformant && !r.strict);
    assert_eq!(
        (
            r.counts.pass,
            r.counts.fail,
            r.counts.warn,
            r.counts.not_checked,
            r.counts.error
        ),
        (2, 2, 1, 1, 1)
    );

    let got: Vec<(&str, Status, Level)> = r
        .checks
        .iter()
        .map(|c| (c.id.as_str(), c.status, c.level))
        .collect();
    assert_eq!(
        got,
        vec![
            ("jcs/numbers/zero-fraction", Status::Pass, Level::Must),
            ("jcs/nesting/arrays-1000", Status::Pass, Level::May),
            ("jcs/keys/utf16-vs-codepoint", Status::Fail, Level::Must),
            ("jcs/numbers/1e21", Status::Fail, Level::May),
            ("jcs/rejects/duplicate-key", Status::Fail, Level::Should),
            ("jcs/utf8/latin-1", Status::NotChecked, Level::Must),
            ("jcs/scale/long-string", Status::Error, Level::Must),
        ]
    );
    assert_eq!(r.checks[1].outcome.as_deref(), Some("rejected"));
    let fail = &r.checks[2];
    assert_eq!(fail.expected.as_deref(), Some("{\"😂\":2,\"\u{fb33}\":1}"));
    let diff = fail.evidence.diff.as_ref().expect("a diff");
    assert_eq!(
        (diff.offset, diff.expected_len, diff.window_start),
        (2, 18, 0)
    );
    assert_eq!(diff.actual_hex, "7b22efac");
    assert_eq!(fail.evidence.exchanges.len(), 2);
    assert_eq!(fail.evidence.exchanges[1].reply, None);
    assert_eq!(
        fail.evidence.repro.as_deref(),
        Some("printf ... | my-jcs --adapter")
    );
    assert_eq!(r.checks[6].duration_ms, 10000.5);
}

#[test]
fn verdicts_follow_status_level_and_strict() {
    let r = Report::parse(&every_status().to_string()).unwrap();
    let lax: Vec<CheckStatus> = r.checks.iter().map(|c| c.verdict(false)).collect();
    assert_eq!(
        lax,
        vec![
            CheckStatus::Pass,
            CheckStatus::Pass,
            CheckStatus::Fail,
            CheckStatus::Fail,
            CheckStatus::Warn,
            CheckStatus::Skipped,
            CheckStatus::Error,
        ]
    );
    // Under --strict a failed should check blocks; nothing else changes.
    let strict: Vec<CheckStatus> = r.checks.iter().map(|c| c.verdict(true)).collect();
    assert_eq!(strict[4], CheckStatus::Fail);
    assert_eq!([&strict[..4], &strict[5..]], [&lax[..4], &lax[5..]]);
    let failing: Vec<&str> = r.failures().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        failing,
        [
            "jcs/keys/utf16-vs-codepoint",
            "jcs/numbers/1e21",
            "jcs/scale/long-string"
        ]
    );
}

fn run_harness(r: &Report, args: &[&str]) -> (String, referee::harness::Summary) {
    let mut out = Vec::new();
    let args = Args::parse(args.iter().map(|s| s.to_string()));
    let s = write_results(r, &args, Duration::from_millis(1500), &mut out).unwrap();
    (String::from_utf8(out).unwrap(), s)
}

#[test]
fn harness_prints_one_libtest_line_per_check() {
    let r = Report::parse(&every_status().to_string()).unwrap();
    let (out, s) = run_harness(&r, &[]);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("test ")).collect();
    assert_eq!(
        lines,
        [
            "test jcs/numbers/zero-fraction ... ok",
            "test jcs/nesting/arrays-1000 ... ok",
            "test jcs/keys/utf16-vs-codepoint ... FAILED",
            "test jcs/numbers/1e21 ... FAILED",
            "test jcs/rejects/duplicate-key ... ok",
            "test jcs/utf8/latin-1 ... ignored, adapter offers no canonicalJsonBytes",
            "test jcs/scale/long-string ... FAILED",
            "test result: FAILED. 3 passed; 3 failed; 1 ignored; 0 measured; 0 filtered out; finished in 1.50s",
        ]
    );
    assert_eq!(
        (s.passed, s.failed, s.ignored, s.warned, s.filtered_out),
        (3, 3, 1, 1, 0)
    );
    assert!(!s.ok());
    assert!(out.contains("\nrunning 7 tests\n"), "{out}");
    // The warning is listed with its reason; each failure with its evidence.
    assert!(
        out.contains("    jcs/rejects/duplicate-key: accepted duplicate member names"),
        "{out}"
    );
    assert!(out.contains("---- jcs/keys/utf16-vs-codepoint ----\nmust check failed:\n    canonical text differs at byte 2\n"), "{out}");
    assert!(
        out.contains("    expected @0: 7b22f09f\n    actual   @0: 7b22efac\n"),
        "{out}"
    );
    assert!(
        out.contains("    sent:     {\"id\":1}\n    received: {\"id\":1,\"ok\":\"x\"}\n"),
        "{out}"
    );
    assert!(
        out.contains("---- jcs/scale/long-string ----\nmust check error:\n    adapter timeout"),
        "{out}"
    );
    // What an implementation wrote cannot start a line or drive the terminal.
    assert!(
        out.contains("\n    note: a line\n          break and ‹U+001B›[31mESC\n"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'));
}

#[test]
fn long_values_are_cut_but_not_the_repro() {
    let mut doc = every_status();
    let long = format!("[{}é]", "9".repeat(398)); // 399 ASCII bytes, then two of é
    doc["checks"][3]["actual"] = json!(long);
    doc["checks"][3]["evidence"] = json!({"exchanges": [{"request": "x".repeat(5000)}], "repro": format!("printf {}", "y".repeat(1000))});
    let r = Report::parse(&doc.to_string()).unwrap();
    let lines = r.checks[3].evidence_lines();
    assert_eq!(
        lines[2],
        format!("actual:   [{}… (402 bytes in all)", "9".repeat(398))
    );
    assert_eq!(
        lines[3],
        format!("sent:     {}… (5000 bytes in all)", "x".repeat(400))
    );
    assert_eq!(
        lines[4],
        format!("printf {}", "y".repeat(1000)).replacen("printf", "repro: printf", 1)
    );
}

#[test]
fn harness_honours_filters_like_libtest() {
    let r = Report::parse(&every_status().to_string()).unwrap();
    let cases: [(&[&str], &[&str], bool); 5] = [
        (
            &["numbers"],
            &["jcs/numbers/zero-fraction", "jcs/numbers/1e21"],
            false,
        ),
        (
            &["--exact", "jcs/numbers/zero-fraction"],
            &["jcs/numbers/zero-fraction"],
            true,
        ),
        (&["--exact", "zero-fraction"], &[], true),
        (
            &[
                "--skip",
                "keys",
                "--skip",
                "1e21",
                "--skip",
                "scale",
                "--test-threads",
                "2",
                "-q",
            ],
            &[
                "jcs/numbers/zero-fraction",
                "jcs/nesting/arrays-1000",
                "jcs/rejects/duplicate-key",
                "jcs/utf8/latin-1",
            ],
            true,
        ),
        (
            &["utf8", "nesting"],
            &["jcs/nesting/arrays-1000", "jcs/utf8/latin-1"],
            true,
        ),
    ];
    for (args, shown, ok) in cases {
        let (out, s) = run_harness(&r, args);
        let got: Vec<&str> = out
            .lines()
            .filter_map(|l| l.strip_prefix("test "))
            .filter(|l| !l.starts_with("result"))
            .map(|l| l.split(" ... ").next().unwrap())
            .collect();
        assert_eq!(got, shown, "args {args:?}");
        assert_eq!(s.filtered_out, 7 - shown.len(), "args {args:?}");
        assert_eq!(s.ok(), ok, "args {args:?}: {out}");
    }
}

#[test]
fn harness_fails_a_run_where_nothing_passed() {
    let mut doc = every_status();
    doc["checks"] = json!([{"id": "jcs/utf8/latin-1", "status": "not-checked", "level": "must", "reason": "adapter offers no canonicalJsonBytes", "duration_ms": 0}]);
    doc["counts"] = json!({"pass": 0, "fail": 0, "warn": 0, "not_checked": 1, "error": 0});
    let r = Report::parse(&doc.to_string()).unwrap();
    let (out, s) = run_harness(&r, &[]);
    assert!(!s.ok());
    assert!(out.contains("no check passed"), "{out}");
    assert!(
        out.contains("test result: FAILED. 0 passed; 0 failed; 1 ignored;"),
        "{out}"
    );
}

/// A cgp report: the seed's names, statuses and verdict.
fn cgp(checks: Value, complete: bool) -> Report {
    let list = checks.as_array().unwrap();
    let count = |st: &str, lv: Option<&str>| {
        list.iter()
            .filter(|c| c["status"] == st && lv.map_or(true, |l| c["level"] == l))
            .count()
    };
    let fails = list
        .iter()
        .filter(|c| c["status"] == "fail" && c["level"] != "should")
        .count();
    let doc = json!({
      "format": "referee-report/2",
      "tool": {"name": "referee", "version": "0.1.0-dev"},
      "suite": {"name": "cgp", "version": "1.0.0", "corpus": "built-in checks", "corpus_digest": "sha256:47aa"},
      "implementation": {"name": "p", "version": "1", "ops": [], "transport": "stdio", "command": ["p"]},
      "started": "2026-12-01T19:52:25Z", "duration_ms": 3, "complete": complete, "strict": false,
      "conformant": false, "restarts": 0,
      "counts": {"pass": count("pass", None), "fail": fails, "warn": count("fail", Some("should")),
                 "not_checked": count("not-checked", None), "error": count("error", None)},
      "checks": checks
    });
    Report::parse(&doc.to_string()).unwrap()
}

#[test]
fn seed_report_maps_referee_verdicts() {
    let pass = |id: &str| json!({"id": id, "status": "pass", "level": "must", "reason": "fine", "duration_ms": 0.1});
    let warn = json!({"id": "cgp/embedding-fingerprint", "status": "fail", "level": "should", "reason": "answered frames", "duration_ms": 0.1});
    let skip = json!({"id": "cgp/correlation", "status": "not-checked", "level": "must", "reason": "no correlation capability", "duration_ms": 0});
    let fail = json!({"id": "cgp/frame-validity", "status": "fail", "level": "must", "reason": "frame[0] score 1.5 is outside [0,1] (§F1)", "evidence": {}, "duration_ms": 0.1});
    let error = json!({"id": "cgp/handshake", "status": "error", "level": "must", "reason": "not run: the implementation could not be started", "evidence": {}, "duration_ms": 0});

    type Case = (&'static str, Value, bool, bool, (usize, usize, usize));
    let cases: Vec<Case> = vec![
        (
            "all pass",
            json!([pass("cgp/handshake"), pass("cgp/shutdown-clean")]),
            true,
            true,
            (2, 0, 0),
        ),
        (
            "a warning and a skip do not block",
            json!([pass("cgp/handshake"), warn.clone(), skip.clone()]),
            true,
            true,
            (2, 0, 1),
        ),
        (
            "a failed must blocks",
            json!([pass("cgp/handshake"), fail.clone()]),
            true,
            false,
            (1, 1, 0),
        ),
        (
            "an error blocks",
            json!([error.clone(), pass("cgp/shutdown-clean")]),
            true,
            false,
            (1, 1, 0),
        ),
        (
            "nothing passed",
            json!([skip.clone()]),
            true,
            false,
            (0, 0, 1),
        ),
        (
            "incomplete",
            json!([pass("cgp/handshake")]),
            false,
            false,
            (1, 0, 0),
        ),
    ];
    for (name, checks, complete, passed, tally) in cases {
        let seed = ConformanceReport::from_report("stdio: p".into(), cgp(checks, complete));
        assert_eq!(seed.passed(), passed, "{name}:\n{seed}");
        assert_eq!(seed.tally(), tally, "{name}");
        assert!(
            seed.checks.iter().all(|c| !c.name.starts_with("cgp/")),
            "{name}"
        );
    }
    // Under --strict a skipped check blocks too, as referee's conformant says.
    let mut strict = cgp(json!([pass("cgp/handshake"), skip.clone()]), true);
    strict.strict = true;
    let seed = ConformanceReport::from_report("stdio: p".into(), strict.clone());
    assert!(!seed.passed(), "strict with a skip:\n{seed}");
    let (out, s) = run_harness(&strict, &[]);
    assert!(
        !s.ok() && out.contains("1 not-checked checks block conformance under --strict"),
        "{out}"
    );
    assert!(
        out.contains("test result: FAILED. 1 passed; 0 failed; 1 ignored;"),
        "{out}"
    );

    let seed =
        ConformanceReport::from_report("stdio: p".into(), cgp(json!([warn, fail, skip]), true));
    let got: Vec<(&str, CheckStatus, Level)> = seed
        .checks
        .iter()
        .map(|c| (c.name.as_str(), c.status, c.level))
        .collect();
    assert_eq!(
        got,
        [
            ("embedding-fingerprint", CheckStatus::Warn, Level::Should),
            ("frame-validity", CheckStatus::Fail, Level::Must),
            ("correlation", CheckStatus::Skipped, Level::Must),
        ]
    );
    assert_eq!(
        seed.check("cgp/frame-validity").unwrap().evidence,
        "frame[0] score 1.5 is outside [0,1] (§F1)"
    );
    assert_eq!(seed.failures().len(), 1);
    let shown = seed.to_string();
    assert!(
        shown.contains("FAIL  frame-validity — frame[0] score 1.5 is outside [0,1] (§F1)"),
        "{shown}"
    );
    assert!(
        shown.ends_with("1 passed, 1 failed, 1 skipped: NOT CONFORMANT"),
        "{shown}"
    );
}

#[test]
fn reads_referee_report_1_as_all_must() {
    let mut doc = every_status();
    doc["format"] = json!("referee-report/1");
    let checks: Vec<Value> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["level"] == "must")
        .map(|c| {
            let mut c = c.clone();
            c.as_object_mut().unwrap().remove("level");
            c
        })
        .collect();
    doc["counts"] = json!({"pass": 1, "fail": 1, "not_checked": 1, "error": 1});
    doc["checks"] = Value::Array(checks);
    let r = Report::parse(&doc.to_string()).expect("a referee-report/1 document");
    assert!(r.checks.iter().all(|c| c.level == Level::Must));
    assert_eq!(r.counts.warn, 0);
}

#[test]
fn malformed_reports_say_what_and_where() {
    let with = |path: &[&str], v: Value| {
        let mut doc = every_status();
        let mut at = &mut doc;
        for p in &path[..path.len() - 1] {
            at = match p.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*p],
            };
        }
        let last = path[path.len() - 1];
        if v.is_null() {
            at.as_object_mut().unwrap().remove(last);
        } else {
            at[last] = v;
        }
        doc.to_string()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty", String::new(), "not JSON"),
        ("text", "referee: unknown suite \"x\"".into(), "not JSON"),
        (
            "truncated",
            every_status().to_string()[..300].to_string(),
            "not JSON",
        ),
        (
            "an array",
            "[]".into(),
            "the document is an array, not an object",
        ),
        (
            "format",
            with(&["format"], json!("referee-report/3")),
            "format is \"referee-report/3\"",
        ),
        (
            "no checks",
            with(&["checks"], Value::Null),
            "checks: missing",
        ),
        (
            "status",
            with(&["checks", "0", "status"], json!("skipped")),
            "checks[0].status: unknown status \"skipped\"",
        ),
        (
            "level",
            with(&["checks", "1", "level"], json!("optional")),
            "checks[1].level: unknown level \"optional\"",
        ),
        (
            "no level",
            with(&["checks", "2", "level"], Value::Null),
            "checks[2].level: missing",
        ),
        (
            "duration",
            with(&["checks", "3", "duration_ms"], json!("1ms")),
            "checks[3].duration_ms: a string, not a number",
        ),
        (
            "diff",
            with(&["checks", "2", "evidence", "diff", "offset"], json!(-1)),
            "checks[2].evidence.diff.offset: a number, not a non-negative integer",
        ),
        (
            "exchange",
            with(
                &["checks", "2", "evidence", "exchanges", "0", "request"],
                json!(1),
            ),
            "checks[2].evidence.exchanges[0].request: a number, not a string",
        ),
        (
            "counts",
            with(&["counts", "pass"], json!(3)),
            "counts add up to 8 checks, but the report lists 7",
        ),
        (
            "conformant",
            with(&["conformant"], json!("no")),
            "conformant: a string, not a boolean",
        ),
        (
            "ops",
            with(&["implementation", "ops"], json!(["a", 1])),
            "implementation.ops[1]: a number, not a string",
        ),
    ];
    for (name, text, want) in cases {
        match Report::parse(&text) {
            Ok(_) => panic!("{name}: parsed a malformed report"),
            Err(e) => assert!(e.contains(want), "{name}: {e:?} does not say {want:?}"),
        }
    }
}
