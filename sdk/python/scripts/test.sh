#!/usr/bin/env bash
# sdk/python/scripts/test.sh OUTDIR: install this platform's referee wheel from
# OUTDIR/python (as release/packages.sh wrote it) into a fresh venv, with no package
# index, and run the SDK's pytest suite with that venv's Python: the wheel's binary and
# library against referee's own reference implementation, an honest JCS in Python and a
# naive one whose failures the tests predict.
set -euo pipefail
sdk=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: sdk/python/scripts/test.sh OUTDIR}
out=$(cd "$out" && pwd)
py=/usr/bin/python3 # Debian's, whose python3-pytest the venv sees

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() { # apt_install PACKAGE: install it, updating the lists once if needed
  as_root apt-get install -y -qq "$1" >/dev/null 2>&1 ||
    { as_root apt-get update -qq && as_root apt-get install -y -qq "$1" >/dev/null; }
}
"$py" -c 'import pytest' 2>/dev/null || apt_install python3-pytest
"$py" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv

# This platform's wheel tag, from the table the wheels were built with.
tag=$("$py" - "$sdk/src/referee/_platforms.py" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("p", sys.argv[1])
p = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p)
entry = p.PLATFORMS.get(p.current())
if entry is None:
    sys.exit("test.sh: no referee wheel is built for this platform, %s" % p.current())
print(entry[0])
PY
)
shopt -s nullglob
wheels=("$out"/python/referee-*-py3-none-"$tag".whl)
shopt -u nullglob
if [ ${#wheels[@]} -ne 1 ]; then
  echo "test.sh: want one wheel tagged $tag in $out/python, found ${#wheels[@]}: ${wheels[*]:-none}" >&2
  exit 1
fi
wheel=${wheels[0]}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$py" -m venv --system-site-packages "$scratch/venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$scratch/venv/bin/pip" install -q --no-index "$wheel"
echo "installed $(basename "$wheel"): $("$scratch/venv/bin/referee" version | head -1)"

# Run from the scratch directory, so that `import referee` is the installed package.
set +e
(cd "$scratch" && PYTHONDONTWRITEBYTECODE=1 REFEREE_SDK_WHEEL="$wheel" \
  "$scratch/venv/bin/python" -m pytest "$sdk/tests" -q -rfEs -o cache_dir="$scratch/cache" 2>&1) | tee "$scratch/log"
rc=${PIPESTATUS[0]}
set -e
echo "sdk/python: $(grep -E '^=*.*(passed|failed|error)' "$scratch/log" | tail -1 | tr -d '=' | sed 's/^ *//') ($(basename "$wheel"))"
exit "$rc"
