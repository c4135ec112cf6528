package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/suggest"
)

// ConfigFile is the optional file at the workspace root holding the run
// flags a team always passes (docs/cli.md, "The config file"). Not
// shadow.json: that is the spec `shadow init` writes.
const ConfigFile = ".shadow.toml"

// configRefused are run flags the file may not set, and why: they are
// decided per invocation by whoever runs shadow, not by the project.
var configRefused = map[string]string{
	"dir":             "the file is found in the workspace, so it cannot move it",
	"apply":           "a run writes the checkout only when the command line asks",
	"with-tests":      "a run writes the checkout only when the command line asks",
	"headless":        "who reads stdout (a person, a program) decides the output",
	"json":            "who reads stdout (a person, a program) decides the output",
	"events":          "who reads stdout (a person, a program) decides the output",
	"patch":           "hypotheses come from the spec or the command line",
	"ref":             "hypotheses come from the spec or the command line",
	"worktrees":       "hypotheses come from the spec or the command line",
	"tests-from":      "tests written before this run's candidates belong to this run (the spec's tests_from holds them for every run of it)",
	"shard":           "a shard is one worker's slice of one run",
	"shard-index-env": "a shard is one worker's slice of one run",
	"version":         "not a run flag",
	"help":            "not a run flag",
}

// configRepeatable are the flags a list sets once per element.
var configRepeatable = []string{"copy-skip", "writable", "host-port", "remote"}

// applyConfig reads ConfigFile at the root of the workspace the run will
// use (-C, else the git top-level of cwd) and sets every flag it names
// that the command line did not: a flag given wins over the file, and the
// file's values, being flags, win over the spec's fields as flags do. It
// returns the file's path and what it set ("" and nil without a file).
// Anything the file cannot mean is a usage error (exit 2) naming the file
// and the key.
func applyConfig(fset *pflag.FlagSet, dir, cwd string) (string, []string, error) {
	ws, _, err := run.ResolveWorkspace(dir, cwd)
	if err != nil {
		return "", nil, nil // the plan says what is wrong with the workspace
	}
	path := filepath.Join(ws, ConfigFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return path, nil, usage("%s: %v", path, err)
	}
	var doc map[string]any
	if _, err := toml.Decode(string(raw), &doc); err != nil {
		return path, nil, usage("%s: %v", path, err)
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var set []string
	for _, k := range keys {
		f := fset.Lookup(k)
		if why, no := configRefused[k]; no && f != nil {
			return path, nil, usage("%s: %s cannot be set here: %s (give --%s on the command line)", path, k, why, k)
		}
		if f == nil || f.Hidden {
			var names []string
			fset.VisitAll(func(f *pflag.Flag) {
				if _, no := configRefused[f.Name]; !no && !f.Hidden {
					names = append(names, f.Name)
				}
			})
			if near := suggest.Closest(k, names); near != "" {
				return path, nil, usage("%s: unknown key %q: did you mean %q? (the keys are the run flags' long names)", path, k, near)
			}
			return path, nil, usage("%s: unknown key %q (the keys are the run flags' long names, as shadow -h lists them: jobs, timeout, net...)", path, k)
		}
		if f.Changed {
			continue // the command line wins
		}
		vals, err := configValues(k, doc[k])
		if err != nil {
			return path, nil, usage("%s: %s: %v", path, k, err)
		}
		for _, v := range vals {
			if err := f.Value.Set(v); err != nil {
				return path, nil, usage("%s: %s = %q: %v", path, k, v, err)
			}
			f.Changed = true
			set = append(set, "--"+k+"="+v)
		}
	}
	return path, set, nil
}

// configValues turns one TOML value into the strings its flag parses:
// true/false, a number, a string, or for a repeatable flag a list.
func configValues(key string, v any) ([]string, error) {
	switch v := v.(type) {
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case int64:
		return []string{strconv.FormatInt(v, 10)}, nil
	case string:
		return []string{v}, nil
	case []any:
		if !slices.Contains(configRepeatable, key) {
			return nil, fmt.Errorf("a list, but --%s takes one value (lists are for %s)", key, strings.Join(configRepeatable, ", "))
		}
		var out []string
		for _, e := range v {
			s, err := configValues("", e)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want true/false, a number or a string, got %T", v)
}
