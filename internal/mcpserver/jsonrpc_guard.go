package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// The SDK's stdio connection ends the session on the first message it
// cannot decode as JSON-RPC 2.0 (jsonrpc2.DecodeMessage's error is the
// read loop's error), and it reads a fractional number id as an integer
// (MakeID: int64(7.5) is 7). So every message is checked here first, as
// JSON-RPC 2.0 (section 4, 5.1) and MCP's base protocol ("Requests MUST
// include a string or integer ID ... MUST NOT be null") define it, and
// what reaches the SDK is re-encoded from exactly what was checked.

// JSON-RPC 2.0 error codes (section 5.1).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// maxExactID bounds integer ids: past 2^53 a float64 (how the SDK decodes
// an id) no longer holds every integer, so the answer would name another id.
const maxExactID = 1 << 53

// guarded is what the guard makes of one line: messages to pass to the
// SDK (each re-encoded), answers to write back, and notes for the log.
type guarded struct {
	pass    [][]byte
	answers [][]byte
	notes   []string
}

// guardLine checks one line that is valid JSON. A batch (an array) is
// split into its messages, each checked and passed on by itself: the
// SDK's batch handling ends the session on a duplicated id and, from
// protocol 2025-06-18 on (which dropped batching), on any batch.
func guardLine(line []byte) guarded {
	var g guarded
	t := bytes.TrimSpace(line)
	if len(t) > 0 && t[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(t, &batch); err != nil {
			g.answers = append(g.answers, rpcError(nil, codeParseError, "Parse error: "+err.Error()))
			return g
		}
		if len(batch) == 0 {
			g.answers = append(g.answers, rpcError(nil, codeInvalidRequest, "Invalid Request: an empty batch"))
			return g
		}
		for _, m := range batch {
			g.one(m)
		}
		return g
	}
	g.one(t)
	return g
}

func (g *guarded) one(raw []byte) {
	msg, id, err := checkMessage(raw)
	switch {
	case err == nil:
		g.pass = append(g.pass, msg)
	case err == errDropResponse:
		// A response is never answered (section 5): a client's error
		// response with a null id is what it sends for a message of ours
		// it could not read.
		g.notes = append(g.notes, "a response from the client that is not one: "+clip(raw))
	default:
		g.answers = append(g.answers, rpcError(id, codeInvalidRequest, "Invalid Request: "+err.Error()))
	}
}

var errDropResponse = fmt.Errorf("dropped response")

// checkMessage returns the message re-encoded with only the members
// JSON-RPC defines, or why it is not a request, notification or response;
// id is the id to answer with (nil when it cannot be read).
func checkMessage(raw []byte) (msg []byte, id json.RawMessage, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, nil, fmt.Errorf("a message must be a JSON object, got %s", clip(raw))
	}
	idRaw, hasID := m["id"]
	if hasID {
		if id, err = checkID(idRaw); err != nil {
			if _, isReq := m["method"]; !isReq && isNull(idRaw) {
				return nil, nil, errDropResponse
			}
			return nil, id, err
		}
	}
	var version string
	if v, ok := m["jsonrpc"]; !ok {
		return nil, id, fmt.Errorf(`"jsonrpc" is missing: it must be "2.0"`)
	} else if json.Unmarshal(v, &version) != nil || version != "2.0" {
		return nil, id, fmt.Errorf(`"jsonrpc" must be "2.0", got %s`, clip(v))
	}
	out := map[string]json.RawMessage{"jsonrpc": m["jsonrpc"]}
	if hasID {
		out["id"] = id
	}
	if mr, ok := m["method"]; ok {
		var method string
		if json.Unmarshal(mr, &method) != nil {
			return nil, id, fmt.Errorf(`"method" must be a string, got %s`, clip(mr))
		}
		out["method"] = mr
		if p, ok := m["params"]; ok && !isNull(p) {
			if c := firstByte(p); c != '{' && c != '[' {
				return nil, id, fmt.Errorf(`"params" must be an object or an array, got %s`, clip(p))
			}
			out["params"] = p
		}
		b, _ := json.Marshal(out)
		return b, id, nil
	}
	// No method: a response to one of the server's requests. Answering
	// one is forbidden; what the SDK cannot read is dropped.
	res, hasRes := m["result"]
	e, hasErr := m["error"]
	if !hasID || hasRes == hasErr {
		return nil, nil, errDropResponse
	}
	if hasRes {
		out["result"] = res
	} else {
		var we struct {
			Code    *float64        `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(e, &we) != nil || we.Code == nil || we.Message == nil || *we.Code != math.Trunc(*we.Code) || math.Abs(*we.Code) > maxExactID {
			return nil, nil, errDropResponse
		}
		out["error"] = e
	}
	b, _ := json.Marshal(out)
	return b, id, nil
}

// checkID accepts a string or an integer id (MCP's base protocol), and
// returns the id to answer with when it refuses one: the number as sent
// when it is finite (7.5), else none (1e400, an object, an array, a bool).
func checkID(raw json.RawMessage) (json.RawMessage, error) {
	switch c := firstByte(raw); {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("id: %v", err)
		}
		return raw, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			if n > maxExactID || n < -maxExactID {
				return raw, fmt.Errorf("id %s is past 2^53: give a smaller integer or a string", raw)
			}
			return raw, nil
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("id %s is out of range: an id is a string or an integer", clip(raw))
		}
		if f != math.Trunc(f) {
			return raw, fmt.Errorf("id %s is not an integer: an id is a string or an integer", raw)
		}
		if math.Abs(f) >= maxExactID {
			return raw, fmt.Errorf("id %s is past 2^53: give a smaller integer or a string", raw)
		}
		return json.RawMessage(strconv.FormatInt(int64(f), 10)), nil
	case c == 'n':
		return nil, fmt.Errorf("id must not be null: a request's id is a string or an integer (a notification has none)")
	}
	return nil, fmt.Errorf("id must be a string or an integer, got %s", clip(raw))
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func firstByte(raw json.RawMessage) byte {
	if t := bytes.TrimSpace(raw); len(t) > 0 {
		return t[0]
	}
	return 0
}

// clip is raw JSON quoted in an error, at most 60 bytes of it.
func clip(raw []byte) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// rpcError is a JSON-RPC error response (section 5.1); id nil is null.
func rpcError(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message},
	})
	return append(b, '\n')
}
