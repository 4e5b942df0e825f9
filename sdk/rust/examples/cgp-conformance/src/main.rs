//! my-provider stands for your Context Graph provider: a program that speaks
//! the protocol as NDJSON on stdin and stdout. So that this example runs
//! anywhere, it hands its stdio to referee's reference provider
//! (`referee serve cgp`, from REFEREE_BIN or PATH); PROVIDER_MODE breaks it
//! on purpose (`referee list cgp --modes`).

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let referee = std::env::var_os("REFEREE_BIN").unwrap_or_else(|| "referee".into());
    let mut provider = Command::new(referee);
    provider.args(["serve", "cgp"]);
    if let Some(mode) = std::env::var_os("PROVIDER_MODE") {
        provider.arg("--mode").arg(mode);
    }
    match provider.status() {
        Ok(status) => ExitCode::from(status.code().unwrap_or(1) as u8),
        Err(e) => {
            eprintln!("my-provider: cannot start referee serve cgp: {e}");
            ExitCode::FAILURE
        }
    }
}
