package scan

import (
	"regexp"
	"strings"
)

// py is one Python file's tokens and the names its imports and simple
// assignments bind: `import inspect as i`, `from sys import _getframe as
// g`, `env = os.environ` all resolve to what they name, and so do
// getattr(m, "_get" + "frame"), __import__("inspect"),
// importlib.import_module(...), globals()["__builtins__"], vars(m)[...],
// m.__dict__[...] and sys.modules["inspect"].
type py struct {
	t     []tok
	alias map[string]string
	star  []string // modules imported with *
	skip  map[int]bool
	entry map[int]bool // lines that are a program's entry point
	fs    *findings
	// namesRunner: the file holds a string naming a runner; listing the
	// environment or the loaded modules is asking only then (requests'
	// packages.py lists sys.modules to alias its vendored packages).
	namesRunner bool
	// bound: aliases made by an assignment, which is judged where it is
	// made; their uses are judged only for what they go on to ask.
	bound map[string]bool
}

// pyFrames are what hands out the call stack's frames (the inspect and
// traceback docs, sys._getframe).
var pyFrames = map[string]bool{
	"sys._getframe": true, "sys._current_frames": true, "sys._getframemodulename": true, "sys._current_exceptions": true,
	"inspect.stack": true, "inspect.currentframe": true, "inspect.getouterframes": true, "inspect.getinnerframes": true,
	"inspect.trace": true, "inspect.getframeinfo": true,
	"traceback.extract_stack": true, "traceback.format_stack": true, "traceback.print_stack": true, "traceback.walk_stack": true,
	"traceback.StackSummary.extract": true, "logging.currentframe": true,
}

// pyHooks are the interpreter's hooks: whoever sets them sees or changes
// every import, call or exit (sys docs: meta_path, path_hooks, settrace,
// setprofile, addaudithook, excepthook).
var pyHooks = map[string]bool{
	"sys.meta_path": true, "sys.path_hooks": true, "sys.path_importer_cache": true, "sys.settrace": true, "sys.setprofile": true,
	"threading.settrace": true, "threading.setprofile": true, "threading.settrace_all_threads": true, "sys.addaudithook": true,
	"sys.exit": true, "os._exit": true, "sys.monitoring": true,
	"importlib.abc.MetaPathFinder": true, "importlib.abc.PathEntryFinder": true, "importlib.machinery.PathFinder": true,
}

// pyEnumerators, applied to os.environ or sys.modules, list every name.
var pyEnumerators = map[string]bool{"list": true, "sorted": true, "set": true, "tuple": true, "str": true, "repr": true, "print": true,
	"any": true, "all": true, "filter": true, "map": true, "enumerate": true, "iter": true, "next": true, "dumps": true, "frozenset": true, "pprint": true}

// pyIO: what reads or lists files, or loads a module by path.
var pyIO = map[string]bool{"open": true, "read_text": true, "read_bytes": true, "listdir": true, "scandir": true, "walk": true,
	"iterdir": true, "glob": true, "rglob": true, "iglob": true, "getline": true, "getlines": true, "getsource": true,
	"getsourcelines": true, "getsourcefile": true, "getfile": true, "import_module": true, "spec_from_file_location": true,
	"run_path": true, "run_module": true, "check_output": true, "exists": true, "isfile": true, "is_file": true, "Popen": true, "exec_module": true, "load_source": true, "fnmatch": true}

var pyRunnerName = regexp.MustCompile(`^(unittest\.(case|result|runner|main|loader|suite|signals|TestCase|TestResult|TextTestRunner|TextTestResult|TestProgram|TestLoader|TestSuite|IsolatedAsyncioTestCase)\b|_pytest\.|pytest\.(\w+)$|pluggy\.|builtins\.|sys\.(meta_path|modules|settrace)|doctest\.)`)

// pyUserArgs: sys.argv[1:], sys.argv[2]: the user's arguments, not the
// program's name.
var pyUserArgs = regexp.MustCompile(`^\[[1-9]\d*(:[^\]]*)?\]$`)

