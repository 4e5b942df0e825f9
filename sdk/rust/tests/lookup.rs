//! Finding the binary, and the errors of a referee that cannot be found,
//! started or read. The unreadable and failing referees are shell scripts
//! (Unix only).

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use referee::{
    find_in, platform, run_conformance_with, run_suite, CheckStatus, Error, ProviderTarget,
    RunOptions,
};

/// A fresh directory of its own for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("referee-sdk-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(unix)]
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn referee_bin_comes_first_and_must_exist() {
    let dir = scratch("bin");
    let given = dir.join("my-referee");
    fs::write(&given, "").unwrap();
    let path = Some(OsString::from(dir.as_os_str()));
    assert_eq!(
        find_in(Some(given.clone().into()), path.clone()).unwrap(),
        given
    );
    match find_in(Some(dir.join("gone").into()), path) {
        Err(e @ Error::BinaryMissing { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("REFEREE_BIN")
                    && msg.contains("gone")
                    && msg.contains("does not exist"),
                "{msg}"
            );
        }
        other => panic!("a missing REFEREE_BIN gave {other:?}"),
    }
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn path_is_searched_for_an_executable_referee() {
    let dir = scratch("path");
    let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
    for d in [&a, &b, &c] {
        fs::create_dir(d).unwrap();
    }
    fs::write(a.join("referee"), "not executable").unwrap();
    let want = script(&b, "referee", "exit 0");
    script(&c, "referee", "exit 0");
    let path = std::env::join_paths([&a, &b, &c]).unwrap();
    // An empty REFEREE_BIN counts as unset.
    for bin in [None, Some(OsString::new())] {
        assert_eq!(find_in(bin, Some(path.clone())).unwrap(), want);
    }
    match find_in(None, Some(std::env::join_paths([&a]).unwrap())) {
        Err(Error::NotInstalled { platform: p }) => assert_eq!(p, platform()),
        other => panic!("a PATH with no executable referee gave {other:?}"),
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn not_installed_says_how_to_install_for_this_platform() {
    let e = find_in(None, None).unwrap_err();
    let msg = e.to_string();
    for want in [
        platform().as_str(),
        "REFEREE_BIN",
        "PATH",
        "npm install @refereehq/referee",
        "pip install referee",
        "go install github.com/refereehq/referee/cmd/referee@latest",
    ] {
        assert!(msg.contains(want), "{msg:?} does not say {want:?}");
    }
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert_eq!(platform(), "linux-amd64");
    }
    if cfg!(all(target_os = "macos", target_arch = "aarch64")) {
        assert_eq!(platform(), "darwin-arm64");
    }
}

#[cfg(unix)]
#[test]
fn an_unreadable_report_names_the_referee_version() {
    let dir = scratch("garbage");
    let cases = [
        ("not json", "echo 'referee: this is no report'; exit 1"),
        (
            "wrong format",
            "echo '{\"format\":\"referee-report/9\"}'; exit 0",
        ),
        (
            "truncated",
            "printf '{\"format\":\"referee-report/2\",\"tool\":'; exit 1",
        ),
    ];
    for (name, run) in cases {
        let bin = script(
            &dir,
            &name.replace(' ', "-"),
            &format!("if [ \"$1\" = version ]; then echo 'referee 9.9.9-fake (abcdef012345)'; echo 'adapter protocol referee-adapter/1'; exit 0; fi\n{run}"),
        );
        let opts = RunOptions {
            referee: Some(bin.clone()),
            ..RunOptions::default()
        };
        match run_suite("jcs", ["my-adapter"], &opts) {
            Err(e @ Error::BadReport { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("referee 9.9.9-fake (abcdef012345)"),
                    "{name}: {msg}"
                );
                assert!(msg.contains("referee-report/2"), "{name}: {msg}");
            }
            other => panic!("{name}: {other:?}"),
        }
        // The seed's API never fails: the error is its one check.
        let seed = run_conformance_with(
            ProviderTarget::Stdio {
                program: "p".into(),
                args: vec![],
            },
            &opts,
        );
        assert!(!seed.passed(), "{name}");
        assert_eq!(seed.checks.len(), 1);
        assert_eq!(
            (seed.checks[0].name.as_str(), seed.checks[0].status),
            ("referee", CheckStatus::Error)
        );
        assert!(
            seed.checks[0].evidence.contains("9.9.9-fake"),
            "{name}: {}",
            seed.checks[0].evidence
        );
        assert_eq!(seed.target, "stdio: p");
    }
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn no_report_carries_referees_message_and_status() {
    let dir = scratch("usage");
    let bin = script(
        &dir,
        "referee",
        "echo 'referee: unknown suite \"nope\"' >&2; exit 2",
    );
    let opts = RunOptions {
        referee: Some(bin),
        ..RunOptions::default()
    };
    match run_suite("nope", Vec::<String>::new(), &opts) {
        Err(
            e @ Error::NoReport {
                status: Some(2), ..
            },
        ) => {
            let msg = e.to_string();
            assert!(
                msg.contains("run nope --format json") && msg.contains("status 2"),
                "{msg}"
            );
            assert!(msg.contains("unknown suite \"nope\""), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_binary_that_cannot_start_is_a_spawn_error() {
    let opts = RunOptions {
        referee: Some(PathBuf::from("/nonexistent/referee")),
        ..RunOptions::default()
    };
    match run_suite("jcs", Vec::<String>::new(), &opts) {
        Err(e @ Error::Spawn { .. }) => {
            assert!(
                e.to_string()
                    .starts_with("cannot run referee at /nonexistent/referee: "),
                "{e}"
            );
            assert!(std::error::Error::source(&e).is_some());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(run_suite("", ["x"], &opts), Err(Error::Usage(_))));
}

#[test]
fn options_become_referee_flags() {
    let opts = RunOptions {
        corpus: Some("corpora/jcs".into()),
        run: vec!["jcs/keys".into(), "jcs/numbers/*".into()],
        skip: vec!["jcs/scale/**".into()],
        timeout: Some(std::time::Duration::from_millis(1500)),
        strict: true,
        env: vec![("A".into(), "1 2".into())],
        clean_env: true,
        dir: Some("work".into()),
        args: vec!["--parallel".into(), "2".into()],
        ..RunOptions::default()
    };
    let argv: Vec<String> = opts
        .argv("jcs", ["node", "adapter.mjs", "--flag"])
        .into_iter()
        .map(|a| a.into_string().unwrap())
        .collect();
    let want = "run jcs --format json --corpus corpora/jcs --run jcs/keys --run jcs/numbers/* --skip jcs/scale/** \
                --timeout 1500ms --env A=1 2 --dir work --strict --clean-env --parallel 2 -- node adapter.mjs --flag";
    assert_eq!(argv.join(" "), want);
    let url = RunOptions {
        url: Some("http://127.0.0.1:8785/".into()),
        ..RunOptions::default()
    };
    assert_eq!(
        url.argv("jcs", Vec::<&str>::new()).len(),
        6,
        "no -- without a command"
    );
}
