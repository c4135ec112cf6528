package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// rawSession serves a Server over StdioTransport on pipes and returns a
// function that sends lines and one that reads the next answer.
func rawSession(t *testing.T) (send func(string), next func() map[string]any) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(t.TempDir(), "test", nil)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Run(ctx, StdioTransport(inR, outW, nil)) }()
	answers := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not JSON from the server: %q", sc.Text())
				continue
			}
			answers <- m
		}
		close(answers)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		s.Shutdown(5 * time.Second)
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Error("the server did not stop")
		}
	})
	send = func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
	}
	next = func() map[string]any {
		t.Helper()
		select {
		case m, ok := <-answers:
			if !ok {
				t.Fatal("the server closed its output: the session ended")
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no answer within 10s")
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, next
}

// Each malformed message is answered with the JSON-RPC error it deserves
// (section 5.1) and the session goes on: the SDK's own transport ended the
// session (and `shadow mcp` with it) on all of these but the first two
// kinds, and answered id 7.5 as 7.
func TestMalformedMessagesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	send, next := rawSession(t)
	cases := []struct {
		line string
		code float64
		id   any // the id the answer must carry (nil: null)
	}{
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}`, -32600, nil},
		{`{"jsonrpc":"1.0","id":11,"method":"tools/list"}`, -32600, float64(11)},
		{`{"id":12,"method":"tools/list"}`, -32600, float64(12)},
		{`{"jsonrpc":"2.0","id":13,"method":5}`, -32600, float64(13)},
		{`"tools/list"`, -32600, nil},
		{`{"jsonrpc":"2.0","id":14,"method":"tools/list"`, -32700, nil},
		{`{"jsonrpc":"2.0","id":7.5,"method":"tools/list"}`, -32600, 7.5},
		// and their kin
		{`null`, -32600, nil},
		{`42`, -32600, nil},
		{`[]`, -32600, nil},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}`, -32600, 9007199254740993.0},
		{`{"jsonrpc":"2.0","id":15,"method":"tools/list","params":5}`, -32600, float64(15)},
		{`{"JSONRPC":"2.0","id":16,"method":"tools/list"}`, -32600, float64(16)},
	}
	for _, c := range cases {
		send(c.line)
		m := next()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != c.code || m["id"] != c.id || m["jsonrpc"] != "2.0" {
			b, _ := json.Marshal(m)
			t.Errorf("%s\n  answered %.300s, want code %v and id %v", c.line, b, c.code, c.id)
		}
	}
	// A response the client sends that is not one is dropped, not answered
	// (section 5: a response is never answered); a batch is split, each
	// message answered on its own, a bad one with its own error.
	send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	send(`{"jsonrpc":"2.0","id":"nobody-asked","result":{}}`)
	send(`[{"jsonrpc":"2.0","id":21,"method":"ping"},{"jsonrpc":"2.0","id":false,"method":"ping"},{"jsonrpc":"2.0","id":22,"method":"ping"}]`)
	got := map[string]int{}
	for range 3 {
		m := next()
		b, _ := json.Marshal(m)
		got[string(b)]++
	}
	if len(got) != 3 || got[`{"id":21,"jsonrpc":"2.0","result":{}}`] != 1 || got[`{"id":22,"jsonrpc":"2.0","result":{}}`] != 1 {
		t.Errorf("the batch's answers: %v", got)
	}
	// The session still serves a valid call, and 7.5 was never answered as 7.
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	m := next()
	if m["id"] != float64(7) || m["result"] == nil {
		t.Errorf("tools/list after the malformed messages: %v", m)
	}
	if tools, _ := m["result"].(map[string]any)["tools"].([]any); len(tools) == 0 {
		t.Errorf("no tools listed: %v", m)
	}
}

func TestCheckIDKeepsIntegersAndRefusesTheRest(t *testing.T) {
	for in, want := range map[string]string{`7`: `7`, `-3`: `-3`, `7.0`: `7`, `1e3`: `1000`, `"x"`: `"x"`} {
		got, err := checkID(json.RawMessage(in))
		if err != nil || string(got) != want {
			t.Errorf("checkID(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{`7.5`, `1e400`, `-1e400`, `true`, `null`, `{}`, `[]`, `9007199254740993`} {
		if _, err := checkID(json.RawMessage(in)); err == nil || !strings.Contains(err.Error(), "id") {
			t.Errorf("checkID(%s) accepted", in)
		}
	}
}
