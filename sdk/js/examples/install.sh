#!/bin/sh
# install.sh DIR [VERSION]: install referee's npm packages from the tarballs in DIR
# (what release/packages.sh writes in OUTDIR/npm) into the current project,
# with no registry, then run the binary through npx.
set -eu
dir=$1
version=${2:-0.1.0-dev}
platform=$(node -p 'process.platform + "-" + process.arch')   # e.g. linux-x64

npm install --offline --no-audit --no-fund \
  "$dir/refereehq-referee-$version.tgz" \
  "$dir/refereehq-referee-$platform-$version.tgz"
npx referee version
