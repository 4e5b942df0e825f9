package cli

import (
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}
	dirty := append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	tests := []struct {
		name, version, main string
		settings            []debug.BuildSetting
		want                string
	}{
		{"a checkout", devVersion, "(devel)", rev, "0.1.0-dev (0123456789ab)"},
		{"a changed checkout", devVersion, "(devel)", dirty, "0.1.0-dev (0123456789ab, dirty)"},
		{"go install @v1.2.3", devVersion, "v1.2.3", nil, "1.2.3"},
		{"a release build", "1.4.0", "(devel)", rev, "1.4.0 (0123456789ab)"},
		{"no information", devVersion, "", nil, "0.1.0-dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Version: tt.main}, Settings: tt.settings}
			if got := describeBuild(tt.version, info); got != tt.want {
				t.Errorf("describeBuild = %q, want %q", got, tt.want)
			}
		})
	}
}
