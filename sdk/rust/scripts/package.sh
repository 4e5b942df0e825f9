#!/usr/bin/env bash
# sdk/rust/scripts/package.sh VERSION OUTDIR: the referee crate as
# OUTDIR/referee-VERSION.crate, the file `cargo package` makes (a gzipped
# tar of the crate's sources with a normalised Cargo.toml), with VERSION
# set in its manifest. It carries no binary: the crate runs REFEREE_BIN or
# `referee` on PATH. No Cargo.lock goes in (--exclude-lockfile): cargo would
# write a registry source line into it, and a library's lock is not used.
# Offline and quick: cargo reads no registry (its crates-io source is
# replaced by an empty directory) and compiles nothing (--no-verify).
# scripts/test.sh unpacks the file into a cargo directory source beside
# Debian's crates and builds against it.
set -euo pipefail

version=${1:?usage: package.sh VERSION OUTDIR}
out=${2:?usage: package.sh VERSION OUTDIR}
version=${version#v}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
  echo "package.sh: version $version is not semver (MAJOR.MINOR.PATCH[-PRE][+BUILD])" >&2
  exit 2
fi
crate=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/referee-rust-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/crate" "$work/registry" "$work/cargo-home"
cp -R "$crate/Cargo.toml" "$crate/README.md" "$crate/src" "$crate/tests" "$work/crate/"
mkdir -p "$work/crate/examples"
cp "$crate"/examples/*.rs "$work/crate/examples/"
# The package's own version line is the first line of Cargo.toml that
# starts `version =`; dependency versions are inline tables or strings.
awk -v v="$version" '!done && /^version = /{print "version = \"" v "\""; done=1; next} {print}' \
  "$crate/Cargo.toml" > "$work/crate/Cargo.toml"
grep -q "^version = \"$version\"\$" "$work/crate/Cargo.toml"
cat > "$work/cargo-home/config.toml" <<CONFIG
[source.crates-io]
replace-with = "none"
[source.none]
directory = "$work/registry"
[net]
offline = true
CONFIG
(cd "$work/crate" && CARGO_HOME="$work/cargo-home" CARGO_TARGET_DIR="$work/target" \
  cargo package --quiet --no-verify --offline --allow-dirty --exclude-lockfile)
cp "$work/target/package/referee-$version.crate" "$out/"
echo "rust: $out/referee-$version.crate"
