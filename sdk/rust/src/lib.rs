//! referee from Rust: run referee's conformance suites from `cargo test`,
//! read their reports as typed values, and write adapters.
//!
//! - [`run_conformance`] of a [`ProviderTarget`]: the Context Graph Protocol
//!   seed's API (`contextgraph-conformance`), run by referee's `cgp` suite,
//!   returning a [`ConformanceReport`] of `{ name, status, evidence }` with
//!   [`passed`](ConformanceReport::passed).
//! - [`run_suite`] of any suite against any implementation's command,
//!   returning referee's whole [`Report`] (referee-report/2).
//! - [`serve`] of [`Ops`]: a referee-adapter/1 adapter program is its ops and
//!   one line.
//! - [`harness`]: one `cargo test` line per check (`test cgp/handshake ... ok`)
//!   in a `harness = false` test target.
//!
//! The crate runs the referee binary: `REFEREE_BIN`, else `referee` on
//! `PATH` ([`find_binary`]). Without one, every call says how to install it.
//!
//! ```no_run
//! use referee::{run_conformance, ProviderTarget};
//!
//! #[test]
//! fn conformance() {
//!     let report = run_conformance(ProviderTarget::Stdio {
//!         program: "my-contextgraph-provider".into(),
//!         args: vec![],
//!     });
//!     assert!(report.passed(), "not Context Graph Protocol conformant:\n{report}");
//! }
//! ```
#![warn(missing_docs)]

mod adapter;
mod binary;
mod cgp;
mod error;
pub mod harness;
mod report;
mod run;

pub use adapter::{
    hex_arg, hex_decode, hex_encode, serve, serve_io, str_arg, OpError, OpResult, Ops, PROTOCOL,
};
pub use binary::{find_binary, find_in, platform, version_of};
pub use cgp::{
    run_conformance, run_conformance_with, try_run_conformance, try_run_conformance_with,
    CheckResult, Conformance, ConformanceReport, ProviderTarget,
};
pub use error::Error;
pub use report::{
    Check, CheckStatus, Counts, Diff, Evidence, Exchange, Implementation, Level, Report, Status,
    Suite, Tool, FORMATS, SHOWN_BYTES,
};
pub use run::{list_checks, run_suite, RunOptions};