func pyAnalyze(fs *findings, p, src string, lines []string) {
	a := &py{t: pyTokens(src), alias: map[string]string{}, skip: map[int]bool{}, entry: pyEntryLines(p, lines), fs: fs, bound: map[string]bool{}}
	a.namesRunner = holdsRunnerName(a.t, a.alias)
	a.bind()
	a.walk()
	a.literals()
	a.equality(lines)
}

// pyEntryLines: the lines of an `if __name__ == "__main__":` block, or
// every line of an entry point.
func pyEntryLines(p string, lines []string) map[int]bool {
	out := map[int]bool{}
	all := entryPoint(p, lines)
	in, ind := false, 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if all {
			out[i+1] = true
			continue
		}
		if in && t != "" && indent(l) <= ind {
			in = false
		}
		if pyMain.MatchString(l) {
			in, ind = true, indent(l)
		}
		if in {
			out[i+1] = true
		}
	}
	return out
}

func (a *py) name(i int) string {
	if i >= 0 && i < len(a.t) && a.t[i].k == tName {
		return a.t[i].s
	}
	return ""
}

func (a *py) op(i int, s string) bool {
	return i >= 0 && i < len(a.t) && a.t[i].k == tOp && a.t[i].s == s
}

// close returns the index after the bracket that closes the one at i.
func closeAt(t []tok, i int) int {
	d := 0
	for j := i; j < len(t); j++ {
		if t[j].k != tOp {
			continue
		}
		switch t[j].s {
		case "(", "[", "{":
			d++
		case ")", "]", "}":
			d--
			if d == 0 {
				return j + 1
			}
		}
	}
	return len(t)
}

// bind records what imports and simple assignments name, in file order.
func (a *py) bind() {
	t := a.t
	start := 0
	for i := 0; i <= len(t); i++ {
		if i < len(t) && t[i].k != tNL {
			continue
		}
		a.stmt(start, i)
		start = i + 1
	}
}

func (a *py) stmt(s, e int) {
	t := a.t
	// One-line compounds: `try: import pytest`, `if x: y = z`.
	for s < e && (a.name(s) == "try" || a.name(s) == "else" || a.name(s) == "finally") && a.op(s+1, ":") {
		s += 2
	}
	switch a.name(s) {
	case "import":
		for i := s + 1; i < e; {
			mod, j := a.dotted(i, e)
			if mod == "" {
				i++
				continue
			}
			local, _, _ := strings.Cut(mod, ".")
			bound := local
			if a.name(j) == "as" && a.name(j+1) != "" {
				local, bound, j = a.name(j+1), mod, j+2
			}
			a.alias[local] = bound
			a.imported(t[i].line, mod)
			i = j + 1
		}
		for i := s; i < e; i++ {
			a.skip[i] = true
		}
		return
	case "from":
		mod, j := a.dotted(s+1, e)
		if mod == "" || a.name(j) != "import" {
			return
		}
		for i := s; i < e; i++ {
			a.skip[i] = true
		}
		for i := j + 1; i < e; i++ {
			n := a.name(i)
			if a.op(i, "*") {
				a.star = append(a.star, mod)
				a.imported(t[i].line, mod)
				continue
			}
			if n == "" || n == "as" {
				continue
			}
			local := n
			if a.name(i+1) == "as" && a.name(i+2) != "" {
				local = a.name(i + 2)
				i += 2
			}
			a.alias[local] = mod + "." + n
			a.imported(t[i].line, mod+"."+n)
		}
		return
	}
	// NAME = <expression naming something>, NAME = "literal".
	if a.name(s) != "" && a.op(s+1, "=") && s+2 < e {
		if v, ok, end := foldStr(t, s+2, a.alias); ok && end == e {
			a.alias["\x00"+t[s].s] = "\x01" + v
			return
		}
		// A call's result is a value, not a name for what was called.
		// Only a name for something imported (or reached by getattr,
		// __import__, globals(), vars()) is an alias: `f = f.f_back` is not.
		_, known := a.alias[a.name(s+2)]
		switch a.name(s + 2) {
		case "getattr", "__import__", "globals", "vars", "__builtins__":
			known = true
		}
		if p, _, end := a.chain(s+2, false); known && end == e && p != "" && p != t[s].s && !strings.Contains(p, "()") {
			a.alias[t[s].s] = p
			a.bound[t[s].s] = true
		}
	}
}

