#!/usr/bin/env bash
# cdc.sh: times referee's cdc suite against the Cognitive Delivery Contract's
# own conformance runner, side by side on the same corpus.
#
# It installs @cognitive-delivery/contract@1.0.2 (the release on npm, with
# upstream's runner, its Ajv adapter and a smaller corpus than 1.2.1) and ajv
# into a scratch folder, builds referee once, and then times:
#
#   1. upstream's runner with its Ajv adapter, on the 1.0.2 package (the
#      worked example of docs/implementing.md, run-corpus.mjs);
#   2. referee run cdc --no-supplement --corpus <that package>, with the
#      built-in adapter (upstream's corpus alone, as upstream's runner runs
#      it: referee's own supplementary cases are left out);
#   3. the same, with the Node adapter (examples/adapters/node/cdc.mjs);
#   4. referee run cdc --no-supplement --corpus ${REFEREE_SHARED:-../shared}/corpora/cdc
#      (the 1.2.1 corpus), built-in adapter, referee alone: upstream's 1.2.1
#      runner is not on npm, so that row is compared with the figures in
#      ../shared/notes/cdc.md.
#
# Each command runs once to confirm its verdict (upstream's JSON line; for
# referee exit 0 and the counts of its --format native report), then RUNS
# more times under /usr/bin/time. Every timed run must exit 0 and print the
# same report as the confirmed one, so a broken run is never timed as a fast
# one. It prints the median wall time and peak memory (max RSS) of each, the
# ratios against upstream, and whether the goal is met: the built-in adapter
# at least 10 times faster than upstream's runner on the same corpus, at a
# third of its memory or less.
#
# Usage: bench/cdc.sh              (from anywhere)
#   RUNS=5              timed runs per command (the median is reported)
#   BENCH_DIR=DIR       the scratch folder; kept afterwards, and an existing
#                       install in it is reused (default: a mktemp -d,
#                       removed on exit)
#   REFEREE_SHARED=DIR  the shared directory (default ../shared)
#
# Exit status: 0 when every verdict was confirmed (whether or not the goal is
# met; the last line says which), 1 when a command's verdict was wrong, 2 when
# something needed is missing.
set -euo pipefail

die() {
  echo "bench/cdc.sh: $*" >&2
  exit "${code:-1}"
}

RUNS=${RUNS:-5}
case $RUNS in
  '' | *[!0-9]* | 0) code=2 die "RUNS must be a positive integer, not \"$RUNS\"" ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

for tool in go node npm; do
  command -v "$tool" >/dev/null || code=2 die "$tool not found"
done
[ -x /usr/bin/time ] || code=2 die "/usr/bin/time not found (GNU time; apt-get install time)"

shared=${REFEREE_SHARED:-../shared}
shared_corpus=$shared/corpora/cdc

if [ -n "${BENCH_DIR:-}" ]; then
  mkdir -p "$BENCH_DIR"
  scratch=$(cd "$BENCH_DIR" && pwd)
else
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/referee-bench-cdc.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
fi
echo "scratch: $scratch"

# --- setup ------------------------------------------------------------------

pkg=$scratch/node_modules/@cognitive-delivery/contract
installed() {
  node -e 'const [, p, v] = process.argv; process.exit(require(p).version === v ? 0 : 1)' "$1/package.json" "$2" 2>/dev/null
}
if installed "$pkg" 1.0.2 && installed "$scratch/node_modules/ajv" 8.20.0; then
  echo "npm: @cognitive-delivery/contract@1.0.2 and ajv@8.20.0 already in $scratch"
else
  [ -f "$scratch/package.json" ] || echo '{"private": true, "description": "referee bench/cdc.sh scratch"}' >"$scratch/package.json"
  (cd "$scratch" && npm install --no-audit --no-fund @cognitive-delivery/contract@1.0.2 ajv@8.20.0)
fi

# Upstream's worked example (docs/implementing.md, "A worked example"): its
# own runner and its own Ajv adapter, from the installed package.
cat >"$scratch/run-corpus.mjs" <<'EOF'
import { runConformance } from '@cognitive-delivery/contract/conformance/runner.mjs';
import { createAjvAdapter } from '@cognitive-delivery/contract/conformance/ajv-adapter.mjs';
const report = await runConformance(await createAjvAdapter());
console.log(JSON.stringify({ ...report, failures: report.failures.length }));
process.exit(report.failures.length === 0 ? 0 : 1);
EOF

echo "go build -o $scratch/referee ./cmd/referee"
go build -o "$scratch/referee" ./cmd/referee
referee=$scratch/referee

