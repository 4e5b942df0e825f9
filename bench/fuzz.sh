#!/usr/bin/env bash
# fuzz.sh: the fuzzer's throughput against the adapter boundary's.
#
# It builds referee, and the echo adapter and driver of bench/adapter.sh
# (bench/lib.sh), then, RUNS times, round-robin, measures
#
#   adapter client      referee's adapter client with 8 calls in flight
#                       against the trivial echo adapter (as bench/adapter.sh
#                       does), in calls/s
#   SUITE in process    referee fuzz SUITE --time TIME, the built-in
#                       implementation in referee's process, in inputs/s
#   SUITE over stdio    referee fuzz SUITE --time TIME -- referee serve SUITE,
#                       in inputs/s
#
# for every suite in SUITES. Each fuzz run must exit 0 (the reference does
# not diverge from itself). With GNU time at /usr/bin/time, each run over
# stdio also has the CPU time (user and system) of the fuzzer's process and
# of the implementation's, which the medians show for an input: where the
# fuzzer costs more than the implementation it drives, the fuzzer is what
# limits the rate. It prints every run, the medians side by side, and last
# the line
#
#   fuzz/adapter ratio=R
#
# where R is jcs's median inputs/s over stdio over the adapter client's
# median calls/s, to two decimals. The goal is R >= 0.25.
#
# Usage: bench/fuzz.sh          (from anywhere)
#   RUNS=3         runs of each (the median is reported)
#   TIME=5s        how long each fuzz run generates inputs (--time)
#   COUNT=N        bound each fuzz run by N inputs (--count) instead
#   CALLS=100000   calls per adapter client run
#   SUITES="jcs crosslink fablepool cdc cgp-vectors"   (jcs is always measured)
#   REFEREE=PATH   measure this referee binary instead of building one
#   BEFORE=PATH    also measure this referee binary (an earlier build), in the
#                  same runs, one after the other: the medians then show both
#                  and the speed-up of each suite (after / before), and the
#                  line before the last is "fuzz/before ratio=R", the least
#                  speed-up of any suite and way
#   BENCH_DIR=DIR  where the binaries go; kept afterwards (default: a
#                  mktemp -d, removed on exit)
#
# Exit status: 0 when every run completed (whether or not the goal is met),
# 1 when a run failed, 2 when Go is missing or a setting is not valid.
set -euo pipefail

die() {
  echo "bench/fuzz.sh: $*" >&2
  exit "${code:-1}"
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

RUNS=${RUNS:-3}
CALLS=${CALLS:-100000}
TIME=${TIME:-5s}
COUNT=${COUNT:-}
SUITES=${SUITES:-jcs crosslink fablepool cdc cgp-vectors}
bench_positive RUNS CALLS
[ -z "$COUNT" ] || bench_positive COUNT
case " $SUITES " in *" jcs "*) ;; *) SUITES="jcs $SUITES" ;; esac
command -v go >/dev/null || code=2 die "go not found"
bench_scratch
adapter_build
if [ -n "${REFEREE:-}" ]; then
  referee=$REFEREE
  [ -x "$referee" ] || code=2 die "REFEREE=$referee is not an executable"
else
  (cd "$root" && go build -o "$scratch/referee" ./cmd/referee) || die "building referee failed"
  referee=$scratch/referee
fi
before=
if [ -n "${BEFORE:-}" ]; then
  before=$BEFORE
  [ -x "$before" ] || code=2 die "BEFORE=$before is not an executable"
fi
bound=(--time "$TIME")
[ -z "$COUNT" ] || bound=(--count "$COUNT")

gnutime=
if /usr/bin/time --version 2>&1 | grep -q 'GNU Time'; then
  gnutime=/usr/bin/time
fi

# fuzzrate REFEREE SUITE [-- ADAPTER...]: one fuzz run's inputs/s, from its
# first line "referee fuzz SUITE: seed 1, N inputs in Ds (R inputs/s), ...".
# With timed set (an array), the fuzz command runs under it.
timed=()
fuzzrate() {
  local bin=$1 suite=$2 rc=0 first
  shift 2
  "${timed[@]}" "$bin" fuzz "$suite" "${bound[@]}" "$@" >"$scratch/out" 2>"$scratch/err" || rc=$?
  if [ "$rc" != 0 ]; then
    tail -n 20 "$scratch/out" "$scratch/err" >&2
    die "$bin fuzz $suite $* exited $rc, want 0"
  fi
  first=$(head -1 "$scratch/out")
  case $first in
    *" inputs/s)"*) ;;
    *) die "$bin fuzz $suite $*: no rate in \"$first\"" ;;
  esac
  first=${first%% inputs/s)*}
  echo "${first##*(}"
}

