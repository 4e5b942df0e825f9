#!/usr/bin/env bash
# startup.sh: how long `referee version` takes against a Go hello world.
#
# It builds three static binaries (CGO_ENABLED=0), each in a scratch
# folder: referee from this checkout, a hello world printing one line, and
# the floor: a program that links every standard and third-party package
# referee links (net/http, crypto/tls, html/template, cobra...) and prints
# one line, running none of referee's code, so that what is left above it
# is referee's own. Then, ROUNDS times, it runs each one EXECS times in a
# row and takes the wall time per run; it prints every round, the package
# initialisations that take longest (GODEBUG=inittrace=1), the floor's
# ratio to the hello world, and last the line
#
#   startup/hello ratio=R referee=T1ms hello=T2ms
#
# The goal is R <= 1.5.
#
# Usage: bench/startup.sh          (from anywhere)
#   ROUNDS=5      rounds (the median is reported)
#   EXECS=200     runs of each command per round
#   BENCH_DIR=DIR where the binaries go; kept afterwards (default: a
#                 mktemp -d, removed on exit)
#   DROP_CACHES=1 drop the page cache once the binaries are built (root
#                 only; it affects the whole machine for a moment: see below)
#
# Exit status: 0 when both commands ran (whether or not the goal is met), 1
# when one failed, 2 when Go is missing or ROUNDS or EXECS is not a
# positive integer.
set -euo pipefail

die() {
  echo "bench/startup.sh: $*" >&2
  exit "${code:-1}"
}

ROUNDS=${ROUNDS:-5}
EXECS=${EXECS:-200}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

bench_positive ROUNDS EXECS
command -v go >/dev/null || code=2 die "go not found"

bench_scratch

export CGO_ENABLED=0
(cd "$root" && go build -o "$scratch/referee" ./cmd/referee) || die "building referee failed"
mkdir -p "$scratch/hello"
cat >"$scratch/hello/main.go" <<'EOF'
package main

import "fmt"

func main() { fmt.Println("hello, world") }
EOF
printf 'module hello\n\ngo 1.21\n' >"$scratch/hello/go.mod"
(cd "$scratch/hello" && GOFLAGS=-mod=mod go build -o "$scratch/hello-world" .) || die "building the hello world failed"

# The floor imports, for their initialisation alone, the packages referee
# links that are not its own (nor internal to another module), with
# referee's go.mod and go.sum for the versions.
mkdir -p "$scratch/floor"
{
  echo 'package main'
  echo
  echo 'import ('
  echo '	"os"'
  (cd "$root" && go list -deps ./cmd/referee) |
    grep -v -e '^github.com/refereehq/' -e 'internal' -e '^vendor/' -e '^runtime' \
      -e '^unsafe$' -e '^os$' -e '^embed$' -e '^weak$' -e '^iter$' -e '^unique$' -e '^maps$' |
    sed 's/.*/	_ "&"/'
  echo ')'
  echo
  echo 'func main() { os.Stdout.WriteString("floor\n") }'
} >"$scratch/floor/main.go"
sed 's/^module .*/module floor/' "$root/go.mod" >"$scratch/floor/go.mod"
cp "$root/go.sum" "$scratch/floor/go.sum"
(cd "$scratch/floor" && GOFLAGS=-mod=mod go build -o "$scratch/floor-bin" .) || die "building the floor failed"

# faults runs a command N times and prints its page faults per run, as the
# kernel counts them for the child (getrusage's ru_minflt). Unlike wall
# time, the count hardly moves from run to run, and it is what start-up
# costs most of on a VM where a fault is dear.
mkdir -p "$scratch/faults"
cat >"$scratch/faults/main.go" <<'EOF2'
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "usage: faults N CMD [ARG...]")
		os.Exit(2)
	}
	var total int64
	for range n {
		cmd := exec.Command(os.Args[2], os.Args[3:]...)
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[2], err)
			os.Exit(1)
		}
		total += cmd.ProcessState.SysUsage().(*syscall.Rusage).Minflt
	}
	fmt.Println(total / int64(n))
}
EOF2
printf 'module faults\n\ngo 1.22\n' >"$scratch/faults/go.mod"
(cd "$scratch/faults" && GOFLAGS=-mod=mod go build -o "$scratch/faults-bin" .) || die "building the fault counter failed"

# A binary just written sits in the page cache in pieces of other sizes
# than one read back from disk, and that alone moves the start-up of the
# same bytes by up to 10% from one build to the next. With DROP_CACHES=1
# (root), the cache is dropped, so that the three are read back alike.
cache="as the builds left it (DROP_CACHES=1 drops it, for steadier figures)"
if [ "${DROP_CACHES:-0}" = 1 ]; then
  [ -w /proc/sys/vm/drop_caches ] || die "DROP_CACHES=1 needs to write /proc/sys/vm/drop_caches (root)"
  sync && echo 1 >/proc/sys/vm/drop_caches && cache="dropped, the binaries read back from disk"
fi

"$scratch/referee" version >/dev/null || die "referee version failed"
"$scratch/floor-bin" >/dev/null || die "the floor failed"
"$scratch/hello-world" >/dev/null || die "the hello world failed"

# per_run CMD...: the wall time of one run of CMD, in microseconds, over
# EXECS runs in a row.
per_run() {
  local start end
  start=$(date +%s%N)
  for _ in $(seq "$EXECS"); do
    "$@" >/dev/null || die "$* failed"
  done
  end=$(date +%s%N)
  echo $(((end - start) / EXECS / 1000))
}

echo "start-up benchmark: $ROUNDS rounds of $EXECS runs each; $(nproc) cores, $(go version | cut -d' ' -f3), static binaries; page cache $cache"
refs=() hellos=() floors=()
for round in $(seq "$ROUNDS"); do
  r=$(per_run "$scratch/referee" version)
  h=$(per_run "$scratch/hello-world")
  f=$(per_run "$scratch/floor-bin")
  refs+=("$r") hellos+=("$h") floors+=("$f")
  echo "  round $round: referee version ${r}us, hello world ${h}us, floor ${f}us"
done

median() { printf '%s\n' "$@" | bench_median; }
ref=$(median "${refs[@]}") hello=$(median "${hellos[@]}") floor=$(median "${floors[@]}")

echo
echo "page faults per run (mean of 50): referee version $("$scratch/faults-bin" 50 "$scratch/referee" version), hello world $("$scratch/faults-bin" 50 "$scratch/hello-world"), floor $("$scratch/faults-bin" 50 "$scratch/floor-bin")"
echo
echo "slowest package initialisations of referee version (GODEBUG=inittrace=1, one run):"
GODEBUG=inittrace=1 "$scratch/referee" version 2>"$scratch/inittrace" >/dev/null
awk '/^init / { printf "  %-60s %s ms\n", $2, $5 }' "$scratch/inittrace" | sort -k2 -rn | head -8
awk '/^init / { total += $5 } END { printf "  %-60s %.2f ms\n", "all packages", total }' "$scratch/inittrace"
echo
awk -v f="$floor" -v h="$hello" -v r="$ref" \
  'BEGIN { printf "startup/floor ratio=%.2f floor=%.2fms (referee above it: %.2fms)\n", f / h, f / 1000, (r - f) / 1000 }'
awk -v r="$ref" -v h="$hello" \
  'BEGIN { printf "startup/hello ratio=%.2f referee=%.2fms hello=%.2fms\n", r / h, r / 1000, h / 1000 }'
