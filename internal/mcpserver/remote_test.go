package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// remote and remote_dir are in shadow_run's input schema, described.
func TestRunSchemaHasRemote(t *testing.T) {
	cs := connect(t, New(t.TempDir(), "test", nil))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "shadow_run" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var sc struct {
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
		}
		json.Unmarshal(b, &sc)
		for name, typ := range map[string]string{"remote": "array", "remote_dir": "string"} {
			p, ok := sc.Properties[name]
			if !ok || p.Type != typ || !strings.Contains(p.Description, "--remote") {
				t.Errorf("%s: %+v", name, p)
			}
		}
		return
	}
	t.Fatal("no shadow_run")
}

// A shadow_run with remote plans a remote run: the node it names is
// contacted (with the user's ssh), and one that cannot be reached is the
// tool error, naming it and why.
func TestRunRemoteReachesThePlan(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh client here")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nobody listens there now: connection refused
	cfg := filepath.Join(t.TempDir(), "ssh_config")
	os.WriteFile(cfg, []byte(fmt.Sprintf("Host gone1\n  HostName 127.0.0.1\n  Port %d\n  ConnectTimeout 5\n", port)), 0o600)
	t.Setenv("SHADOW_SSH_COMMAND", "ssh -F "+cfg)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	cs := connect(t, New(ws, "test", nil))
	ok := []any{map[string]any{"name": "a"}}
	res := callTool(t, cs, "shadow_run", map[string]any{"hypotheses": ok, "command": []string{"true"}, "remote": []string{"gone1"}})
	if text := resultText(res); !res.IsError || !strings.Contains(text, "node gone1: cannot be reached") || !strings.Contains(text, "refused") {
		t.Errorf("remote gone1: %v %s", res.IsError, text)
	}
	// The spec's per-node form is taken too, and names are checked as the
	// CLI checks them.
	res = callTool(t, cs, "shadow_run", map[string]any{"hypotheses": ok, "command": []string{"true"}, "remote": []any{map[string]any{"node": "gone1", "jobs": 2}}, "remote_dir": "/srv/mirror"})
	if text := resultText(res); !res.IsError || !strings.Contains(text, "node gone1: cannot be reached") {
		t.Errorf("remote [{node: gone1}]: %v %s", res.IsError, text)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"remote": []string{"-oProxyCommand=x"}}, "remote: node \"-oProxyCommand=x\": a name may not start with '-'"},
		{map[string]any{"remote": "gone1"}, "remote: want an array"},
		{map[string]any{"remote_dir": "/srv/mirror"}, "remote_dir: needs remote"},
		{map[string]any{"remote": []string{"gone1"}, "remote_dir": "relative"}, "--remote-dir \"relative\": want an absolute path"},
	} {
		c.args["hypotheses"], c.args["command"] = ok, []string{"true"}
		res := callTool(t, cs, "shadow_run", c.args)
		if !res.IsError || !strings.Contains(resultText(res), c.want) {
			t.Errorf("%v: %v %s, want %q", c.args, res.IsError, resultText(res), c.want)
		}
	}
}
