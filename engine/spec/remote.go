package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RemoteNode is one entry of a spec's "remote" (docs/remote.md): an ssh
// destination, written either as a string or as {"node": "n1", "jobs": 4}
// when the node should offer a number of slots other than its CPU count.
type RemoteNode struct {
	Node string `json:"node"`
	Jobs int    `json:"jobs,omitempty"`
}

// UnmarshalJSON accepts "n1" and {"node": "n1", "jobs": 4}, and refuses
// unknown fields like the rest of the spec.
func (n *RemoteNode) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*n = RemoteNode{}
		return json.Unmarshal(b, &n.Node)
	}
	type plain RemoteNode
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("remote: want a node name or {\"node\": NAME, \"jobs\": N}: %v", err)
	}
	if p.Jobs < 0 {
		return fmt.Errorf("remote: node %q: jobs %d: want a positive number", p.Node, p.Jobs)
	}
	*n = RemoteNode(p)
	return nil
}
