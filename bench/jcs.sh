#!/usr/bin/env bash
# jcs.sh: a large generated jcs corpus, in process and over stdio.
#
# It builds referee and the corpus generator (bench/jcscorpus), writes a
# generated corpus of N vectors for each N in SIZES into a scratch folder,
# and runs each both ways, RUNS times, taking turns, under /usr/bin/time:
#
#   in-process  referee run jcs --corpus DIR -q
#               (the built-in implementation, in referee's own process)
#   stdio       referee run jcs --corpus DIR -q -- referee serve jcs
#               (the same implementation as a child, over the adapter protocol)
#
# (with --max-file-size raised past vectors.json when it is over the
# default 256 MiB, as at 1,000,000 vectors).
#
# Every run must pass every check (exit 0, "N passed"), or the script stops.
# For each size (smallest first) and way it prints the median wall time,
# checks per second, peak memory (max RSS) and that peak over the corpus
# file's size, and the time of the checks alone (the duration the report
# gives, without loading the corpus); then the stdio/in-process ratios, the
# cost per vector (wall time and peak memory over the number of vectors),
# and, from 100,000 vectors up, whether the goals are met. Last, one line
# for each size, the largest last:
#
#   jcs/stdio N=... ratio=R checks-ratio=C in-process=T1s stdio=T2s peak=M1MB,M2MB corpus=CMB
#
# The goals (issue 17): R <= 1.5, and each peak at most twice the corpus.
#
# Usage: bench/jcs.sh             (from anywhere)
#   SIZES="10000 100000"  corpus sizes, in vectors (1000000 takes minutes
#                         and gigabytes)
#   RUNS=3                timed runs of each (the median is reported)
#   BENCH_DIR=DIR         the scratch folder; kept afterwards, and corpora
#                         already generated in it are reused (default: a
#                         mktemp -d, removed on exit)
#
# Exit status: 0 when every run passed (whether or not the goals are met), 1
# when a run failed, 2 when a tool is missing or SIZES or RUNS is not made of
# positive integers.
set -euo pipefail

die() {
  echo "bench/jcs.sh: $*" >&2
  exit "${code:-1}"
}

SIZES=${SIZES:-10000 100000}
RUNS=${RUNS:-3}
for v in $SIZES $RUNS; do
  case $v in
    '' | *[!0-9]* | 0) code=2 die "SIZES and RUNS must be positive integers, not \"$v\"" ;;
  esac
done
SIZES=$(for v in $SIZES; do echo "$v"; done | sort -n | uniq | tr '\n' ' ')
SIZES=${SIZES% }
command -v go >/dev/null || code=2 die "go not found"
[ -x /usr/bin/time ] || code=2 die "GNU time not found at /usr/bin/time (apt-get install time)"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
bench_scratch

(cd "$root" && go build -o "$scratch/referee" ./cmd/referee && go build -o "$scratch/jcscorpus" ./bench/jcscorpus) ||
  die "build failed"
referee=$scratch/referee

median() { printf '%s\n' "$@" | bench_median; }

# once N WAY RUN ARGS...: runs referee ARGS once, stops the script unless
# every check passed, and adds its wall time (s), peak (kB) and checks (s:
# the run's own duration, as the report gives it, without loading the
# corpus) to WAY's (in-process: walls1 peaks1 checks1; stdio: walls2 ...).
once() {
  local n=$1 way=$2 run=$3 w p r
  shift 3
  if ! /usr/bin/time -o "$scratch/time" -f '%e %M' "$referee" "$@" >"$scratch/out" 2>"$scratch/err"; then
    cat "$scratch/out" "$scratch/err" >&2
    die "$way run $run on $n vectors failed"
  fi
  grep -q "^$n passed, 0 failed, 0 not checked, 0 errors" "$scratch/out" ||
    die "$way run $run on $n vectors did not pass every check: $(tail -2 "$scratch/out")"
  read -r w p <"$scratch/time"
  r=$(sed -n 's/^CONFORMANT (\([0-9.]*\)s)$/\1/p' "$scratch/out")
  [ -n "$r" ] || die "$way run $run on $n vectors: no CONFORMANT (duration) line"
  case $way in
    in-process) walls1+=("$w") peaks1+=("$p") checks1+=("$r") ;;
    stdio) walls2+=("$w") peaks2+=("$p") checks2+=("$r") ;;
  esac
  echo "    $way run $run: ${w}s (checks ${r}s), ${p} kB" >&2
}