node_adapter=examples/adapters/node/cdc.mjs
if [ ! -d examples/adapters/node/node_modules/ajv ]; then
  echo "npm ci in examples/adapters/node (the Node adapter's ajv)"
  npm ci --prefix examples/adapters/node --no-audit --no-fund
fi

# --- verdicts ---------------------------------------------------------------

# confirm NAME CMD...: runs CMD once; it must exit 0. Its stdout is kept in
# $scratch/NAME.out, the report every timed run must print again.
confirm() {
  local name=$1
  shift
  local status=0
  "$@" >"$scratch/$name.out" 2>"$scratch/$name.err" || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$scratch/$name.out" "$scratch/$name.err" >&2
    die "$name: exited $status when confirming its verdict: $*"
  fi
}

# check_native NAME WANT: NAME.out must be a referee native report with no
# failures; WANT is upstream's JSON line to match (its counts and flags), or
# "all" for every flag true.
check_native() {
  node - "$scratch/$1.out" "$2" <<'EOF' || die "$1: wrong verdict (report in $scratch/$1.out)"
const fs = require('node:fs');
const [, , file, want] = process.argv;
const r = JSON.parse(fs.readFileSync(file, 'utf8'));
const problems = [];
if (!Array.isArray(r.failures) || r.failures.length !== 0) problems.push(`failures: ${JSON.stringify(r.failures)}`);
if (want === 'all') {
  if (!(r.validCount > 0 && r.invalidCount > 0)) problems.push(`counts ${r.validCount}/${r.invalidCount}`);
  for (const k of ['canonicalChecked', 'narrowingChecked', 'signaturesChecked', 'rulesChecked', 'errorPathsChecked']) {
    if (r[k] !== true) problems.push(`${k}: ${r[k]}`);
  }
} else {
  const u = JSON.parse(want);
  for (const [k, v] of Object.entries(u)) {
    if (k !== 'failures' && r[k] !== v) problems.push(`${k}: ${r[k]}, upstream ${v}`);
  }
}
const flags = Object.entries(r).filter(([k]) => k.endsWith('Checked')).map(([k, v]) => `${k.replace('Checked', '')} ${v}`);
console.log(`  valid ${r.validCount}, invalid ${r.invalidCount}, ${flags.join(', ')}, ${r.failures.length} failures`);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
EOF
}

echo
echo "verdicts:"
# Node resolves the package from run-corpus.mjs's own folder, whatever the
# working directory.
upstream=(node "$scratch/run-corpus.mjs")
echo "upstream runner + Ajv adapter, 1.0.2: node run-corpus.mjs"
confirm upstream "${upstream[@]}"
upstream_line=$(tail -n 1 "$scratch/upstream.out")
echo "  $upstream_line"
node -e 'const r = JSON.parse(process.argv[1]); process.exit(r.failures === 0 && r.validCount > 0 && r.invalidCount > 0 ? 0 : 1)' "$upstream_line" ||
  die "upstream's runner did not pass its own corpus: $upstream_line"

echo "referee, built-in adapter, 1.0.2: referee run cdc --no-supplement --corpus <package> --format native"
confirm builtin "$referee" run cdc --no-supplement --corpus "$pkg" --format native
check_native builtin "$upstream_line"

echo "referee + Node adapter, 1.0.2: referee run cdc --no-supplement --corpus <package> --format native -- node $node_adapter"
confirm node "$referee" run cdc --no-supplement --corpus "$pkg" --format native -- node "$node_adapter"
check_native node "$upstream_line"

have_shared=
if [ -d "$shared_corpus/schemas" ]; then
  have_shared=1
  echo "referee, built-in adapter, 1.2.1: referee run cdc --no-supplement --corpus $shared_corpus --format native"
  confirm shared "$referee" run cdc --no-supplement --corpus "$shared_corpus" --format native
  check_native shared all
else
  echo "referee, built-in adapter, 1.2.1: skipped: $shared_corpus not found (set REFEREE_SHARED)"
fi

# --- timing -----------------------------------------------------------------

median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure NAME CMD...: runs CMD $RUNS times under /usr/bin/time; each run must
# exit 0 and print NAME.out again. Sets WALL (s) and KB (max RSS, kB) to the
# medians and RAW to every run's figures.
measure() {
  local name=$1 i w k walls=() kbs=()
  shift
  for ((i = 1; i <= RUNS; i++)); do
    if ! /usr/bin/time -f '%e %M' -o "$scratch/$name.time" "$@" >"$scratch/$name.run" 2>"$scratch/$name.err"; then
      cat "$scratch/$name.err" >&2
      die "$name: timed run $i failed: $*"
    fi
    cmp -s "$scratch/$name.run" "$scratch/$name.out" || die "$name: timed run $i printed another report than the confirmed one (see $scratch/$name.run)"
    read -r w k <"$scratch/$name.time"
    walls+=("$w")
    kbs+=("$k")
  done
  WALL=$(median "${walls[@]}")
  KB=$(median "${kbs[@]}")
  RAW="wall ${walls[*]} s; max RSS ${kbs[*]} kB"
}