func (a *py) dotted(i, e int) (string, int) {
	var parts []string
	for i < e && a.name(i) != "" && a.name(i) != "import" && a.name(i) != "as" {
		parts = append(parts, a.name(i))
		i++
		if !a.op(i, ".") {
			break
		}
		i++
	}
	if len(parts) == 0 || a.op(i, ".") {
		return "", i
	}
	return strings.Join(parts, "."), i
}

func (a *py) imported(line int, mod string) {
	if runnerPyModule(mod) && mod != "unittest" && !strings.HasPrefix(mod, "doctest") && !a.entry[line] {
		a.fs.add(line, RuleUsesRunner, "imports the test runner ("+mod+")", mod)
	}
}

// step is one prefix of a resolved expression: "inspect", "inspect.stack",
// "inspect.stack()".
type step struct {
	path string
	line int
	end  int // token index after this step
}

var pyKeywords = map[string]bool{"def": true, "class": true, "import": true, "from": true, "as": true, "lambda": true, "return": true,
	"if": true, "elif": true, "else": true, "for": true, "while": true, "in": true, "not": true, "and": true, "or": true, "is": true,
	"with": true, "try": true, "except": true, "finally": true, "raise": true, "del": true, "pass": true, "yield": true, "await": true,
	"async": true, "global": true, "nonlocal": true, "assert": true, "None": true, "True": true, "False": true}

func (a *py) resolve(n string) string {
	if v, ok := a.alias[n]; ok {
		return v
	}
	if n == "__builtins__" {
		return "builtins"
	}
	for _, m := range a.star {
		if pyFrames[m+"."+n] || pyHooks[m+"."+n] || m+"."+n == "sys.argv" || m+"."+n == "os.environ" || m+"."+n == "sys.modules" || m+"."+n == "os.getenv" {
			return m + "." + n
		}
	}
	return n
}

func normPy(p string) string {
	for _, r := range [][2]string{{"posix.environ", "os.environ"}, {"nt.environ", "os.environ"}, {"os.environb", "os.environ"},
		{"posix.getenv", "os.getenv"}, {"os.getenvb", "os.getenv"}, {"sys.modules.__main__", "__main__"}, {"sys.modules.sys", "sys"},
		{"sys.modules.builtins", "builtins"}, {"sys.modules.os", "os"}} {
		if p == r[0] || strings.HasPrefix(p, r[0]+".") {
			return r[1] + p[len(r[0]):]
		}
	}
	if strings.HasPrefix(p, "sys.modules.") {
		if m := p[len("sys.modules."):]; m == "inspect" || strings.HasPrefix(m, "inspect.") || m == "traceback" || strings.HasPrefix(m, "traceback.") {
			return m
		}
	}
	return p
}

