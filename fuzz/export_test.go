package fuzz

// SetWriteFile makes every file of a corpus written through write (nil
// restores the real one), so a test can make a write fail; it returns
// what to call to put the real one back.
func SetWriteFile(write func(path string, data []byte) error) (restore func()) {
	real := writeFile
	writeFile = write
	return func() { writeFile = real }
}
