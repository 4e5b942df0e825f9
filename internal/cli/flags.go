package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/refereehq/referee/check"
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
