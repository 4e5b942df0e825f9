//! Adapters written with `serve` that misbehave, and what referee makes of
//! them (docs/adapter-protocol.md, docs/suites/jcs.md): a panicking op, an op
//! that returns a number where text is due, one that never answers, one that
//! logs to stdout, and an adapter with no ops. None of them may crash the
//! test; each is a verdict with evidence.
//!
//! This test target has `harness = false`: run with `--adapter MODE`, the
//! binary is itself the adapter that referee starts; otherwise it runs its
//! cases, printing libtest's lines and honouring its filter arguments.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use referee::harness::{write_results, Args};
use referee::{run_suite, serve, str_arg, Check, Ops, Report, RunOptions, Status};
use serde_json::{json, Value};

fn adapter(mode: &str) -> ExitCode {
    let ops = Ops::new(format!("hostile-{mode}"), "0");
    let ops = match mode {
        "panic" => ops.op("canonicalJson", |args| {
            let text = str_arg(args, "value_text")?;
            panic!("deliberate panic in canonicalJson of {text}");
        }),
        "number" => ops.op("canonicalJson", |_| Ok(json!(42))),
        "slow" => ops.op("canonicalJson", |_| {
            std::thread::sleep(Duration::from_secs(30));
            Ok(Value::String("[0]".into()))
        }),
        "stdout" => ops.op("canonicalJson", |_| {
            println!("debug: canonicalising");
            Ok(Value::String("[0]".into()))
        }),
        _ => ops, // "none": it offers nothing
    };
    match serve(ops) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serve: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs jcs (only `--run ONE` when given) against this binary as `mode`.
fn run(mode: &str, one: Option<&str>, timeout: Option<Duration>) -> Result<Report, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let opts = RunOptions {
        run: one.map(|id| vec![id.to_string()]).unwrap_or_default(),
        timeout,
        ..RunOptions::default()
    };
    run_suite(
        "jcs",
        [me.as_os_str(), "--adapter".as_ref(), mode.as_ref()],
        &opts,
    )
    .map_err(|e| e.to_string())
}

fn only(r: &Report) -> Result<&Check, String> {
    match r.checks.as_slice() {
        [c] => Ok(c),
        other => Err(format!("{} checks, not one", other.len())),
    }
}

fn want(ok: bool, what: String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what)
    }
}

const ONE: &str = "jcs/numbers/zero-fraction";

fn a_panic_is_an_error_with_the_panic_in_its_evidence() -> Result<(), String> {
    let r = run("panic", Some(ONE), None)?;
    let c = only(&r)?;
    want(
        c.status == Status::Error,
        format!("status {:?}: {:?}", c.status, c.reason),
    )?;
    let stderr = c.evidence.stderr.as_deref().unwrap_or("");
    want(
        stderr.contains("deliberate panic in canonicalJson of [0.0]"),
        format!("stderr evidence {stderr:?}"),
    )?;
    want(
        r.exit_code == Some(1) && !r.conformant,
        format!("exit {:?}", r.exit_code),
    )
}

fn a_number_where_text_is_due_fails() -> Result<(), String> {
    let r = run("number", Some(ONE), None)?;
    let c = only(&r)?;
    let reason = c.reason.as_deref().unwrap_or("");
    want(c.status == Status::Fail, format!("status {:?}", c.status))?;
    want(
        reason.contains("not the canonical text as a JSON string"),
        format!("reason {reason:?}"),
    )?;
    want(
        c.evidence
            .exchanges
            .iter()
            .any(|x| x.reply.as_deref() == Some("{\"id\":1,\"ok\":42}")),
        format!("{:?}", c.evidence.exchanges),
    )
}

fn an_op_that_never_answers_times_out() -> Result<(), String> {
    let start = Instant::now();
    let r = run("slow", Some(ONE), Some(Duration::from_millis(300)))?;
    let c = only(&r)?;
    let reason = c.reason.as_deref().unwrap_or("");
    want(
        c.status == Status::Error && reason.contains("timeout"),
        format!("{:?}: {reason:?}", c.status),
    )?;
    // referee stops the adapter rather than wait out its 30 s sleep.
    want(
        start.elapsed() < Duration::from_secs(20),
        format!("took {:?}", start.elapsed()),
    )
}

fn logging_to_stdout_is_a_fault() -> Result<(), String> {
    let r = run("stdout", Some(ONE), None)?;
    let c = only(&r)?;
    want(
        c.status == Status::Error,
        format!("status {:?}: {:?}", c.status, c.reason),
    )?;
    let shown = c.evidence_lines().join("\n");
    want(
        shown.contains("debug: canonicalising"),
        format!("evidence:\n{shown}"),
    )
}

fn an_adapter_with_no_ops_checks_nothing() -> Result<(), String> {
    let r = run("none", None, None)?;
    want(r.checks.len() > 500, format!("{} checks", r.checks.len()))?;
    for c in &r.checks {
        let op = if c.id.starts_with("jcs/utf8/") {
            "canonicalJsonBytes"
        } else {
            "canonicalJson"
        };
        let reason = c.reason.as_deref().unwrap_or("");
        want(
            c.status == Status::NotChecked && reason.contains(op),
            format!("{}: {:?} {reason:?}", c.id, c.status),
        )?;
    }
    want(
        !r.conformant && r.exit_code == Some(1),
        format!("conformant {} exit {:?}", r.conformant, r.exit_code),
    )?;
    let s = write_results(&r, &Args::default(), Duration::ZERO, &mut std::io::sink())
        .map_err(|e| e.to_string())?;
    want(!s.ok() && s.ignored == r.checks.len(), format!("{s:?}"))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--adapter") {
        return adapter(argv.get(2).map_or("none", String::as_str));
    }
    type Case = (&'static str, fn() -> Result<(), String>);
    let cases: [Case; 5] = [
        (
            "a_panic_is_an_error_with_the_panic_in_its_evidence",
            a_panic_is_an_error_with_the_panic_in_its_evidence,
        ),
        (
            "a_number_where_text_is_due_fails",
            a_number_where_text_is_due_fails,
        ),
        (
            "an_op_that_never_answers_times_out",
            an_op_that_never_answers_times_out,
        ),
        ("logging_to_stdout_is_a_fault", logging_to_stdout_is_a_fault),
        (
            "an_adapter_with_no_ops_checks_nothing",
            an_adapter_with_no_ops_checks_nothing,
        ),
    ];
    let args = Args::from_env();
    let chosen: Vec<&Case> = cases
        .iter()
        .filter(|(name, _)| args.selects(name))
        .collect();
    if args.list {
        for (name, _) in &chosen {
            println!("{name}: test");
        }
        return ExitCode::SUCCESS;
    }
    let start = Instant::now();
    println!("\nrunning {} tests", chosen.len());
    let mut failed = Vec::new();
    for (name, case) in &chosen {
        match case() {
            Ok(()) => println!("test {name} ... ok"),
            Err(why) => {
                println!("test {name} ... FAILED");
                failed.push((name, why));
            }
        }
    }
    for (name, why) in &failed {
        println!("\n---- {name} ----\n{why}");
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        chosen.len() - failed.len(),
        failed.len(),
        cases.len() - chosen.len(),
        start.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(101)
    }
}
