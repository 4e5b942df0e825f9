package corpus

import (
	"maps"
	"testing"
)

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"files":{"a.txt":"` + digestA + `"}}`))
	f.Add([]byte(`{"version":1,"files":{}}`))
	f.Add([]byte(`{"files":{"../x":"sha256:00"},"meta":[1,{"x":null}]}`))
	f.Add([]byte(`{"files":[]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ParseManifest(raw)
		if err != nil {
			return
		}
		// What was accepted re-encodes to a manifest that reads back the same.
		m2, err := ParseManifest(m.Encode())
		if err != nil {
			t.Fatalf("re-reading the encoded manifest: %v\n%s", err, m.Encode())
		}
		if !maps.Equal(m.Files, m2.Files) || len(m.Meta) != len(m2.Meta) {
			t.Fatalf("round trip changed the manifest: %+v -> %+v", m, m2)
		}
	})
}
