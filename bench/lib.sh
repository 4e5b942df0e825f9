# lib.sh: what the bench scripts share. It is sourced (". bench/lib.sh"),
# not run, by a script that has set "set -euo pipefail" and defined
# die (which exits with ${code:-1}).
#
#   bench_positive VAR...      dies (status 2) unless each VAR holds a positive integer
#   bench_scratch              sets root (the repository) and scratch ($BENCH_DIR, kept,
#                              or a mktemp -d removed on exit)
#   bench_median               the median of the numbers on stdin, one a line (of two
#                              middle ones, their mean: whole unless one has decimals)
#   adapter_build              builds bench/echoadapter and bench/adapterbench into $scratch
#   adapter_calls MODE N CALLS one run of adapterbench: MODE raw or client, N calls in
#                              flight, CALLS timed calls; prints its line
#   calls_per_s LINE           the calls/s of such a line

bench_positive() {
  local v
  for v in "$@"; do
    case ${!v} in
      '' | *[!0-9]* | 0) code=2 die "$v must be a positive integer, not \"${!v}\"" ;;
    esac
  done
}

bench_scratch() {
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(cd "$here/.." && pwd)
  if [ -n "${BENCH_DIR:-}" ]; then
    mkdir -p "$BENCH_DIR"
    scratch=$(cd "$BENCH_DIR" && pwd)
  else
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
  fi
}

bench_median() {
  sort -n | awk '{ v[NR] = $1 } END {
    if (NR % 2) { print v[(NR + 1) / 2]; exit }
    a = v[NR / 2]; b = v[NR / 2 + 1]
    printf (a b ~ /[.]/ ? "%.3f\n" : "%.0f\n"), (a + b) / 2
  }'
}

adapter_build() {
  (cd "$root" && go build -o "$scratch/echoadapter" ./bench/echoadapter && go build -o "$scratch/adapterbench" ./bench/adapterbench) ||
    die "building bench/echoadapter and bench/adapterbench failed"
}

adapter_calls() {
  "$scratch/adapterbench" -mode "$1" -inflight "$2" -calls "$3" -- "$scratch/echoadapter" ||
    die "adapterbench, $1 with $2 in flight, failed"
}

calls_per_s() { echo "${1##*calls/s=}"; }
