#!/usr/bin/env bash
# sdk/rust/scripts/test.sh OUTDIR: installs the referee crate from the file
# release/packages.sh wrote (OUTDIR/rust/referee-VERSION.crate) and tests it
# with no registry:
#   1. a cargo directory source in a scratch directory holds Debian's
#      packaged crates (librust-serde-json-dev, apt-installed when missing)
#      and the unpacked crate; CARGO_HOME there replaces crates-io with it,
#      offline;
#   2. `cargo test` of the unpacked crate: its unit tests, and its tests
#      against referee's reference provider (honest and broken modes) and the
#      example adapters built with `serve`;
#   3. examples/cgp-conformance, a project that depends on `referee` by
#      version, tested against referee's provider honest (every check ok),
#      broken (bad-score: cgp/frame-validity FAILED, the seed test FAILED)
#      and with a failed should check (accept-bad-embedding: a warning, ok).
# referee itself: REFEREE_BIN, else a binary in OUTDIR (loose, or inside this
# platform's npm tarball or wheel), else `go build` of this checkout.
set -euo pipefail

out=${1:?usage: sdk/rust/scripts/test.sh OUTDIR}
out=$(cd "$out" && pwd)
sdk=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$sdk/../.." && pwd)
start=$SECONDS
say() { echo "rust sdk: $*"; }
die() { echo "rust sdk: FAIL: $*" >&2; exit 1; }

# Debian's crates.
if ! compgen -G "/usr/share/cargo/registry/serde_json-1.*" >/dev/null; then
  say "installing librust-serde-json-dev"
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get install -y -qq librust-serde-json-dev >/dev/null
fi

crate=$(ls -t "$out"/rust/referee-*.crate 2>/dev/null | head -n 1 || true)
[ -n "$crate" ] || die "no referee-*.crate in $out/rust: run release/packages.sh $out (or sdk/rust/scripts/package.sh VERSION $out/rust)"
version=$(basename "$crate" .crate)
version=${version#referee-}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/referee-rust-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# referee.
runs() { [ -f "$1" ] && [ -x "$1" ] && "$1" version >/dev/null 2>&1; }
bin=${REFEREE_BIN:-}
from="REFEREE_BIN"
if [ -z "$bin" ]; then
  while IFS= read -r f; do
    if runs "$f"; then bin=$f from="$f"; break; fi
  done < <(find "$out" -type f -name referee 2>/dev/null)
fi
if [ -z "$bin" ]; then
  mkdir -p "$scratch/pkgbin"
  n=0
  for pkg in "$out"/npm/*.tgz; do
    [ -f "$pkg" ] || continue
    while IFS= read -r m; do
      n=$((n + 1)) d="$scratch/pkgbin/$n"
      mkdir -p "$d" && tar -xzf "$pkg" -C "$d" "$m" 2>/dev/null && chmod +x "$d/$m" || continue
      if runs "$d/$m"; then bin="$d/$m" from="$(basename "$pkg")"; break 2; fi
    done < <(tar -tzf "$pkg" | grep -E '(^|/)referee$' || true)
  done
fi
if [ -z "$bin" ]; then
  for whl in "$out"/python/*.whl; do
    [ -f "$whl" ] || continue
    n=$((n + 1)) d="$scratch/pkgbin/w$n"
    python3 - "$whl" "$d" <<'PY' || continue
import os, sys, zipfile
whl, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    names = [m for m in z.namelist() if m.rsplit("/", 1)[-1] == "referee"]
    for m in names:
        p = z.extract(m, dest)
        os.chmod(p, 0o755)
        print(p)
PY
    while IFS= read -r f; do
      if runs "$f"; then bin=$f from="$(basename "$whl")"; break 2; fi
    done < <(find "$d" -type f -name referee 2>/dev/null)
  done
fi
if [ -z "$bin" ]; then
  say "no referee for this platform in $out: building one"
  bin="$scratch/referee"
  from="go build"
  (cd "$root" && CGO_ENABLED=0 go build -o "$bin" ./cmd/referee)
fi
runs "$bin" || die "REFEREE_BIN=$bin does not run"
export REFEREE_BIN=$bin
say "referee: $("$bin" version | head -n 1) ($from)"

# The directory source: Debian's crates and ours.
mkdir -p "$scratch/vendor" "$scratch/cargo-home"
for d in /usr/share/cargo/registry/*/; do
  ln -s "${d%/}" "$scratch/vendor/"
done
tar -xzf "$crate" -C "$scratch/vendor"
[ -f "$scratch/vendor/referee-$version/Cargo.toml" ] || die "$crate does not hold referee-$version/"
sum=$(sha256sum "$crate" | cut -d ' ' -f 1)
printf '{"package":"%s","files":{}}\n' "$sum" > "$scratch/vendor/referee-$version/.cargo-checksum.json"
cat > "$scratch/cargo-home/config.toml" <<CONFIG
[source.crates-io]
replace-with = "local"
[source.local]
directory = "$scratch/vendor"
[net]
offline = true
CONFIG
export CARGO_HOME="$scratch/cargo-home"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$scratch/target}"
export CARGO_TERM_COLOR=never

