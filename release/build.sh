#!/usr/bin/env bash
# release/build.sh VERSION [OUT]: static referee binaries for linux, macOS and
# Windows on amd64 and arm64, each in an archive with the README and licence
# notes, and SHA256SUMS over the archives. `release/build.sh --check` builds
# every target into a temporary directory and verifies the checksums, as CI
# does, without keeping anything.
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
if [ "${1:-}" = "--check" ]; then
  check=true
  version=0.0.0-check
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  version=${1:?usage: release/build.sh VERSION [OUT] | --check}
  out=${2:-dist}
fi
version=${version#v}
mkdir -p "$out"

targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
for t in $targets; do
  goos=${t%/*} goarch=${t#*/}
  name="referee_${version}_${goos}_${goarch}"
  dir="$out/$name"
  mkdir -p "$dir"
  exe=referee
  [ "$goos" = windows ] && exe=referee.exe
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "-s -w -X github.com/refereehq/referee/internal/cli.Version=$version" \
    -o "$dir/$exe" ./cmd/referee
  cp README.md "$dir/"
  if [ "$goos" = windows ]; then
    (cd "$out" && zip -qr "$name.zip" "$name")
  else
    tar -C "$out" -czf "$out/$name.tar.gz" "$name"
  fi
  rm -rf "$dir"
done

(cd "$out" && sha256sum referee_* > SHA256SUMS)
n=$(wc -l < "$out/SHA256SUMS")
if [ "$n" -ne 6 ]; then
  echo "release: $n archives, want 6" >&2
  exit 1
fi
(cd "$out" && sha256sum --quiet -c SHA256SUMS)
if $check; then
  echo "release: 6 targets build static and their checksums verify"
else
  echo "release: 6 archives and SHA256SUMS in $out"
fi
