package shell

import "testing"

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"node", "node"},
		{"a/b.mjs", "a/b.mjs"},
		{"K=V", "K=V"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"jcs/numbers/**", "'jcs/numbers/**'"},
	} {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := Join([]string{"python3", "my adapter.py"}); got != "python3 'my adapter.py'" {
		t.Errorf("Join = %s", got)
	}
}
