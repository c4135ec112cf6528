package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// syntaxErr is a JSON syntax error met while walking a spec's tokens, kept
// with the decoder's byte offset so the message can say line and column.
type syntaxErr struct {
	offset int64
	err    error
}

func (e *syntaxErr) Error() string { return e.err.Error() }
func (e *syntaxErr) Unwrap() error { return e.err }

// position turns a byte offset into "line L, column C" (both from 1,
// columns in bytes as editors that show byte columns do), the form people
// look for in an editor, instead of the raw offset encoding/json gives.
func position(data []byte, off int64) string {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// syntaxAt says where a spec's JSON is broken. The token walker's offsets
// are relative to the value being scanned (encoding/json's Decoder resets
// them per value), so the whole document is scanned again with Unmarshal,
// whose SyntaxError.Offset counts from the start: it is the number of bytes
// read up to and including the bad one.
func syntaxAt(data []byte, walkErr error) *SpecError {
	var v any
	err := json.Unmarshal(data, &v)
	var js *json.SyntaxError
	if !errors.As(err, &js) {
		return &SpecError{Msg: "invalid JSON: " + walkErr.Error()}
	}
	if js.Offset >= int64(len(data)) && strings.Contains(js.Error(), "end of JSON input") {
		return &SpecError{Msg: "invalid JSON at " + position(data, int64(len(data))) + ": the document ends early (a missing ] or }, or a cut-off string?)"}
	}
	return &SpecError{Msg: "invalid JSON at " + position(data, js.Offset-1) + ": " + js.Error()}
}