// chain resolves the expression at i. With emit, every step is judged.
func (a *py) chain(i int, emit bool) (string, []step, int) {
	t := a.t
	if a.name(i) == "" || pyKeywords[t[i].s] {
		return "", nil, i + 1
	}
	n := t[i].s
	line := t[i].line
	var p string
	j := i + 1
	switch {
	case (n == "getattr" || n == "hasattr") && a.resolve(n) == n && a.op(j, "("):
		inner, _, k := a.chain(j+1, false)
		if inner == "" || !a.op(k, ",") {
			return "", nil, j
		}
		attr, ok, _ := foldStr(t, k+1, a.alias)
		if !ok {
			attr = "*"
		}
		p = inner + "." + attr
		j = closeAt(t, j)
	case n == "__import__" && a.op(j, "("):
		m, ok, _ := foldStr(t, j+1, a.alias)
		if !ok {
			return "", nil, j
		}
		p = m
		j = closeAt(t, j)
	case n == "globals" && a.op(j, "(") && a.op(j+1, ")") && a.op(j+2, "["):
		k, ok, _ := foldStr(t, j+3, a.alias)
		if !ok {
			return "", nil, j
		}
		p = a.resolve(k)
		j = closeAt(t, j+2)
	case n == "vars" && a.op(j, "("):
		inner, _, k := a.chain(j+1, false)
		if inner == "" || !a.op(k, ")") {
			return "", nil, j
		}
		p = inner
		j = k + 1
	default:
		p = a.resolve(n)
	}
	p = normPy(p)
	steps := []step{{p, line, j}}
	for j < len(t) {
		switch {
		case a.op(j, ".") && a.name(j+1) != "":
			if t[j+1].s != "__dict__" {
				p = normPy(p + "." + t[j+1].s)
			}
			j += 2
		case a.op(j, "["):
			if k, ok, end := foldStr(t, j+1, a.alias); ok && a.op(end, "]") {
				p = normPy(p + "." + k)
			} else {
				var sl strings.Builder
				for _, x := range t[j+1 : closeAt(t, j)-1] {
					sl.WriteString(x.s)
				}
				p = p + "[" + sl.String() + "]"
			}
			j = closeAt(t, j)
		case a.op(j, "("):
			base, last := p, ""
			if d := strings.LastIndex(p, "."); d >= 0 {
				base, last = p[:d], p[d+1:]
			}
			k, ok, _ := foldStr(t, j+1, a.alias)
			switch {
			case (base == "os.environ" || base == "sys.modules") && (last == "get" || last == "pop" || last == "setdefault" || last == "__getitem__" || last == "__contains__"):
				if !ok {
					k = "*"
				}
				p = base + "." + k
			case (last == "__getattribute__" || last == "__getattr__") && ok && base != "":
				p = normPy(base + "." + k)
			case p == "object.__getattribute__" || p == "type.__getattribute__":
				if inner, _, e2 := a.chain(j+1, false); inner != "" && a.op(e2, ",") {
					if k2, ok2, _ := foldStr(t, e2+1, a.alias); ok2 {
						p = normPy(inner + "." + k2)
						break
					}
				}
				p += "()"
			case p == "os.getenv":
				if !ok {
					k = "*"
				}
				p = "os.environ." + k
			case (p == "importlib.import_module" || p == "importlib.__import__" || p == "builtins.__import__") && ok:
				p = normPy(k)
			case (p == "importlib.util.find_spec" || p == "pkgutil.find_loader" || p == "importlib.find_loader" || p == "pkgutil.resolve_name") && ok:
				p = "sys.modules." + k
			default:
				p += "()"
			}
			j = closeAt(t, j)
		default:
			goto done
		}
		steps = append(steps, step{p, line, j})
	}
done:
	if emit {
		a.judge(i, steps)
	}
	return p, steps, j
}

func (a *py) walk() {
	t := a.t
	for i := 0; i < len(t); i++ {
		if a.skip[i] || t[i].k != tName || a.op(i-1, ".") || a.name(i-1) == "def" || a.name(i-1) == "class" {
			continue
		}
		if (t[i].s == "setattr" || t[i].s == "delattr") && a.resolve(t[i].s) == t[i].s && a.op(i+1, "(") {
			a.setattr(i)
		}
		a.chain(i, true)
	}
}

func (a *py) setattr(i int) {
	t := a.t
	target, _, k := a.chain(i+2, false)
	if target == "" || !a.op(k, ",") {
		return
	}
	attr, ok, _ := foldStr(t, k+1, a.alias)
	if !ok {
		attr = "*"
	}
	full := target + "." + attr
	line := t[i].line
	switch {
	case attr == "__eq__" || attr == "__ne__" || attr == "__contains__":
		a.fs.add(line, RuleEquality, "sets "+attr+" on "+target+" at run time", target+"."+attr)
	case runnerPyModule(target) || strings.HasPrefix(target, "builtins") || pyHooks[full] || strings.HasPrefix(target, "sys.modules"):
		a.fs.add(line, RulePatch, t[i].s+" on "+full, full)
	}
}

