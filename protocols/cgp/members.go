package cgp

import (
	"fmt"
	"strconv"

	"github.com/refereehq/referee/canon"
)

// FrameError is a frame of a frames reply that CheckFrameMembers refuses:
// the reply's frame Index, its id (when it has a string one) and why.
type FrameError struct {
	Index int
	ID    string
	Err   error
}

func (e *FrameError) Error() string {
	id := "no id"
	if e.ID != "" {
		id = "id " + strconv.Quote(e.ID)
	}
	return fmt.Sprintf("result.frames[%d] (%s): %v", e.Index, id, e.Err)
}

func (e *FrameError) Unwrap() error { return e.Err }

// checkServedFrames applies CheckFrameMembers to each frame of a frames
// envelope, as parsed; the first frame it refuses is a *FrameError. A
// result or frames member of the wrong shape is decoding's to refuse.
func checkServedFrames(env canon.Value) error {
	result, _ := env.Lookup("result")
	frames, _ := result.Lookup("frames")
	if frames.Kind != canon.Array {
		return nil
	}
	for i, f := range frames.Elems {
		if err := CheckFrameMembers(f); err != nil {
			fe := &FrameError{Index: i, Err: err}
			if id, ok := f.Lookup("id"); ok && id.Kind == canon.String {
				fe.ID = id.Str
			}
			return fe
		}
	}
	return nil
}

// CheckFrameMembers refuses a served frame that the reference reader
// (serde, over upstream's contextgraph-types) refuses for its members,
// where Go's encoding/json reads a zero value instead: a required member
// missing or null (id, kind, title, score and token_cost; a link's type; a
// content_ref's provider_id and uri; a transform's method, implementation
// and version; an embedding's fingerprint; a relation's rel and
// target_uri), and null for provenance, relations or representation,
// which have defaults but are not optional. Types are not checked here:
// decoding the frame does that.
func CheckFrameMembers(frame canon.Value) error {
	if frame.Kind != canon.Object {
		return fmt.Errorf("a frame is an object, not %s", frame.Kind)
	}
	if err := requireMembers(frame, "frame", "id", "kind", "title", "score", "token_cost"); err != nil {
		return err
	}
	for _, name := range []string{"provenance", "relations", "representation"} {
		if m, ok := frame.Lookup(name); ok && m.Kind == canon.Null {
			return fmt.Errorf("frame.%s is null, which only an optional member may be", name)
		}
	}
	nested := []struct {
		name     string
		array    bool
		required []string
	}{
		{"provenance", true, []string{"type"}},
		{"content_ref", false, []string{"provider_id", "uri"}},
		{"transform", false, []string{"method", "implementation", "version"}},
		{"embedding", false, []string{"fingerprint"}},
		{"relations", true, []string{"rel", "target_uri"}},
	}
	for _, n := range nested {
		m, ok := frame.Lookup(n.name)
		if !ok || m.Kind == canon.Null {
			continue
		}
		items, paths := []canon.Value{m}, []string{"frame." + n.name}
		if n.array {
			if m.Kind != canon.Array {
				continue // decoding refuses it
			}
			items, paths = m.Elems, nil
			for i := range m.Elems {
				paths = append(paths, fmt.Sprintf("frame.%s[%d]", n.name, i))
			}
		}
		for i, it := range items {
			if it.Kind != canon.Object {
				continue // decoding refuses it
			}
			if err := requireMembers(it, paths[i], n.required...); err != nil {
				return err
			}
		}
	}
	return nil
}

func requireMembers(v canon.Value, path string, names ...string) error {
	for _, name := range names {
		m, ok := v.Lookup(name)
		switch {
		case !ok:
			return fmt.Errorf("%s has no %s, which is required", path, name)
		case m.Kind == canon.Null:
			return fmt.Errorf("%s.%s is null, and it is required", path, name)
		}
	}
	return nil
}
