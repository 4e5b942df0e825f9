package check

import (
	"strings"
	"testing"
)

func TestFindMode(t *testing.T) {
	type mode struct{ Name, Doc string }
	modes := []mode{{"a", "first"}, {"b", "second"}}
	name := func(m *mode) string { return m.Name }
	m, err := FindMode("s", modes, name, "b")
	if err != nil || m != &modes[1] {
		t.Fatalf("FindMode(b) = %v, %v; want the second mode", m, err)
	}
	_, err = FindMode("s", modes, name, "c")
	if err == nil || !strings.Contains(err.Error(), `s: no broken mode "c" (modes: a, b)`) {
		t.Errorf("FindMode(c) error = %v", err)
	}
}

func TestModesOf(t *testing.T) {
	type own struct{ name, doc, private string }
	got := ModesOf([]own{{"a", "does a", "x"}, {"b", "does b", "y"}}, func(m *own) (string, string) { return m.name, m.doc })
	if len(got) != 2 || got[0] != (Mode{"a", "does a"}) || got[1] != (Mode{"b", "does b"}) {
		t.Errorf("ModesOf = %+v", got)
	}
}