// judge applies the classes to one resolved expression.
func (a *py) judge(i int, steps []step) {
	t := a.t
	line := t[i].line
	last := steps[len(steps)-1]
	next := last.end
	assign := next < len(t) && t[next].k == tOp && (t[next].s == "=" || len(t[next].s) == 2 && t[next].s[1] == '=' && t[next].s != "==" && t[next].s != "!=" && t[next].s != "<=" && t[next].s != ">=")
	del := a.name(i-1) == "del"
	for si, s := range steps {
		if si == 0 && a.bound[t[i].s] && s.path != "os.environ" && s.path != "sys.modules" && s.path != "process.env" {
			continue // membership in an alias is asked where it is used
		}
		p := s.path
		lastPart := p
		if d := strings.LastIndex(p, "."); d >= 0 {
			lastPart = p[d+1:]
		}
		// Rebinding a bare name is not changing what it named.
		mut := (assign || del) && si == len(steps)-1 && si > 0
		switch {
		case pyFrames[p] || lastPart == "f_back" && si > 0 || p == "sys.*" || p == "inspect.*" || p == "traceback.*":
			a.fs.add(line, RuleStack, "asks for the call stack ("+p+")", p)
		case pyHooks[p]:
			// The import system's lists and the tracing hooks: any use
			// changes (or reads) what every import or call goes through.
			// sys.exit and os._exit only when replaced.
			if mut || p != "sys.exit" && p != "os._exit" {
				a.fs.add(line, RulePatch, "hooks the interpreter ("+p+")", p)
			}
		case p == "sys.argv" || p == "sys.orig_argv":
			if a.entry[line] {
				continue
			}
			if si+1 < len(steps) && pyUserArgs.MatchString(strings.TrimPrefix(steps[si+1].path, p)) {
				continue
			}
			a.fs.add(line, RuleArgv, "asks which program runs it ("+p+")", p)
		case strings.HasPrefix(p, "__main__.") && si == 0 || p == "os.getppid" || p == "psutil.Process":
			if !a.entry[line] {
				a.fs.add(line, RuleArgv, "asks which program runs it ("+p+")", strings.TrimSuffix(p, "()"))
			}
		case !strings.HasPrefix(p, "os.environ.") && si > 0 && strings.Contains(p, ".environ.") && runnerEnv(lastPart) && !strings.Contains(lastPart, "("):
			a.fs.add(line, RuleEnv, "reads the runner's environment variable "+lastPart, lastPart)
		case strings.HasPrefix(p, "os.environ.") && !strings.Contains(p[len("os.environ."):], "."):
			name := p[len("os.environ."):]
			switch {
			case name == "keys()" || name == "items()" || name == "values()" || name == "__iter__()":
			case (name == "keys" || name == "items" || name == "values" || name == "__iter__") && a.namesRunner:
				a.fs.add(line, RuleEnv, "lists the environment (os.environ."+name+")", "os.environ")
			case runnerEnv(name):
				a.fs.add(line, RuleEnv, "reads the runner's environment variable "+name, name)
			}
		case p == "os.environ" && si == len(steps)-1:
			if a.enumerated(i) && a.namesRunner {
				a.fs.add(line, RuleEnv, "lists the environment (os.environ)", "os.environ")
			} else if k, ok := a.member(i); ok && runnerEnv(k) {
				a.fs.add(line, RuleEnv, "reads the runner's environment variable "+k, k)
			}
		case strings.HasPrefix(p, "sys.modules.") && !strings.Contains(p[len("sys.modules."):], "()"):
			name := p[len("sys.modules."):]
			switch {
			case (name == "keys" || name == "items" || name == "values" || name == "copy") && a.namesRunner:
				a.fs.add(line, RuleLoaded, "lists the loaded modules (sys.modules."+name+")", "sys.modules")
			case runnerPyModule(name) && mut:
				a.fs.add(line, RulePatch, "replaces the test runner's module "+name+" in sys.modules", name)
			case runnerPyModule(name):
				a.fs.add(line, RuleLoaded, "asks whether the test runner is loaded ("+name+")", name)
			}
		case p == "sys.modules" && si == len(steps)-1:
			if a.enumerated(i) && a.namesRunner {
				a.fs.add(line, RuleLoaded, "lists the loaded modules (sys.modules)", "sys.modules")
			} else if k, ok := a.member(i); ok && runnerPyModule(k) {
				a.fs.add(line, RuleLoaded, "asks whether the test runner is loaded ("+k+")", k)
			}
		case p == "gc.get_objects" || p == "gc.get_referrers" || p == "gc.get_referents":
			a.fs.add(line, RuleLoaded, "walks the interpreter's live objects ("+p+")", p)
		case p == "unittest.mock.ANY" || p == "mock.ANY":
			a.fs.add(line, RuleEquality, "uses "+p+", which equals anything", p)
		case strings.HasPrefix(p, "builtins.") && mut:
			a.fs.add(line, RulePatch, "patches the builtins ("+p+")", p)
		case strings.HasPrefix(p, "builtins.update") || strings.HasPrefix(p, "builtins.__setitem__"):
			a.fs.add(line, RulePatch, "patches the builtins ("+p+")", "builtins")
		case runnerPyModule(p) && p != "unittest" && !strings.HasPrefix(p, "doctest"):
			if mut {
				a.fs.add(line, RulePatch, "patches the test runner ("+p+")", p)
			} else if si == 0 || !runnerPyModule(steps[si-1].path) || steps[si-1].path == "unittest" {
				a.fs.add(line, RuleUsesRunner, "uses the test runner from code ("+p+")", p)
			}
		}
	}
}

