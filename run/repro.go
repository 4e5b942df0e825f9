package run

import (
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/internal/shell"
)

// maxPasteable is the longest request a repro command repeats by hand;
// beyond it the command repeats the check through referee instead.
const maxPasteable = 16 << 10

// repro renders a check's exchanges as one shell command that repeats them:
// the request lines piped into the adapter program, a curl to the adapter
// service, or else the referee command that runs that one check again.
func (p *Plan) repro(id string, exs []adapter.Exchange) string {
	big := false
	for _, x := range exs {
		big = big || len(x.Request) > maxPasteable
	}
	spec := p.Spec
	switch {
	case big || p.Def.Live || p.Def.RunBound:
		// Too long to paste, a protocol of its own, or requests that name
		// what only the run serves: repeat it through referee.
	case len(spec.Argv) > 0:
		var env []string
		if spec.Dir != "" {
			env = append(env, "cd "+shell.Quote(spec.Dir)+" &&")
		}
		if vars := p.reproEnv(); len(vars) > 0 {
			env = append(append(env, "env"), vars...)
		}
		lines := []string{shell.Quote(string(adapter.HelloRequest(p.Def.Name, p.Loaded.Hello)))}
		for _, x := range exs {
			lines = append(lines, shell.Quote(string(x.Request)))
		}
		return "printf '%s\\n' " + strings.Join(lines, " ") + " | " + strings.Join(append(env, quoteAll(spec.Argv)...), " ")
	case spec.URL != "":
		return "curl -sS -H 'Content-Type: application/json' --data-binary " + shell.Quote(string(exs[len(exs)-1].Request)) + " " + shell.Quote(spec.URL)
	}
	cmd := []string{"referee", "run", p.Def.Name, "--run", shell.Quote(id)}
	return strings.Join(append(cmd, p.rerun()...), " ")
}

// rerun is what follows `referee run SUITE --run ID` in a command that runs
// one check again against the same implementation, each word quoted for a
// shell: the corpus, the suite's flags that select its inputs, and the
// implementation.
func (p *Plan) rerun() []string {
	var cmd []string
	if p.opts.Corpus != "" {
		cmd = append(cmd, "--corpus", shell.Quote(p.opts.Corpus))
	}
	for _, f := range p.Def.Flags {
		if v := p.opts.Flags[f.Name]; f.Repro && v != "" && v != f.Default {
			cmd = append(cmd, "--"+f.Name, shell.Quote(v))
		}
	}
	spec := p.Spec
	switch {
	case spec.Mode != "":
		cmd = append(cmd, "--mode", spec.Mode)
	case spec.URL != "":
		cmd = append(cmd, "--url", shell.Quote(spec.URL))
	case len(spec.Argv) > 0:
		cmd = append(append(cmd, "--"), quoteAll(spec.Argv)...)
	}
	return cmd
}

// reproEnv is what `env` must be told to give the adapter the environment
// referee gave it: the variables that differ from referee's own, or all of
// them (after -i) when the environment was cleaned.
func (p *Plan) reproEnv() []string {
	if p.Spec.Env == nil {
		return nil
	}
	return p.opts.ReproEnv
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shell.Quote(s)
	}
	return out
}
