//! The errors of running referee: no binary, a binary that cannot run, no
//! report, or a report this crate cannot read.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a suite could not be run or its report could not be read.
///
/// A run that finished with failing checks is not an error: it is a report
/// whose checks say so. These are the cases where there is no report to judge.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// `REFEREE_BIN` is set but names no file.
    BinaryMissing {
        /// The path `REFEREE_BIN` gave.
        path: PathBuf,
    },
    /// `REFEREE_BIN` is not set and no `referee` is on `PATH`.
    NotInstalled {
        /// This machine's platform as referee's releases name it, e.g. `linux-amd64`.
        platform: String,
    },
    /// The referee binary could not be started.
    Spawn {
        /// The binary that was run.
        program: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// referee ended without writing a report: a usage or corpus error (exit 2)
    /// or a crash.
    NoReport {
        /// The command line that was run, for the message.
        command: String,
        /// referee's exit status, when it exited (not killed by a signal).
        status: Option<i32>,
        /// What referee wrote on stderr (its last 4 KiB).
        stderr: String,
    },
    /// referee wrote something this crate cannot read as a report.
    BadReport {
        /// What `referee version` says (its first line), or why it could not be asked.
        referee_version: String,
        /// What was wrong with the report.
        reason: String,
    },
    /// An argument to this crate was unusable (an empty suite name, a check
    /// ID list that is not `referee list`'s).
    Usage(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BinaryMissing { path } => write!(
                f,
                "REFEREE_BIN is set to {}, which does not exist; point it at a referee binary or unset it to use `referee` on PATH",
                path.display()
            ),
            Error::NotInstalled { platform } => write!(
                f,
                "no referee binary for {platform}: REFEREE_BIN is not set and there is no `referee` on PATH. \
                 Install one: `npm install @refereehq/referee` (npx referee), `pip install referee` (the wheel for {platform}), \
                 or `go install github.com/refereehq/referee/cmd/referee@latest`; or set REFEREE_BIN to a referee binary"
            ),
            Error::Spawn { program, source } => {
                write!(f, "cannot run referee at {}: {source}", program.display())
            }
            Error::NoReport {
                command,
                status,
                stderr,
            } => {
                match status {
                    Some(code) => write!(f, "`{command}` exited with status {code} without a report")?,
                    None => write!(f, "`{command}` was killed by a signal before writing a report")?,
                }
                let said = stderr.trim();
                if !said.is_empty() {
                    write!(f, ": {said}")?;
                }
                Ok(())
            }
            Error::BadReport {
                referee_version,
                reason,
            } => write!(
                f,
                "cannot read the report of {referee_version} (this crate {} reads referee-report/2): {reason}",
                env!("CARGO_PKG_VERSION")
            ),
            Error::Usage(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}
