package frame_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/refereehq/referee/frame"
)

func ExampleDecoder() {
	var stream []byte
	for _, p := range []string{"hello", "", "world"} {
		stream, _ = frame.Append(stream, []byte(p), 1<<20)
	}
	d := frame.NewDecoder(bytes.NewReader(stream), 1<<20)
	for {
		p, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q\n", p)
	}
	fmt.Println(d.Offset())
	// Output:
	// "hello"
	// ""
	// "world"
	// 22
}

func ExampleSplit() {
	_, _, err := frame.Split([]byte{0x00, 0x4c, 0x4b, 0x40}, 4<<20)
	fmt.Println(err)
	// Output:
	// frame: at offset 0: declared length 5000000 exceeds maximum 4194304
}
