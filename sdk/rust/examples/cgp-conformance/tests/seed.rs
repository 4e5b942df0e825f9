//! The Context Graph Protocol seed's test, on referee: one #[test] that
//! runs every check and asserts the verdict.

use referee::{run_conformance, ProviderTarget};

#[test]
fn conformance() {
    let report = run_conformance(ProviderTarget::Stdio {
        program: env!("CARGO_BIN_EXE_my-provider").into(),
        args: vec![],
    });
    for check in &report.checks {
        println!("{}: {:?} — {}", check.name, check.status, check.evidence);
    }
    assert!(
        report.passed(),
        "not Context Graph Protocol conformant:\n{report}"
    );
}
