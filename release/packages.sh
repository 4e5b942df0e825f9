#!/usr/bin/env bash
# release/packages.sh OUTDIR [VERSION]: referee's binary in each language's
# own packages, built from this checkout with no registry:
#   OUTDIR/npm/*.tgz     @refereehq/referee and one package per platform
#   OUTDIR/python/*.whl  one wheel per platform tag, the binary inside
#   OUTDIR/rust/         the sdk/rust crate, packaged (it finds the binary)
# Every target of release/build.sh is built: linux, macOS and Windows on
# amd64 and arm64. REFEREE_PLATFORMS="linux/amd64 ..." builds fewer, for a
# quick local round; CI builds them all.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: release/packages.sh OUTDIR [VERSION]}
version=${2:-0.1.0-dev}
version=${version#v}
mkdir -p "$out"
out=$(cd "$out" && pwd)

targets=${REFEREE_PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
bins=$(mktemp -d)
trap 'rm -rf "$bins"' EXIT
for t in $targets; do
  goos=${t%/*} goarch=${t#*/}
  exe=referee
  [ "$goos" = windows ] && exe=referee.exe
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "-s -w -X github.com/refereehq/referee/internal/cli.Version=$version" \
    -o "$bins/$goos-$goarch/$exe" ./cmd/referee
done

# Each packer reads BINS/<goos>-<goarch>/referee[.exe] and writes its own
# folder of OUTDIR; each lives beside the SDK it packages.
node sdk/js/scripts/pack.mjs --bins "$bins" --version "$version" --out "$out/npm"
python3 sdk/python/scripts/build_wheels.py --bins "$bins" --version "$version" --out "$out/python"
sdk/rust/scripts/package.sh "$version" "$out/rust"

echo "packages: $(find "$out/npm" -name '*.tgz' | wc -l) npm tarballs, $(find "$out/python" -name '*.whl' | wc -l) wheels, the rust crate in $out"