results="$scratch/fuzzruns.txt"
: >"$results"
echo "fuzz benchmark: ${bound[*]} per fuzz run, $CALLS adapter calls, $RUNS runs of each; $(nproc) cores, $(go version | cut -d' ' -f3)"
echo "referee: $("$referee" version | head -1) ($referee)"
[ -z "$before" ] || echo "before:  $("$before" version | head -1) ($before)"
for run in $(seq "$RUNS"); do
  line=$(adapter_calls client 8 "$CALLS")
  echo "  run $run: adapter $line"
  echo "adapter client $(calls_per_s "$line")" >>"$results"
  for s in $SUITES; do
    if [ -n "$before" ]; then
      p=$(fuzzrate "$before" "$s")
      o=$(fuzzrate "$before" "$s" -- "$before" serve "$s")
      echo "  run $run: $s before: in process $p inputs/s, over stdio $o inputs/s"
      echo "$s before-in-process $p" >>"$results"
      echo "$s before-stdio $o" >>"$results"
    fi
    p=$(fuzzrate "$referee" "$s")
    if [ -n "$gnutime" ]; then
      # The fuzzer's rusage includes the child it waited for: the
      # implementation's CPU is taken from it.
      timed=("$gnutime" -o "$scratch/all.cpu" -f '%U %S')
      o=$(fuzzrate "$referee" "$s" -- "$gnutime" -o "$scratch/impl.cpu" -f '%U %S' "$referee" serve "$s")
      timed=()
      n=$(head -1 "$scratch/out" | sed -n 's/^[^,]*, \([0-9]*\) inputs in .*/\1/p')
      [ -n "$n" ] && [ "$n" -gt 0 ] || die "$s over stdio: no input count in \"$(head -1 "$scratch/out")\""
      read -r au as <"$scratch/all.cpu" || die "$s over stdio: no CPU time from $gnutime"
      read -r iu is <"$scratch/impl.cpu" || die "$s over stdio: no CPU time of the implementation from $gnutime"
      cpu=$(awk -v au="$au" -v as="$as" -v iu="$iu" -v is="$is" -v n="$n" 'BEGIN { i = iu + is; printf "%.0f %.0f", (au + as - i) / n * 1e6, i / n * 1e6 }')
      echo "  run $run: $s in process $p inputs/s, over stdio $o inputs/s; CPU an input over stdio: fuzzer ${cpu% *} µs, implementation ${cpu#* } µs"
      echo "$s fuzzer-cpu ${cpu% *}" >>"$results"
      echo "$s impl-cpu ${cpu#* }" >>"$results"
    else
      o=$(fuzzrate "$referee" "$s" -- "$referee" serve "$s")
      echo "  run $run: $s in process $p inputs/s, over stdio $o inputs/s"
    fi
    echo "$s in-process $p" >>"$results"
    echo "$s stdio $o" >>"$results"
  done
done

median() { awk -v a="$1" -v b="$2" '$1 == a && $2 == b { print $3 }' "$results" | bench_median; }

client=$(median adapter client)
echo
if [ -z "$before" ]; then
  echo "median                   in process    over stdio   (inputs/s)"
  for s in $SUITES; do
    printf '  %-20s %12s  %12s\n' "$s" "$(median "$s" in-process)" "$(median "$s" stdio)"
  done
else
  echo "median inputs/s              in process                   over stdio"
  echo "                     before    after  speed-up    before    after  speed-up"
  # One line a suite: its name and medians; one awk prints the table and,
  # kept for after the client's line, the least speed-up.
  for s in $SUITES; do
    echo "$s $(median "$s" before-in-process) $(median "$s" in-process) $(median "$s" before-stdio) $(median "$s" stdio)"
  done | awk -v out="$scratch/least" '{
    p = $3 / $2; o = $5 / $4
    printf "  %-16s %8d %8d %8.2fx  %8d %8d %8.2fx\n", $1, $2, $3, p, $4, $5, o
    if (NR == 1 || p < least) least = p
    if (o < least) least = o
  } END { printf "fuzz/before ratio=%.2f\n", least > out }'
fi
printf '  %-20s %12s  %12s   (calls/s, 8 in flight)\n' "adapter client" "" "$client"
if [ -n "$gnutime" ]; then
  echo
  echo "median CPU an input, over stdio (µs)   fuzzer   implementation   fuzzer/implementation"
  for s in $SUITES; do
    f=$(median "$s" fuzzer-cpu) i=$(median "$s" impl-cpu)
    awk -v s="$s" -v f="$f" -v i="$i" 'BEGIN { printf "  %-36s %7d %16d %23.1f\n", s, f, i, (i > 0 ? f / i : 0) }'
  done
fi
[ -z "$before" ] || cat "$scratch/least"
awk -v f="$(median jcs stdio)" -v c="$client" 'BEGIN { printf "fuzz/adapter ratio=%.2f\n", f / c }'