// enumerated reports whether the expression at i is iterated or handed
// whole to something that lists it: `for k in os.environ`,
// `list(sys.modules)`, `any(... for m in sys.modules)`.
func (a *py) enumerated(i int) bool {
	if a.name(i-1) == "in" {
		for j := i - 2; j >= 0 && a.t[j].k != tNL; j-- {
			if a.name(j) == "for" {
				return true
			}
		}
		return false
	}
	if a.op(i-1, "(") && pyEnumerators[a.name(i-2)] {
		return true
	}
	return a.op(i-1, "*") && !a.op(i-2, "*") && (a.op(i-2, "(") || a.op(i-2, ","))
}

// member returns the constant name of `"NAME" in <expr at i>`.
func (a *py) member(i int) (string, bool) {
	j := i - 1
	if a.name(j) == "in" {
		j--
		if a.name(j) == "not" {
			j--
		}
	} else {
		return "", false
	}
	if j >= 0 && a.t[j].k == tStr {
		// Back over "a" + "b" to where the folded string starts.
		for j >= 2 && a.op(j-1, "+") && a.t[j-2].k == tStr {
			j -= 2
		}
		v, _, _ := foldStr(a.t, j, a.alias)
		return v, true
	}
	if j >= 0 && a.t[j].k == tName {
		if v := a.alias["\x00"+a.t[j].s]; v != "" {
			return strings.TrimPrefix(v, "\x01"), true
		}
	}
	return "", false
}

