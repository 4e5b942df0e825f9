// Package frame implements length-prefixed framing: each frame is a 4-byte
// big-endian unsigned length followed by that many payload bytes.
//
// The wire format of one frame is
//
//	frame = uint32_be(len(payload)) || payload
//
// Every function takes a maximum payload length; a max of zero or less means
// the largest length the header can express (0xFFFFFFFF). Declared lengths
// are checked against the maximum before any body byte is read or any buffer
// of the declared size is allocated, so a hostile header cannot force a large
// allocation.
package frame
