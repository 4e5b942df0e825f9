//! One `cargo test` line per check of referee's cgp suite
//! (`test cgp/handshake ... ok`), with `harness = false` in Cargo.toml.
//! `cargo test --test conformance -- budget` runs the suite and shows the
//! checks whose ID contains "budget".

use std::process::ExitCode;

use referee::{harness, ProviderTarget};

fn main() -> ExitCode {
    harness::cgp_main(ProviderTarget::Stdio {
        program: env!("CARGO_BIN_EXE_my-provider").into(),
        args: vec![],
    })
}