echo "jcs corpus benchmark: sizes $SIZES, $RUNS runs each; $(nproc) cores, $(go version | cut -d' ' -f3)"
lines=()

for n in $SIZES; do
  dir=$scratch/jcs-$n
  [ -f "$dir/vectors.json" ] || "$scratch/jcscorpus" -n "$n" "$dir" || die "generating $n vectors failed"
  bytes=$(wc -c <"$dir/vectors.json")
  echo "$n vectors, $((bytes / 1000000)) MB of vectors.json:"
  cap=$(((bytes / 1048576 + 1) * 1048576)) # --max-file-size, 256 MiB unless the corpus is larger
  [ "$cap" -gt 268435456 ] || cap=268435456
  # The two ways take turns, so that both meet the same load on a shared
  # machine.
  walls1=() peaks1=() checks1=() walls2=() peaks2=() checks2=()
  for run in $(seq "$RUNS"); do
    once "$n" in-process "$run" run jcs --corpus "$dir" --max-file-size "$cap" -q
    once "$n" stdio "$run" run jcs --corpus "$dir" --max-file-size "$cap" -q -- "$referee" serve jcs
  done
  w1=$(median "${walls1[@]}") p1=$(median "${peaks1[@]}") c1=$(median "${checks1[@]}")
  w2=$(median "${walls2[@]}") p2=$(median "${peaks2[@]}") c2=$(median "${checks2[@]}")
  awk -v n="$n" -v b="$bytes" -v w1="$w1" -v p1="$p1" -v c1="$c1" -v w2="$w2" -v p2="$p2" -v c2="$c2" 'BEGIN {
    printf "  %-11s %7s %11s %9s %15s %9s\n", "", "wall", "checks/s", "peak", "", "checks"
    printf "  %-11s %6.2fs %11.0f %6.0f MB %5.1fx corpus %8.2fs (%.0f/s)\n", "in-process", w1, n / w1, p1 / 1000, p1 * 1000 / b, c1, n / c1
    printf "  %-11s %6.2fs %11.0f %6.0f MB %5.1fx corpus %8.2fs (%.0f/s)\n", "stdio", w2, n / w2, p2 / 1000, p2 * 1000 / b, c2, n / c2
    printf "  stdio/in-process: wall time %.2f, checks alone %.2f\n", w2 / w1, c2 / c1
    printf "  per vector: in-process %.0f us and %.0f bytes of peak, stdio %.0f us and %.0f bytes (the corpus: %.0f bytes)\n", w1 * 1e6 / n, p1 * 1000 / n, w2 * 1e6 / n, p2 * 1000 / n, b / n
    r = w2 / w1; m1 = p1 * 1000 / b; m2 = p2 * 1000 / b
    if (n >= 100000) # the goals are set for 100,000 vectors; below, the fixed cost of start-up weighs
      printf "  goals: stdio/in-process wall <= 1.5: %s (%.2f); peak <= 2x corpus: %s (%.1fx, %.1fx)\n", r <= 1.5 ? "met" : "NOT met", r, m1 <= 2 && m2 <= 2 ? "met" : "NOT met", m1, m2
  }'
  lines+=("$(awk -v n="$n" -v b="$bytes" -v w1="$w1" -v p1="$p1" -v w2="$w2" -v p2="$p2" -v c1="$c1" -v c2="$c2" \
    'BEGIN { printf "jcs/stdio N=%d ratio=%.2f checks-ratio=%.2f in-process=%.2fs stdio=%.2fs peak=%.0fMB,%.0fMB corpus=%.0fMB", n, w2 / w1, c2 / c1, w1, w2, p1 / 1000, p2 / 1000, b / 1000000 }')")
done
printf '%s\n' "${lines[@]}"
