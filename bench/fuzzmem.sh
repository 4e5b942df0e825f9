#!/usr/bin/env bash
# fuzzmem.sh: the peak memory of `referee fuzz` against `referee run`, on the
# same adapter, one whose every answer is large.
#
# It builds referee and bench/bigreply (a jcs adapter that answers every
# input with a string of SIZE bytes, a wrong canonical text each time, with
# concurrency 8), then, RUNS times each, taking turns, runs
#
#   referee run jcs -q -- bigreply -size SIZE          (566 checks, all failing)
#   referee fuzz jcs --count COUNT -- bigreply -size SIZE
#
# under GNU time, and prints every run's maximum resident set, the medians
# side by side, and last the line
#
#   fuzzmem size=SIZE count=COUNT run=R MB fuzz=F MB ratio=F/R goal (fuzz <= 2x run): met|NOT met
#
# Both must exit 1 (every answer is wrong); anything else stops the script.
#
# Usage: bench/fuzzmem.sh          (from anywhere)
#   SIZE=2097152    bytes of each answer (2 MiB)
#   COUNT=256       inputs the fuzz run generates
#   RUNS=3          runs of each (the median is reported)
#   REFEREE=PATH    measure this referee binary instead of building one
#                   (an older build, to compare before and after)
#   BENCH_DIR=DIR   where the binaries go; kept afterwards (default: a
#                   mktemp -d, removed on exit)
#
# Exit status: 0 when every run gave its verdict (whether or not the goal
# is met), 1 when one did not, 2 when a tool is missing or SIZE, COUNT or
# RUNS is not a positive integer.
set -euo pipefail

die() {
  echo "bench/fuzzmem.sh: $*" >&2
  exit "${code:-1}"
}

SIZE=${SIZE:-2097152}
COUNT=${COUNT:-256}
RUNS=${RUNS:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

bench_positive SIZE COUNT RUNS
command -v go >/dev/null || code=2 die "go not found"
[ -x /usr/bin/time ] || code=2 die "GNU time not found at /usr/bin/time (apt-get install time)"

bench_scratch

(cd "$root" && go build -o "$scratch/bigreply" ./bench/bigreply) || die "building bench/bigreply failed"
if [ -n "${REFEREE:-}" ]; then
  referee=$REFEREE
  [ -x "$referee" ] || code=2 die "REFEREE=$referee is not an executable"
else
  (cd "$root" && go build -o "$scratch/referee" ./cmd/referee) || die "building referee failed"
  referee=$scratch/referee
fi

median() { printf '%s\n' "$@" | bench_median; }

# once WHAT ARGS...: runs referee ARGS, which must exit 1, and prints its
# peak in kB.
once() {
  local what=$1 rc=0
  shift
  /usr/bin/time -o "$scratch/time" -f '%M' "$referee" "$@" >"$scratch/out" 2>"$scratch/err" || rc=$?
  if [ "$rc" != 1 ]; then
    tail -5 "$scratch/out" "$scratch/err" >&2
    die "$what exited $rc, want 1 (every answer is wrong)"
  fi
  tail -1 "$scratch/time"
}

echo "fuzz memory benchmark: answers of $SIZE bytes, $COUNT fuzz inputs, $RUNS runs each; $(nproc) cores, $(go version | cut -d' ' -f3)"
echo "referee: $("$referee" version | head -1)"
runs=() fuzzes=()
for i in $(seq "$RUNS"); do
  r=$(once run run jcs -q -- "$scratch/bigreply" -size "$SIZE")
  f=$(once fuzz fuzz jcs --count "$COUNT" -- "$scratch/bigreply" -size "$SIZE")
  echo "  run $i: referee run ${r} kB, referee fuzz ${f} kB"
  runs+=("$r") fuzzes+=("$f")
done
r=$(median "${runs[@]}") f=$(median "${fuzzes[@]}")
awk -v r="$r" -v f="$f" -v size="$SIZE" -v count="$COUNT" 'BEGIN {
  printf "%-28s %10s\n", "max resident (median)", "MB"
  printf "%-28s %10.0f\n", "referee run jcs (566 checks)", r / 1000
  printf "%-28s %10.0f\n", "referee fuzz jcs", f / 1000
  printf "fuzzmem size=%d count=%d run=%.0fMB fuzz=%.0fMB ratio=%.2f goal (fuzz <= 2x run): %s\n", size, count, r / 1000, f / 1000, f / r, f <= 2 * r ? "met" : "NOT met"
}'
