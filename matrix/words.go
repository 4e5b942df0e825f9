package matrix

import (
	"errors"
	"fmt"
	"strings"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/lazyregexp"
)

// SplitWords splits a command line into words as a POSIX shell does, and
// no further: blanks separate words; 'single quotes' keep everything
// literally; "double quotes" keep everything but \" \\ \$ \` and a
// backslash-newline; a backslash outside quotes keeps the next character
// (a backslash-newline disappears). Nothing is expanded, so a character
// that would make a shell do more (| & ; < > ( ) $ ` unquoted, a word
// starting with ~ or #) is an error rather than a literal.
func SplitWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word (an empty quoted word counts)
	)
	end := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' at byte %d", i)
			}
			cur.WriteString(s[i+1 : i+1+j])
			in = true
			i += j + 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					switch s[j+1] {
					case '"', '\\', '$', '`':
						cur.WriteByte(s[j+1])
						j++
						continue
					case '\n':
						j++
						continue
					}
				}
				if s[j] == '$' || s[j] == '`' {
					return nil, fmt.Errorf("%q inside double quotes at byte %d would be expanded by a shell; referee runs no shell: use single quotes", s[j], j)
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated \" at byte %d", i)
			}
			in = true
			i = j
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("a backslash ends the line")
			}
			if s[i+1] != '\n' {
				cur.WriteByte(s[i+1])
				in = true
			}
			i++
		case strings.IndexByte("|&;<>()$`", c) >= 0:
			return nil, fmt.Errorf("%q at byte %d needs a shell, and referee runs none: quote it, or give sh -c '...' as the command", c, i)
		case (c == '~' || c == '#') && !in:
			return nil, fmt.Errorf("a word starting with %q at byte %d needs a shell, and referee runs none: quote it or spell the path out", c, i)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	end()
	return words, nil
}

// Impl is one implementation in a matrix: a name and how to reach it.
type Impl struct {
	Name string
	Spec check.Spec
}

var implName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// ParseImpl reads an --impl value: NAME=COMMAND (split by SplitWords, run
// without a shell) or NAME=url:URL (an adapter served over HTTP). Errors
// are usage errors.
func ParseImpl(s string) (Impl, error) {
	name, rest, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return Impl{}, check.Usagef("--impl %q: want NAME=COMMAND or NAME=url:URL", s)
	case !implName.MatchString(name):
		return Impl{}, check.Usagef("--impl %q: the name %q must be letters, digits, '.', '_', '+' and '-', starting with a letter or digit", s, name)
	}
	if u, ok := strings.CutPrefix(rest, "url:"); ok {
		if u == "" {
			return Impl{}, check.Usagef("--impl %q: no URL after url:", s)
		}
		return Impl{Name: name, Spec: check.Spec{URL: u}}, nil
	}
	argv, err := SplitWords(rest)
	if err != nil {
		return Impl{}, check.Usagef("--impl %q: its command: %v", s, err)
	}
	if len(argv) == 0 {
		return Impl{}, check.Usagef("--impl %q: no command after the name", s)
	}
	return Impl{Name: name, Spec: check.Spec{Argv: argv}}, nil
}

// ParseImpls reads every --impl value; the names must differ.
func ParseImpls(values []string) ([]Impl, error) {
	var out []Impl
	seen := map[string]bool{}
	for _, v := range values {
		im, err := ParseImpl(v)
		if err != nil {
			return nil, err
		}
		if seen[im.Name] {
			return nil, check.Usagef("--impl: two implementations named %q", im.Name)
		}
		seen[im.Name] = true
		out = append(out, im)
	}
	return out, nil
}
