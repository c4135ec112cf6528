package gitrisk

import "strings"

// Why says why git obeying e is a risk ("" when it is not): the variable
// names a program git runs (git-config(1): core.fsmonitor, core.pager,
// diff.<driver>.textconv, filter.<driver>.smudge...), a file or place git
// then reads its settings or hooks from (include.path, core.hooksPath,
// core.worktree), or a rewrite of where git fetches from (url.insteadOf,
// protocol.allow). Besides the named variables, any whose key ends in a
// word git uses for "a command to run" counts, so a variable added to git
// after this list was written is still caught.
func Why(e Entry) string {
	name := e.Section + "." + e.Key
	if e.Sub != "" {
		name = e.Section + ".*." + e.Key
	}
	if w, ok := named[name]; ok {
		return w
	}
	switch {
	case e.Section == "alias" && strings.HasPrefix(e.Value, "!"):
		return "an alias git runs as a shell command"
	case e.Section == "submodule" && e.Key == "update" && strings.HasPrefix(e.Value, "!"):
		return "a command git runs to update the submodule"
	case e.Section == "include" || e.Section == "includeif":
		if e.Key == "path" {
			return "a file git reads as more configuration"
		}
	case e.Section == "pager":
		return "a program git runs as its pager"
	case e.Section == "sendemail" || e.Section == "guitool" || e.Section == "hook":
		return "a program git runs"
	}
	for _, s := range runSuffixes {
		if strings.HasSuffix(e.Key, s) {
			return "a program git runs"
		}
	}
	return ""
}

// runSuffixes end the names of git's variables that hold a command
// (core.sshCommand, gpg.program, credential.helper, browser.<tool>.cmd,
// trailer.<token>.command, core.askPass, imap.tunnel...).
var runSuffixes = []string{"cmd", "command", "program", "helper", "editor", "pager", "driver", "textconv", "askpass", "tunnel", "hook", "hookspath"}

var named = map[string]string{
	"core.fsmonitor":             "a program git runs at every status",
	"core.hookspath":             "where git takes the hooks it runs",
	"core.worktree":              "which directory git takes for the work tree",
	"core.gitproxy":              "a program git runs to connect",
	"core.alternaterefscommand":  "a program git runs",
	"core.attributesfile":        "a file git reads attributes (filter and diff drivers) from",
	"diff.external":              "a program git runs at every diff",
	"diff.*.textconv":            "a program git runs at every diff",
	"diff.*.command":             "a program git runs at every diff",
	"merge.*.driver":             "a program git runs at every merge",
	"filter.*.clean":             "a program git runs on every add and status",
	"filter.*.smudge":            "a program git runs at every checkout",
	"filter.*.process":           "a program git runs on every add, status and checkout",
	"interactive.difffilter":     "a program git runs",
	"web.browser":                "a program git runs",
	"remote.*.uploadpack":        "a program git runs to fetch",
	"remote.*.receivepack":       "a program git runs to push",
	"remote.*.vcs":               "a remote helper git runs",
	"url.*.insteadof":            "a rewrite of where git fetches from",
	"url.*.pushinsteadof":        "a rewrite of where git pushes to",
	"protocol.allow":             "which transports git may run (ext:: runs a command)",
	"protocol.*.allow":           "which transports git may run (ext:: runs a command)",
	"uploadpack.packobjectshook": "a program git runs",
	"ssh.variant":                "how git runs ssh",
	"safe.directory":             "which repositories git trusts",
	"extensions.worktreeconfig":  "a per-worktree file git reads configuration from",
	"core.sshcommand":            "a program git runs to connect",
	"core.pager":                 "a program git runs as its pager",
	"core.editor":                "a program git runs as its editor",
	"sequence.editor":            "a program git runs as its editor",
	"credential.helper":          "a program git runs for credentials",
	"credential.*.helper":        "a program git runs for credentials",
	"gpg.program":                "a program git runs to sign and verify",
	"gpg.*.program":              "a program git runs to sign and verify",
	"difftool.*.cmd":             "a program git runs",
	"difftool.*.path":            "a program git runs",
	"mergetool.*.cmd":            "a program git runs",
	"mergetool.*.path":           "a program git runs",
	"browser.*.cmd":              "a program git runs",
	"browser.*.path":             "a program git runs",
	"man.*.cmd":                  "a program git runs",
	"man.*.path":                 "a program git runs",
}

// SubmoduleWhy says why a .gitmodules entry is a risk: a url that is a
// local path or a command transport (file://, ext::, a leading '-'
// that git would take for an option), a path that leaves the work tree,
// an update command (git ignores "!cmd" from .gitmodules since 2.20.2,
// older gits do not).
func SubmoduleWhy(e Entry) string {
	if e.Section != "submodule" {
		return ""
	}
	v := e.Value
	switch e.Key {
	case "url":
		switch {
		case strings.HasPrefix(v, "-"):
			return "a url git would take for an option"
		case strings.HasPrefix(v, "ext::"), strings.Contains(v, "::"):
			return "a transport that runs a command"
		case strings.HasPrefix(v, "file:"), strings.HasPrefix(v, "/"), strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"), strings.HasPrefix(v, "~"), v == "." || v == "..":
			return "a submodule that is a repository on this machine, outside the checkout's remote"
		}
	case "path":
		if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "-") || v == ".." || strings.HasPrefix(v, "../") || strings.Contains(v, "/../") || strings.HasSuffix(v, "/..") || strings.EqualFold(v, ".git") || strings.Contains(strings.ToLower(v), ".git/") {
			return "a submodule path outside the work tree or into a git dir"
		}
	case "update":
		if strings.HasPrefix(v, "!") {
			return "a command git runs to update the submodule"
		}
	}
	return Why(e)
}
