#!/usr/bin/env bash
# sdk/js/scripts/test.sh OUTDIR [TEST...]: install the npm packages release/packages.sh
# wrote in OUTDIR/npm into a scratch project from those files, with no
# registry (npm install --offline, an empty npm cache), copy this folder's
# tests and examples beside them, and run the tests with node --test against
# the installed packages (every test/*.test.js, or the TEST files named, as
# test/NAME.test.js). REFEREE_SHARED, when set, adds the upstream corpora.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: sdk/js/scripts/test.sh OUTDIR [TEST...] (OUTDIR: the directory release/packages.sh wrote)}
shift
npmdir=$(cd "$out/npm" && pwd)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "sdk/js: node and npm are needed (Node.js 20 or later)" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "sdk/js: Node.js $(node --version) is too old: 20 or later is needed" >&2
  exit 1
fi
command -v tar >/dev/null || { apt-get update -qq && apt-get install -y -qq tar; }

main=
for f in "$npmdir"/refereehq-referee-*.tgz; do
  case ${f##*/} in
    refereehq-referee-darwin-* | refereehq-referee-linux-* | refereehq-referee-win32-*) ;;
    *) main=$f ;;
  esac
done
if [ -z "$main" ]; then
  echo "sdk/js: no refereehq-referee-VERSION.tgz in $npmdir" >&2
  exit 1
fi
version=${main##*/refereehq-referee-}
version=${version%.tgz}
platform=$(node -p 'process.platform + "-" + process.arch')
plat=$npmdir/refereehq-referee-$platform-$version.tgz
if [ ! -f "$plat" ]; then
  echo "sdk/js: no package for this platform ($platform) in $npmdir: $plat" >&2
  exit 1
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# An empty cache of our own: nothing can come from an earlier install.
export npm_config_cache="$scratch/.npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
cd "$scratch"
npm init -y >/dev/null
npm pkg set type=module
npm install --offline "$main" "$plat" >/dev/null
cp -R "$here/test" "$here/examples" "$scratch/"

tests=(test/*.test.js)
if [ $# -gt 0 ]; then
  tests=()
  for t in "$@"; do tests+=("test/${t%.test.js}.test.js"); done
fi

unset REFEREE_BIN
export REFEREE_SDK_TARBALLS=$npmdir REFEREE_SDK_VERSION=$version
start=$(date +%s)
status=0
node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$scratch/tap.txt" "${tests[@]}" || status=$?
count() { sed -n "s/^# $1 \([0-9]*\)$/\1/p" "$scratch/tap.txt" | tail -1; }
echo "sdk/js: $(count tests) tests: $(count pass) passed, $(count fail) failed, $(count skipped) skipped," \
  "against @refereehq/referee $version installed offline for $platform ($(($(date +%s) - start))s)"
exit "$status"
