package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/regularfile"
)

// addFlags declares a suite's flags on fs and returns a function that reads
// their values once fs is parsed: those given, and the defaults that are
// not empty (so a suite can tell --flag ” from no flag).
func addFlags(fs *pflag.FlagSet, flags []check.Flag) func() check.FlagValues {
	for _, f := range flags {
		switch f.Kind {
		case check.FlagBool:
			fs.Bool(f.Name, f.Default == "true", f.Usage)
		case check.FlagDuration:
			d, _ := time.ParseDuration(f.Default) // a suite's own default; "" is 0
			fs.Duration(f.Name, d, f.Usage)
		default:
			fs.String(f.Name, f.Default, f.Usage)
		}
	}
	return func() check.FlagValues {
		v := check.FlagValues{}
		for _, f := range flags {
			if fl := fs.Lookup(f.Name); fl != nil && (fl.Changed || f.Default != "") {
				v[f.Name] = fl.Value.String()
			}
		}
		return v
	}
}

// byteSize is a flag's size in bytes: a number, optionally followed by
// KiB, MiB or GiB (or K, M, G: the same), or kB, MB or GB (powers of 1000).
type byteSize int64

var sizeUnits = []struct {
	suffix string
	n      int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

func (s *byteSize) Set(v string) error {
	num, unit := strings.TrimSpace(v), int64(1)
	lower := strings.ToLower(num)
	for _, u := range sizeUnits {
		if strings.HasSuffix(lower, u.suffix) {
			num, unit = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/unit {
		return fmt.Errorf("want a positive size in bytes, or with KiB, MiB or GiB (e.g. 512MiB)")
	}
	*s = byteSize(n * unit)
	return nil
}

func (s *byteSize) String() string {
	n := int64(*s)
	for _, u := range []struct {
		name string
		n    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.n && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

func (s *byteSize) Type() string { return "size" }

// addMaxFileSize declares --max-file-size on fs and returns where its value goes.
func addMaxFileSize(fs *pflag.FlagSet) *byteSize {
	s := byteSize(regularfile.DefaultLimit)
	fs.Var(&s, "max-file-size", "refuse any file referee reads (corpus files, baselines, vector files) over `SIZE`, before reading it: bytes, or with KiB, MiB or GiB")
	return &s
}

// repeated is a repeatable string flag: each use appends one value, kept as
// written (no splitting at commas).
type repeated struct{ values *[]string }

// repeatedVar declares a repeatable flag on f whose values go to p; it does
// what pflag's StringArrayVar does without formatting the default as CSV
// for every flag at every start.
func repeatedVar(f *pflag.FlagSet, p *[]string, name, usage string) {
	f.Var(repeated{p}, name, usage)
}

func (r repeated) Set(v string) error { *r.values = append(*r.values, v); return nil }
func (r repeated) Type() string       { return "stringArray" }
func (r repeated) String() string {
	if len(*r.values) == 0 {
		return "" // no "(default [])" in the help
	}
	return "[" + strings.Join(*r.values, ",") + "]"
}
