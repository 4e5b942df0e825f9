package corpus

import (
	"errors"

	"github.com/refereehq/referee/internal/lazyregexp"
)

var namePattern = lazyregexp.New(`^[a-z0-9][a-z0-9._-]*$`)

// Names collects the case names of one corpus file, which become check ID
// segments: each must be new and made of lowercase letters, digits, '.', '_'
// and '-'.
type Names map[string]bool

// Add records name, or says why it cannot be a case name.
func (n Names) Add(name string) error {
	switch {
	case !namePattern.MatchString(name):
		return errors.New("name must be lowercase letters, digits, '.', '_' and '-'")
	case n[name]:
		return errors.New("duplicate name")
	}
	n[name] = true
	return nil
}
