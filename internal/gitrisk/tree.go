package gitrisk

import (
	"fmt"
	"path"
	"strings"
)

// Change is one path a candidate writes (Content) or deletes, with what
// the checkout held there before (Old, nil for a new file).
type Change struct {
	Path    string // '/'-separated, relative to the checkout
	Content []byte
	Old     []byte
	Deleted bool
}

// Risk is one thing git would obey, at Path.
type Risk struct{ Path, Why string }

func (r Risk) String() string { return r.Path + " (" + r.Why + ")" }

// hookManagers are paths tools install as git hooks (husky's
// core.hooksPath, the conventional .githooks, pre-commit's and
// lefthook's configs, whose commands the installed hook runs at the
// user's next commit).
var hookManagers = []string{".husky/", ".githooks/", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml", ".lefthook-local.yml", "lefthook.yaml", ".lefthook.yaml"}

// Check lists what git would obey among changes, judging the tree after
// they are applied. has reports whether a path ('/'-separated, "" is the
// checkout's root) exists after the changes (the caller combines the
// checkout with them); hookDirs are the checkout's own core.hooksPath
// directories inside it. Judged:
//
//   - a path through an entry named .git (any case: a case-insensitive
//     file system takes .GIT for .git): a repository or a "gitdir:" file;
//   - a path inside a directory git takes for a repository: it holds
//     HEAD and objects/ or refs/ (git's is_git_directory wants HEAD,
//     objects and refs, or HEAD and a commondir file naming where they
//     are; objects/ alone is enough here, since GIT_OBJECT_DIRECTORY
//     stands in for it): git discovers it as a bare repository when it
//     runs in or below it, and obeys its config and hooks;
//   - a configuration variable in ANY file the candidate writes, read as
//     a git config file, that names a program git runs or where it reads
//     settings from (Why), if the checkout's version did not have it
//     (an include.path or core.attributesFile makes any file a config);
//   - a .gitmodules entry SubmoduleWhy refuses;
//   - a file in a hooks directory: the checkout's core.hooksPath, or one
//     a hook manager installs (hookManagers).
//
// Each repository directory is named once. Linear in the changes' bytes
// and paths.
func Check(changes []Change, has func(string) bool, hookDirs []string) []Risk {
	var out []Risk
	gitDir := map[string]bool{} // directory -> is a git dir (memo)
	named := map[string]bool{}
	isGit := func(d string) bool {
		v, ok := gitDir[d]
		if !ok {
			j := func(n string) string {
				if d == "" {
					return n
				}
				return d + "/" + n
			}
			v = has(j("HEAD")) && (has(j("commondir")) || has(j("objects")) || has(j("refs")))
			gitDir[d] = v
		}
		return v
	}
	for _, c := range changes {
		if w := dotGit(c.Path); w != "" {
			out = append(out, Risk{Path: c.Path, Why: w})
			continue
		}
		for d := path.Dir(c.Path); ; d = path.Dir(d) {
			if d == "." {
				d = ""
			}
			if isGit(d) {
				if !named[d] {
					named[d] = true
					name := d + "/"
					if d == "" {
						name = "the checkout's root"
					}
					out = append(out, Risk{Path: name, Why: "a directory git takes for a repository (it holds HEAD and objects/, refs/ or commondir): git obeys its config and hooks wherever it runs in or below it"})
				}
				break
			}
			if d == "" {
				break
			}
		}
		if hd := hookDir(c.Path, hookDirs); hd != "" {
			out = append(out, Risk{Path: c.Path, Why: "a git hook: " + hd + " is where git or a hook manager takes the hooks it runs"})
		}
		if c.Deleted {
			continue
		}
		out = append(out, configRisks(c)...)
	}
	return out
}

// dotGit says why p goes through an entry git reads as a repository or
// a "gitdir:" file ("" when it does not).
func dotGit(p string) string {
	for _, c := range strings.Split(p, "/") {
		if strings.EqualFold(c, ".git") {
			return "a .git entry: git reads it as a repository, or as a gitdir: file naming one"
		}
	}
	return ""
}

func hookDir(p string, hookDirs []string) string {
	for _, h := range hookDirs {
		if h = strings.Trim(h, "/"); h != "" && strings.HasPrefix(p, h+"/") {
			return h + "/"
		}
	}
	for _, h := range hookManagers {
		if p == h || strings.HasSuffix(h, "/") && strings.HasPrefix(p, h) {
			return h
		}
	}
	return ""
}

// configRisks are the entries of c's content, read as git config, that
// Why (SubmoduleWhy for a .gitmodules) refuses and its old content did not
// hold (same name and value), each named with its line.
func configRisks(c Change) []Risk {
	entries := ParseConfig(c.Content)
	if len(entries) == 0 {
		return nil
	}
	why := Why
	if path.Base(c.Path) == ".gitmodules" {
		why = SubmoduleWhy
	}
	var old map[string]bool // read only when the new content has a hit
	var hits []string
	seen := map[string]bool{}
	for _, e := range entries {
		w := why(e)
		if w == "" || seen[e.Name()] {
			continue
		}
		if old == nil {
			old = map[string]bool{}
			for _, o := range ParseConfig(c.Old) {
				old[o.Name()+"="+o.Value] = true
			}
		}
		if old[e.Name()+"="+e.Value] {
			continue
		}
		seen[e.Name()] = true
		hits = append(hits, fmt.Sprintf("line %d sets %s: %s", e.Line, e.Name(), w))
	}
	if len(hits) == 0 {
		return nil
	}
	return []Risk{{Path: c.Path, Why: "git config " + strings.Join(hits, "; ")}}
}
