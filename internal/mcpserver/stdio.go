package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the MCP transport over in and out (newline-delimited
// JSON-RPC, the stdio transport of the MCP specification) that answers a
// line that is not JSON with a JSON-RPC parse error (-32700, id null), a
// message that is not JSON-RPC 2.0 with Invalid Request (-32600;
// guardLine), and goes on. The SDK's own IOTransport decodes the stream
// with one json.Decoder, which cannot resume after a syntax error, and
// ends the session on any message it cannot decode: one malformed line
// ended the session and the server with it. notes (nil: nowhere) hears
// of the client's responses that were dropped.
func StdioTransport(in io.ReadCloser, out io.WriteCloser, notes io.Writer) mcp.Transport {
	if notes == nil {
		notes = io.Discard
	}
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go filterLines(in, pw, w, notes)
	return &mcp.IOTransport{Reader: &pipeReader{PipeReader: pr, in: in}, Writer: w}
}

// filterLines copies each message of in that is JSON-RPC to pw and
// answers the others on w, until in ends.
func filterLines(in io.Reader, pw *io.PipeWriter, w io.Writer, notes io.Writer) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(br, mcp.DefaultMaxLineLength)
		if t := bytes.TrimSpace(line); len(t) > 0 || errors.Is(err, errLineTooLong) {
			switch {
			case errors.Is(err, errLineTooLong):
				_, _ = w.Write(parseError(fmt.Sprintf("a line longer than %d bytes", mcp.DefaultMaxLineLength)))
				err = nil
			case json.Valid(t):
				g := guardLine(t)
				for _, a := range g.answers {
					_, _ = w.Write(a)
				}
				for _, n := range g.notes {
					fmt.Fprintln(notes, "shadow mcp: dropped", n)
				}
				for _, m := range g.pass {
					if _, werr := pw.Write(append(m, '\n')); werr != nil {
						return
					}
				}
			default:
				_, _ = w.Write(parseError(syntaxDetail(t)))
			}
		}
		if err != nil {
			pw.CloseWithError(err) // io.EOF: the session ends as the client left
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without bounding memory beyond limit: the rest
// of a longer line is read and dropped).
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err == nil {
				err = errLineTooLong
			}
			return nil, err
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// syntaxDetail says where the line stops being JSON.
func syntaxDetail(line []byte) string {
	var v any
	err := json.Unmarshal(line, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not JSON at byte %d of the line: %v", se.Offset, se)
	}
	if err != nil {
		return "not JSON: " + err.Error()
	}
	return "not JSON"
}

// parseError is the JSON-RPC 2.0 answer to a message that could not be
// parsed (section 5.1: code -32700, id null).
func parseError(detail string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32700, "message": "Parse error: " + detail},
	})
	return append(b, '\n')
}

// lockedWriter serialises whole messages: the SDK writes each in one
// Write, and so do parse errors.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// pipeReader closes the real input too, so the filter ends.
type pipeReader struct {
	*io.PipeReader
	in io.Closer
}

func (p *pipeReader) Close() error {
	p.in.Close()
	return p.PipeReader.Close()
}
