//! Finding the referee binary: `REFEREE_BIN`, else `referee` on `PATH`.

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Error;

/// The file name of the binary on this platform.
const EXE: &str = if cfg!(windows) {
    "referee.exe"
} else {
    "referee"
};

/// The referee binary this crate runs: the path in `REFEREE_BIN` when it is
/// set (an error when that file does not exist), else the first `referee` on
/// `PATH`, else [`Error::NotInstalled`] saying how to install one.
pub fn find_binary() -> Result<PathBuf, Error> {
    find_in(env::var_os("REFEREE_BIN"), env::var_os("PATH"))
}

/// The lookup of [`find_binary`] over the given values of `REFEREE_BIN` and
/// `PATH` (an empty `REFEREE_BIN` counts as unset).
pub fn find_in(referee_bin: Option<OsString>, path: Option<OsString>) -> Result<PathBuf, Error> {
    if let Some(bin) = referee_bin.filter(|b| !b.is_empty()) {
        let bin = PathBuf::from(bin);
        return if bin.is_file() {
            Ok(bin)
        } else {
            Err(Error::BinaryMissing { path: bin })
        };
    }
    if let Some(path) = path {
        for dir in env::split_paths(&path) {
            let candidate = dir.join(EXE);
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
    }
    Err(Error::NotInstalled {
        platform: platform(),
    })
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// This machine's platform as referee's releases and packages name it:
/// `<goos>-<goarch>`, e.g. `linux-amd64`, `darwin-arm64`, `windows-amd64`.
pub fn platform() -> String {
    let os = match env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    format!("{os}-{arch}")
}

/// What `referee version` says on its first line (`referee 0.1.0-dev`), or a
/// sentence saying why it could not be asked. Used to name the version in
/// [`Error::BadReport`].
pub fn version_of(bin: &Path) -> String {
    match Command::new(bin).arg("version").output() {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            match text.lines().next().map(str::trim) {
                Some(line) if !line.is_empty() => line.to_string(),
                _ => format!(
                    "the referee at {} (`referee version` printed nothing)",
                    bin.display()
                ),
            }
        }
        Ok(out) => format!(
            "the referee at {} (`referee version` exited with {})",
            bin.display(),
            out.status
        ),
        Err(e) => format!(
            "the referee at {} (`referee version` failed: {e})",
            bin.display()
        ),
    }
}
