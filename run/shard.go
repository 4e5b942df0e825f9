package run

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
)

// A sharded run executes one part of a suite's selected checks, so that N
// machines (a CI matrix, a Kubernetes Indexed Job) share a suite with no
// coordinator; `referee merge` joins their reports. A check's shard depends
// on its ID alone (ShardOf): the split is the same on every machine and in
// every run, and a check added to or removed from the corpus moves no other
// check.

// ParseShard reads a shard as --shard takes it: "I/N", 1 ≤ I ≤ N.
func ParseShard(s string) (report.Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return report.Shard{}, check.Usagef("--shard %q: want I/N, the shard I of N (1 ≤ I ≤ N), e.g. 2/4", s)
	}
	sh := report.Shard{Index: index, Count: count}
	if err := checkShard(sh); err != nil {
		return report.Shard{}, err
	}
	return sh, nil
}

// ShardOf returns the shard, 1 to count, that the check called id belongs
// to: 1 + (the first 8 bytes of SHA-256(id), as a big-endian unsigned
// integer) mod count. In a shell: printf %s "$id" | sha256sum, the first 16
// hex digits, mod count, plus 1.
func ShardOf(id string, count int) int {
	if count <= 1 {
		return 1
	}
	sum := sha256.Sum256([]byte(id))
	return 1 + int(binary.BigEndian.Uint64(sum[:8])%uint64(count))
}

func checkShard(sh report.Shard) error {
	if sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count {
		return check.Usagef("--shard %d/%d: want I/N with 1 ≤ I ≤ N", sh.Index, sh.Count)
	}
	return nil
}

// shardChecks keeps the checks of shard sh, in order; the zero Shard keeps
// them all. A shard may hold none of them: its run then has no check and
// fails nothing.
func shardChecks(sh report.Shard, checks []check.Check) ([]check.Check, error) {
	if sh == (report.Shard{}) {
		return checks, nil
	}
	if err := checkShard(sh); err != nil {
		return nil, err
	}
	out := []check.Check{}
	for _, c := range checks {
		if ShardOf(c.ID, sh.Count) == sh.Index {
			out = append(out, c)
		}
	}
	return out, nil
}

// shard is the shard the report records, nil for a whole run.
func (p *Plan) shard() *report.Shard {
	if p.opts.Shard == (report.Shard{}) {
		return nil
	}
	sh := p.opts.Shard
	return &sh
}

// staleUnlessSharded returns the stale baseline entries of a whole run. A
// sharded run sees only part of what an entry selects, so it judges no
// entry stale and marks no check stale: the merge of all shards does.
func (p *Plan) staleUnlessSharded(run *check.Execution, stale []check.BaselineEntry) []check.BaselineEntry {
	if p.shard() == nil {
		return stale
	}
	for i, r := range run.All() {
		if r.Stale {
			r.Stale = false
			run.Set(i, r)
		}
	}
	return nil
}
