package adapter

// WithPause returns cfg with a hook the Process calls where calls and the
// reading of stdout hand over, so a test can pause there.
func WithPause(cfg ProcessConfig, pause func()) ProcessConfig {
	cfg.pause = pause
	return cfg
}
