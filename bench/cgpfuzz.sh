#!/usr/bin/env bash
# cgpfuzz.sh: a long `referee fuzz cgp` run against referee's honest
# provider, over stdio (a process per session) and over HTTP (`referee
# serve cgp --http`), with the sessions per second of each.
#
# It builds referee from this checkout into a scratch folder, then runs
# SESSIONS sessions from SEED over stdio and SESSIONS from SEED+1 over
# HTTP, prints each summary, and last the line
#
#   cgpfuzz sessions=N stdio=R1/s http=R2/s findings=F
#
# The honest provider must break no rule: F is 0.
#
# Usage: bench/cgpfuzz.sh          (from anywhere)
#   SESSIONS=5000  sessions per transport
#   SEED=7         the stdio run's seed (HTTP's is SEED+1)
#   PARALLEL=      sessions at once (default: referee's)
#   BENCH_DIR=DIR  where referee goes; kept afterwards (default: a
#                  mktemp -d, removed on exit)
#
# Exit status: 0 when both runs found nothing, 1 when one found something
# or could not run, 2 when Go is missing or SESSIONS or SEED is not a
# number.
set -euo pipefail

die() {
  echo "bench/cgpfuzz.sh: $*" >&2
  exit "${code:-1}"
}

SESSIONS=${SESSIONS:-5000}
SEED=${SEED:-7}
case $SESSIONS in '' | *[!0-9]* | 0) code=2 die "SESSIONS must be a positive integer, not \"$SESSIONS\"" ;; esac
case $SEED in '' | *[!0-9]*) code=2 die "SEED must be a number, not \"$SEED\"" ;; esac
command -v go >/dev/null || code=2 die "go not found"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
bench_scratch # its trap is replaced by cleanup's, which removes the scratch too
server=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [ -z "${BENCH_DIR:-}" ]; then rm -rf "$scratch"; fi
}
trap cleanup EXIT

(cd "$root" && go build -o "$scratch/referee" ./cmd/referee) || die "go build failed"
referee=$scratch/referee
extra=()
if [ -n "${PARALLEL:-}" ]; then extra=(--parallel "$PARALLEL"); fi

# rate reads "N inputs in D (R inputs/s)" from a summary's first line.
rate() { sed -n '1s/.*(\([0-9]*\) inputs\/s).*/\1/p' "$1"; }
# found counts a summary's findings.
found() { grep -c '^  [A-Z ]*(\(must\|should\|may\)) ' "$1" || true; }

status=0
echo "== stdio: $SESSIONS sessions, seed $SEED"
"$referee" fuzz cgp --count "$SESSIONS" --seed "$SEED" "${extra[@]}" >"$scratch/stdio.txt" 2>&1 || status=1
cat "$scratch/stdio.txt"

port=$((20000 + RANDOM % 20000))
"$referee" serve cgp --http "127.0.0.1:$port" >"$scratch/serve.log" 2>&1 &
server=$!
for _ in $(seq 50); do
  grep -q 'serving' "$scratch/serve.log" 2>/dev/null && break
  sleep 0.1
done
echo "== http: $SESSIONS sessions, seed $((SEED + 1))"
"$referee" fuzz cgp --count "$SESSIONS" --seed "$((SEED + 1))" "${extra[@]}" --url "http://127.0.0.1:$port/" >"$scratch/http.txt" 2>&1 || status=1
cat "$scratch/http.txt"

findings=$(($(found "$scratch/stdio.txt") + $(found "$scratch/http.txt")))
echo "cgpfuzz sessions=$SESSIONS stdio=$(rate "$scratch/stdio.txt")/s http=$(rate "$scratch/http.txt")/s findings=$findings"
exit "$status"
