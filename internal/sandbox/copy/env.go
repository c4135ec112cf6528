//go:build linux || darwin

package copy

import (
	"path/filepath"
	"strings"
)

// rebaseEnv points the environment's paths into the workspace (PATH
// entries such as .venv/bin or node_modules/.bin, VIRTUAL_ENV,
// PYTHONPATH) at the copy: in overlay mode the same paths name the
// hypothesis's view, and left alone they would run the checkout's code.
// Each ':'-separated element that is the workspace or below it is
// rewritten.
func rebaseEnv(env []string, ws, tree string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.Contains(v, ws) {
			out = append(out, kv)
			continue
		}
		parts := strings.Split(v, string(filepath.ListSeparator))
		for i, p := range parts {
			parts[i] = rebasePath(p, ws, tree)
		}
		out = append(out, k+"="+strings.Join(parts, string(filepath.ListSeparator)))
	}
	return out
}

// rebaseArg rewrites a command argument that names a path in the
// workspace by its absolute path, alone or as --flag=PATH.
func rebaseArg(a, ws, tree string) string {
	if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
		return k + "=" + rebasePath(v, ws, tree)
	}
	return rebasePath(a, ws, tree)
}

func rebasePath(p, ws, tree string) string {
	if p == ws {
		return tree
	}
	if rest, ok := strings.CutPrefix(p, ws+string(filepath.Separator)); ok {
		return filepath.Join(tree, rest)
	}
	return p
}

// setEnv sets k in env, replacing every earlier value.
func setEnv(env []string, k, v string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}