# The crate's own tests, from the unpacked file (a copy: cargo writes a
# Cargo.lock beside the manifest).
cp -R "$scratch/vendor/referee-$version" "$scratch/crate"
t0=$SECONDS
if ! (cd "$scratch/crate" && cargo test 2>&1) > "$scratch/crate.log"; then
  cat "$scratch/crate.log"
  die "cargo test of referee-$version failed"
fi
crate_secs=$((SECONDS - t0))
passed=$(grep -E '^test result: ok\.' "$scratch/crate.log" | awk '{n += $4} END {print n + 0}')
targets=$(grep -cE '^test result: ok\.' "$scratch/crate.log")
grep -q "FAILED" "$scratch/crate.log" && die "a test line says FAILED: $(grep FAILED "$scratch/crate.log" | head -n 3)"
say "cargo test of referee-$version: $passed tests passed in $targets targets (${crate_secs}s)"

# The example project, with the crate as an ordinary versioned dependency.
cp -R "$sdk/examples/cgp-conformance" "$scratch/project"
rm -rf "$scratch/project/target" "$scratch/project/Cargo.lock"
sed -i.bak -E "s/^referee = .*/referee = \"=$version\"/" "$scratch/project/Cargo.toml"
project() { # MODE LOG: cargo test of the project against the provider in MODE
  (cd "$scratch/project" && env ${1:+PROVIDER_MODE=$1} cargo test --no-fail-fast 2>&1) > "$2"
}
expect() { # LOG PATTERN WHAT
  grep -qE "$2" "$1" || { cat "$1"; die "$3: no line matching '$2'"; }
}
project "" "$scratch/honest.log" || { cat "$scratch/honest.log"; die "the example project fails against the honest provider"; }
[ "$(grep -cE '^test cgp/[a-z-]+ \.\.\. ok$' "$scratch/honest.log")" = 14 ] || { cat "$scratch/honest.log"; die "honest: not 14 ok lines"; }
expect "$scratch/honest.log" '^test conformance \.\.\. ok$' "honest: the seed test"

if project bad-score "$scratch/bad-score.log"; then
  cat "$scratch/bad-score.log"
  die "the example project passes against a provider that scores a frame 1.5"
fi
expect "$scratch/bad-score.log" '^test cgp/frame-validity \.\.\. FAILED$' "bad-score"
expect "$scratch/bad-score.log" '^test cgp/handshake \.\.\. ok$' "bad-score"
expect "$scratch/bad-score.log" 'score 1\.5 is outside \[0,1\]' "bad-score: the evidence"
expect "$scratch/bad-score.log" '^test conformance \.\.\. FAILED$' "bad-score: the seed test"
[ "$(grep -cE '^test cgp/[a-z-]+ \.\.\. FAILED$' "$scratch/bad-score.log")" = 1 ] || { cat "$scratch/bad-score.log"; die "bad-score: not exactly one FAILED check"; }

project accept-bad-embedding "$scratch/should.log" || { cat "$scratch/should.log"; die "a failed should check failed the example project"; }
expect "$scratch/should.log" '^test cgp/embedding-fingerprint \.\.\. ok$' "accept-bad-embedding"
expect "$scratch/should.log" '^    cgp/embedding-fingerprint: ' "accept-bad-embedding: the warning"
expect "$scratch/should.log" '^test conformance \.\.\. ok$' "accept-bad-embedding: the seed test"

say "ok: referee-$version from $(basename "$crate"): $passed crate tests passed; example project honest 14/14 ok, bad-score FAILED as predicted, accept-bad-embedding warned and passed ($((SECONDS - start))s)"