// literals judges the strings the code holds: a test file's or runner
// config's name in a file that reads files, /proc's view of the process,
// a runner's environment variable kept in a constant, a mock.patch target
// inside the runner.
func (a *py) literals() {
	t := a.t
	io, env := false, false
	for i := range t {
		if t[i].k == tName && pyIO[t[i].s] {
			io = true
		}
		if t[i].k == tName && (t[i].s == "environ" || t[i].s == "getenv") {
			env = true
		}
	}
	for i := 0; i < len(t); i++ {
		if t[i].k == tName && !a.op(i-1, ".") {
			// A decoder's call: base64.b64decode("..."), chr(80) + "...".
			if v, ok, end, dec := foldExpr(t, i, a.alias); ok && dec != "" {
				a.fs.hidden(t[i].line, v, dec)
				a.judgeDecoded(v, t[i].line)
				i = max(i, end-1)
			}
			continue
		}
		if t[i].k != tStr {
			continue
		}
		v, _, end, dec := foldExpr(t, i, a.alias)
		line := t[i].line
		a.fs.hidden(line, v, dec)
		if (i == 0 || t[i-1].k == tNL) && (end >= len(t) || t[end].k == tNL) {
			i = max(i, end-1)
			continue // a docstring, or a string that does nothing
		}
		call := enclosingCall(t, i)
		switch {
		case (call == "eval" || call == "exec" || call == "compile") && a.op(i-1, "("):
			a.sub(v, line) // code in a string runs as code
		case isProc(v):
			a.fs.add(line, RuleArgv, "reads what /proc tells of the process ("+v+")", v)
		case pyFrameAttr[v]:
			a.fs.add(line, RuleStack, "names the call stack's attribute "+quote(v), v)
		case runnerNameLit(v) && compared(t, i, end):
			a.fs.add(line, RuleLoaded, "compares what it found with the test runner's name "+quote(v), v)
		case io && testDirLit(t, i, end, v):
			a.fs.add(line, RuleReadsTests, "builds a path into the tests ("+quote(v)+") in code that reads files", v)
		case io && testPathValue(v):
			a.fs.add(line, RuleReadsTests, "names the runner's test or config file "+quote(v)+" in code that reads files", v)
		case io && testSourceLit.MatchString(v):
			a.fs.add(line, RuleReadsTests, "searches what it reads for test code ("+quote(v)+")", v)
		case env && strictRunnerEnv(v):
			a.fs.add(line, RuleEnv, "names the runner's environment variable "+v, v)
		case pyRunnerName.MatchString(v) && !strings.HasSuffix(v, ".ini") && !strings.HasSuffix(v, ".py"):
			a.fs.add(line, RulePatch, "names the test runner's internals ("+v+")", v)
		}
		i = max(i, end-1)
	}
}

// pyFrameAttr: names only the frame and hook machinery has, as strings
// for getattr, operator.attrgetter or a lookup table.
var pyFrameAttr = map[string]bool{"_getframe": true, "currentframe": true, "_current_frames": true, "f_back": true,
	"getouterframes": true, "extract_stack": true, "_getframemodulename": true, "tb_frame": true}

// sub analyzes code held in a string (eval, exec, compile) as if written
// where the string is.
func (a *py) sub(code string, line int) {
	toks := pyTokens(code)
	for i := range toks {
		toks[i].line = line
	}
	b := &py{t: toks, alias: map[string]string{}, skip: map[int]bool{}, entry: a.entry, fs: a.fs, namesRunner: a.namesRunner, bound: map[string]bool{}}
	for k, v := range a.alias {
		b.alias[k] = v
	}
	b.bind()
	b.walk()
	b.literals()
}

// strictRunnerEnv: a runner's own variable, by its prefix.
func strictRunnerEnv(v string) bool {
	for _, p := range []string{"PYTEST_", "VITEST", "JEST_WORKER", "NODE_TEST_CONTEXT", "npm_lifecycle_", "SHADOW_", "UNITTEST_"} {
		if strings.HasPrefix(v, p) && !strings.ContainsAny(v, " /.") {
			return true
		}
	}
	return false
}

func quote(s string) string { return `"` + s + `"` }

