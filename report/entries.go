package report

import "iter"

// entry is one entry of a report a person reads (the text report, the
// HTML page): a check, and the others that ended as it did, for the same
// reason (entryKey), in report order.
type entry struct {
	checks []Check // the first, then the others
	index  []int   // each one's place in the report (Report.All)
}

// first is the check the entry shows with its evidence.
func (e *entry) first() Check { return e.checks[0] }

// more is how many checks the entry holds beside its first.
func (e *entry) more() int { return len(e.checks) - 1 }

// entries groups the checks keep keeps into entries, in the order their
// first checks appear: checks that share an entryKey are one entry.
func entries(checks iter.Seq2[int, Check], keep func(Check) bool) []*entry {
	byKey, order := map[string]*entry{}, []*entry{}
	for i, c := range checks {
		if !keep(c) {
			continue
		}
		key := entryKey(c)
		if e := byKey[key]; e != nil && key != "" {
			e.checks = append(e.checks, c)
			e.index = append(e.index, i)
			continue
		}
		e := &entry{checks: []Check{c}, index: []int{i}}
		byKey[key] = e
		order = append(order, e)
	}
	return order
}

// entryKey is what checks share to be one entry: their status, level (but
// for not-checked ones), reason and baseline mark; "" for a check that
// stands alone (a pass, a stale one, or one with no reason to share).
func entryKey(c Check) string {
	if c.Reason == "" || c.Status == "pass" || c.Stale {
		return ""
	}
	level := c.Level
	if c.Status == "not-checked" {
		level = "" // what was not checked is the same whatever its level
	}
	return c.Status + "\x00" + level + "\x00" + c.Known + "\x00" + c.Reason
}