echo
echo "timing: $RUNS runs each"
declare -A wall kb raw
time_row() {
  local name=$1
  shift
  measure "$name" "$@"
  wall[$name]=$WALL kb[$name]=$KB raw[$name]=$RAW
  echo "  $name: ${raw[$name]}"
}
time_row upstream "${upstream[@]}"
time_row builtin "$referee" run cdc --no-supplement --corpus "$pkg" --format native
time_row node "$referee" run cdc --no-supplement --corpus "$pkg" --format native -- node "$node_adapter"
if [ -n "$have_shared" ]; then
  time_row shared "$referee" run cdc --no-supplement --corpus "$shared_corpus" --format native
fi

# --- the table --------------------------------------------------------------

# Upstream's own figures, from ../shared/notes/cdc.md and the issue: a 2-core
# machine, Node v20.20.2, ajv 8.20.0 (MB as 1,000 kB of max RSS).
notes_102_wall=0.62 notes_102_mb=67
notes_121_wall=1.00 notes_121_mb=80

# row LABEL WALL MB BASE_WALL BASE_MB [MARK]
row() {
  awk -v l="$1" -v w="$2" -v m="$3" -v bw="${4:-}" -v bm="${5:-}" -v mark="${6:-}" 'BEGIN {
    if (bw == "") { printf "%-46s %7.2f %8.1f\n", l, w, m; exit }
    printf "%-46s %7.2f %8.1f %8.1fx%-1s %7.2f%s\n", l, w, m, bw / (w < 0.01 ? 0.01 : w), mark, m / bm, mark
  }'
}
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1000 }'; }

up_mb=$(mb "${kb[upstream]}")
echo
echo "cdc benchmark: medians of $RUNS run(s); $(nproc) cores, node $(node --version), ajv 8.20.0, $(go env GOVERSION)"
printf '%-46s %7s %8s %10s %8s\n' "" "wall s" "peak MB" "speed-up" "memory"
row "upstream runner + Ajv adapter, 1.0.2" "${wall[upstream]}" "$up_mb" "${wall[upstream]}" "$up_mb"
row "referee, built-in adapter, 1.0.2" "${wall[builtin]}" "$(mb "${kb[builtin]}")" "${wall[upstream]}" "$up_mb"
row "referee + Node adapter, 1.0.2" "${wall[node]}" "$(mb "${kb[node]}")" "${wall[upstream]}" "$up_mb"
if [ -n "$have_shared" ]; then
  row "referee, built-in adapter, shared 1.2.1" "${wall[shared]}" "$(mb "${kb[shared]}")" "$notes_121_wall" "$notes_121_mb" "*"
fi
row "upstream runner, 1.0.2 (notes, for reference)" "$notes_102_wall" "$notes_102_mb"
row "upstream runner, 1.2.1 (notes, for reference)" "$notes_121_wall" "$notes_121_mb"
echo "speed-up is upstream's wall time over the row's; memory is the row's peak over upstream's."
if [ -n "$have_shared" ]; then
  echo "* against upstream's 1.2.1 figures from the notes: its 1.2.1 runner is not on npm, so it is not run here."
fi

verdict() { # verdict WALL MB BASE_WALL BASE_MB: "met (Nx, F)" or "NOT met (Nx, F)"
  awk -v w="$1" -v m="$2" -v bw="$3" -v bm="$4" 'BEGIN {
    s = bw / (w < 0.01 ? 0.01 : w); f = m / bm
    printf "%s (%.1fx, %.2f)", (s >= 10 && f <= 1 / 3) ? "met" : "NOT met", s, f
  }'
}
echo
line="goal (built-in adapter >= 10x faster than upstream's runner, <= 1/3 of its memory):"
line+=" $(verdict "${wall[builtin]}" "$(mb "${kb[builtin]}")" "${wall[upstream]}" "$up_mb") on the 1.0.2 package side by side"
if [ -n "$have_shared" ]; then
  line+="; $(verdict "${wall[shared]}" "$(mb "${kb[shared]}")" "$notes_121_wall" "$notes_121_mb") on the 1.2.1 corpus against the notes' 1.00 s and 80 MB"
fi
echo "$line"