// equality flags an __eq__, __ne__ or __contains__ that never looks at
// what it is compared with, or whose answer ends in `or True`.
func (a *py) equality(lines []string) {
	t := a.t
	for i := 0; i+1 < len(t); i++ {
		switch {
		case a.name(i) == "def" && isCmpDunder(a.name(i+1)) && a.op(i+2, "("):
			params, k := pyParams(t, i+3, ")")
			if a.op(k, "->") {
				for k < len(t) && !a.op(k, ":") && t[k].k != tNL {
					k++
				}
			}
			if !a.op(k, ":") {
				continue
			}
			var body []tok
			if k+1 < len(t) && t[k+1].k != tNL {
				for j := k + 1; j < len(t) && t[j].k != tNL; j++ {
					body = append(body, t[j])
				}
			} else {
				def := t[i].line
				ind := indent(lines[def-1])
				end := def
				for j := def; j < len(lines); j++ {
					if strings.TrimSpace(lines[j]) == "" || strings.HasPrefix(strings.TrimSpace(lines[j]), "#") {
						continue
					}
					if indent(lines[j]) <= ind {
						break
					}
					end = j + 1
				}
				for j := k + 1; j < len(t) && t[j].line <= end; j++ {
					body = append(body, t[j])
				}
			}
			a.cmpBody(t[i].line, t[i+1].s, params, body)
		case isCmpDunder(a.name(i)) && a.op(i+1, "=") && a.name(i+2) == "lambda":
			params, k := pyParams(t, i+3, ":")
			var body []tok
			d := 0
			for j := k + 1; j < len(t) && t[j].k != tNL; j++ {
				if t[j].k == tOp && (t[j].s == "(" || t[j].s == "[" || t[j].s == "{") {
					d++
				} else if t[j].k == tOp && (t[j].s == ")" || t[j].s == "]" || t[j].s == "}") {
					d--
				}
				if d < 0 || d == 0 && a.op(j, ",") {
					break
				}
				body = append(body, t[j])
			}
			a.cmpBody(t[i].line, t[i].s, params, body)
		}
	}
}

func isCmpDunder(n string) bool {
	return n == "__eq__" || n == "__ne__" || n == "__contains__"
}

func pyParams(t []tok, i int, end string) ([]string, int) {
	var ps []string
	d := 0
	expect := true
	for ; i < len(t); i++ {
		if t[i].k == tOp {
			switch t[i].s {
			case "(", "[", "{":
				d++
			case ")", "]", "}":
				if d == 0 && end == ")" {
					return ps, i + 1
				}
				d--
			case ",":
				if d == 0 {
					expect = true
				}
			case ":", "=":
				if d == 0 && t[i].s == end {
					return ps, i
				}
				if d == 0 {
					expect = false
				}
			}
			continue
		}
		if t[i].k == tNL {
			return ps, i
		}
		if expect && t[i].k == tName {
			ps = append(ps, t[i].s)
			expect = false
		}
	}
	return ps, i
}

func (a *py) cmpBody(line int, fn string, params []string, body []tok) {
	if len(body) == 0 {
		return
	}
	other := ""
	if len(params) >= 2 {
		other = params[1]
	}
	uses := false
	for j, b := range body {
		if b.k == tName && (b.s == "NotImplemented" || b.s == "raise" && j == 0) {
			return
		}
		if b.k == tName && b.s == other && other != "" {
			uses = true
		}
	}
	// ... or True / ... or 1 at the end of an answer.
	orConst := false
	for j := 0; j+1 < len(body); j++ {
		c := body[j+1]
		if body[j].k == tName && body[j].s == "or" && (c.s == "True" || c.k == tNum && c.s != "0" || c.k == tStr && c.s != "") &&
			(j+2 == len(body) || body[j+2].k == tNL) {
			orConst = true
		}
	}
	if !uses || orConst && fn != "__ne__" {
		a.fs.add(line, RuleEquality, "defines "+fn+" whose answer does not depend on what it is compared with", fn)
	}
}

// judgeDecoded judges a decoded string as the literal it spells: a
// frame attribute, a runner's variable or module.
func (a *py) judgeDecoded(v string, line int) {
	switch {
	case pyFrameAttr[v]:
		a.fs.add(line, RuleStack, "names the call stack's attribute "+quote(v), v)
	case strictRunnerEnv(v):
		a.fs.add(line, RuleEnv, "names the runner's environment variable "+v, v)
	case isProc(v):
		a.fs.add(line, RuleArgv, "reads what /proc tells of the process ("+v+")", v)
	}
}
