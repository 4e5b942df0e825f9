#!/usr/bin/env bash
# adapter.sh: the adapter boundary against the pipe it runs over.
#
# It builds a trivial Go echo adapter (bench/echoadapter) and a driver
# (bench/adapterbench), then times the same number of echo calls to that
# adapter four ways:
#
#   raw sequential      the driver writes a request line and reads the reply
#                       line, one at a time, checking nothing
#   raw concurrent      the same with 8 requests in flight (a writer and a
#                       reader, one write per request)
#   client sequential   referee's adapter client (adapter.Dial, Client.Call):
#                       ids, per-call timeouts, strict reply parsing, faults
#   client concurrent   the same with 8 calls in flight
#
# Each runs RUNS times, round-robin, after a warm-up of a tenth as many calls;
# it prints every run, the median calls/s of each, and last the line
#
#   adapter/raw sequential=R1 concurrent=R2
#
# where R1 and R2 are the client's median calls/s over the raw pipe's, to two
# decimals. The goal is R1 >= 0.5 and R2 >= 0.5.
#
# Usage: bench/adapter.sh          (from anywhere)
#   CALLS=100000   calls per timed run
#   RUNS=5         timed runs of each (the median is reported)
#   BENCH_DIR=DIR  where the binaries go; kept afterwards (default: a
#                  mktemp -d, removed on exit)
#
# Exit status: 0 when every run completed (whether or not the goal is met),
# 1 when a run failed, 2 when Go is missing or CALLS or RUNS is not a
# positive integer.
set -euo pipefail

die() {
  echo "bench/adapter.sh: $*" >&2
  exit "${code:-1}"
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

CALLS=${CALLS:-100000}
RUNS=${RUNS:-5}
bench_positive CALLS RUNS
command -v go >/dev/null || code=2 die "go not found"
bench_scratch
adapter_build

configs="raw:1 raw:8 client:1 client:8"
results="$scratch/runs.txt"
: >"$results"
echo "adapter benchmark: $CALLS calls per run, $RUNS runs of each; $(nproc) cores, $(go version | cut -d' ' -f3)"
for run in $(seq "$RUNS"); do
  for c in $configs; do
    mode=${c%:*} inflight=${c#*:}
    line=$(adapter_calls "$mode" "$inflight" "$CALLS")
    echo "  run $run: $line"
    echo "$mode $inflight $(calls_per_s "$line")" >>"$results"
  done
done

# median MODE INFLIGHT: the median calls/s of that configuration's runs.
median() {
  awk -v m="$1" -v k="$2" '$1 == m && $2 == k { print $3 }' "$results" | bench_median
}

raw1=$(median raw 1) raw8=$(median raw 8) client1=$(median client 1) client8=$(median client 8)
echo
echo "median calls/s          sequential  8 in flight"
printf '  raw pipe ping-pong  %10s  %11s\n' "$raw1" "$raw8"
printf '  referee client      %10s  %11s\n' "$client1" "$client8"
awk -v c1="$client1" -v r1="$raw1" -v c8="$client8" -v r8="$raw8" \
  'BEGIN { printf "adapter/raw sequential=%.2f concurrent=%.2f\n", c1 / r1, c8 / r8 }'
