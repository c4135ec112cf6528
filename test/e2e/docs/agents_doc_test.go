package docs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// Every snippet of docs/agents.md parses: the JSON and TOML an agent's
// config takes, with shadow registered as `shadow mcp`, and the shell
// lines (bash -n). A guide whose config does not load is worse than none.
func TestAgentsDocSnippets(t *testing.T) {
	// The source tree's docs, wherever the test binary runs (CI runs it
	// again from elsewhere as another user).
	_, self, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(self), "docs", "agents.md"))
	if err != nil {
		t.Skipf("docs/agents.md is not beside the test's source (%v): a test binary run away from its tree", err)
	}
	blocks := regexp.MustCompile("(?s)```(json|toml|sh)\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	seen := map[string]int{}
	for _, bl := range blocks {
		lang, body := bl[1], bl[2]
		seen[lang]++
		switch lang {
		case "json":
			var doc struct {
				MCPServers map[string]struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				} `json:"mcpServers"`
			}
			dec := json.NewDecoder(strings.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&doc); err != nil {
				t.Errorf("json block does not parse: %v\n%s", err, body)
			}
			if s := doc.MCPServers["shadow"]; s.Command != "shadow" || strings.Join(s.Args, " ") != "mcp" {
				t.Errorf("json block does not register shadow mcp:\n%s", body)
			}
		case "toml":
			var doc struct {
				MCPServers map[string]struct {
					Command        string   `toml:"command"`
					Args           []string `toml:"args"`
					ToolTimeoutSec int      `toml:"tool_timeout_sec"`
				} `toml:"mcp_servers"`
			}
			md, err := toml.Decode(body, &doc)
			if err != nil {
				t.Errorf("toml block does not parse: %v\n%s", err, body)
			}
			if und := md.Undecoded(); len(und) > 0 {
				t.Errorf("toml block has keys the test does not know: %v", und)
			}
			if s := doc.MCPServers["shadow"]; s.Command != "shadow" || strings.Join(s.Args, " ") != "mcp" {
				t.Errorf("toml block does not register shadow mcp:\n%s", body)
			}
		case "sh":
			c := exec.Command("bash", "-n")
			c.Stdin = strings.NewReader(body)
			if out, err := c.CombinedOutput(); err != nil {
				t.Errorf("sh block: %v %s\n%s", err, out, body)
			}
			for _, l := range strings.Split(body, "\n") {
				if strings.HasPrefix(l, "shadow ") && !strings.HasPrefix(l, "shadow init") && !strings.HasPrefix(l, "shadow log") &&
					!strings.HasPrefix(l, "shadow show") && !strings.HasPrefix(l, "shadow apply") &&
					!strings.Contains(l, "--headless") && !strings.Contains(l, "--json") {
					t.Errorf("a run an agent copies must be --headless or --json: %s", l)
				}
			}
		}
	}
	if seen["json"] < 2 || seen["toml"] < 1 || seen["sh"] < 3 {
		t.Errorf("docs/agents.md lost snippets: %v", seen)
	}
}
