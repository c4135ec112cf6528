package scan

import (
	"strconv"
	"strings"
)

// js is one JavaScript or TypeScript file's tokens and the names its
// imports, requires, destructurings and simple declarations bind:
// `import { expect as e } from "vitest"`, `const { VITEST } = process.env`,
// `const p = globalThis["pro" + "cess"]`, `const e = new Error()` all
// resolve to what they name.
type js struct {
	t        []tok
	alias    map[string]string
	declared map[string]bool
	entry    bool
	fs       *findings
	// namesRunner: as for Python, listing the environment is asking
	// only in a file that holds a runner's name.
	namesRunner bool
	// bound: aliases made by a declaration, judged where it is made.
	bound map[string]bool
}

var jsDeclKw = map[string]bool{"const": true, "let": true, "var": true}

// jsIO: what reads or lists files, or loads a module by a computed name.
var jsIO = map[string]bool{"readFileSync": true, "readFile": true, "readdirSync": true, "readdir": true, "createReadStream": true,
	"opendir": true, "opendirSync": true, "glob": true, "globSync": true, "fg": true, "fastGlob": true, "existsSync": true,
	"statSync": true, "readJson": true, "readJSON": true, "readJsonSync": true, "tinyglobby": true, "sync": true, "walk": true}

func jsAnalyze(fs *findings, p, src string, lines []string) {
	a := &js{t: jsTokens(src), alias: map[string]string{}, declared: map[string]bool{}, entry: entryPoint(p, lines), fs: fs, bound: map[string]bool{}}
	a.namesRunner = holdsRunnerName(a.t, nil)
	if !a.entry && !jsExports(a.t) {
		a.entry = true // a script: nothing imports it for what it exports
	}
	a.bind()
	a.walk()
	a.literals()
	a.equality()
}

func (a *js) name(i int) string {
	if i >= 0 && i < len(a.t) && a.t[i].k == tName {
		return a.t[i].s
	}
	return ""
}

func (a *js) op(i int, s string) bool {
	return i >= 0 && i < len(a.t) && a.t[i].k == tOp && a.t[i].s == s
}

func normJSModule(m string) string {
	m = strings.TrimPrefix(m, "node:")
	if m == "process" || m == "module" {
		return m
	}
	return m
}

// bind records imports, requires and declarations, in file order.
func (a *js) bind() {
	t := a.t
	for i := 0; i < len(t); i++ {
		switch {
		case a.name(i) == "import" && !a.op(i+1, "(") && !a.op(i+1, "."):
			a.importDecl(i)
		case a.name(i) == "require" && a.op(i+1, "(") && i+2 < len(t) && t[i+2].k == tStr && a.op(i+3, ")"):
			a.imported(t[i].line, normJSModule(t[i+2].s))
		case a.op(i, "(") && (a.op(closeAt(t, i), "=>") || a.name(i-1) == "function" || a.name(i-2) == "function" || a.name(i-1) == "catch"):
			// Parameters are declared names.
			e := closeAt(t, i)
			for k := i + 1; k < e; k++ {
				if a.name(k) != "" && (a.op(k-1, "(") || a.op(k-1, ",") || a.op(k-1, "{") || a.op(k-1, "...")) {
					a.declared[t[k].s] = true
				}
			}
		case a.name(i) != "" && a.op(i+1, "=>"):
			a.declared[t[i].s] = true
		case jsDeclKw[a.name(i)] || a.name(i) == "function" || a.name(i) == "class":
			if n := a.name(i + 1); n != "" {
				a.declared[n] = true
			}
			if jsDeclKw[a.name(i)] {
				a.declaration(i + 1)
			}
		}
	}
}

func (a *js) importDecl(i int) {
	t := a.t
	// Find the module: the string after "from", or right after import.
	j := i + 1
	for j < len(t) && t[j].k != tNL && t[j].k != tStr {
		j++
	}
	if j >= len(t) || t[j].k != tStr {
		return
	}
	mod := normJSModule(t[j].s)
	k := i + 1
	if a.name(k) == "type" {
		return // TypeScript's types: erased, nothing runs
	}
	a.imported(t[i].line, mod)
	// TypeScript's import X = require("m").
	if a.name(k) != "" && a.op(k+1, "=") {
		a.alias[t[k].s], a.declared[t[k].s] = mod, true
		return
	}
	for ; k < j; k++ {
		switch {
		case a.op(k, "*") && a.name(k+1) == "as" && a.name(k+2) != "":
			a.alias[t[k+2].s], a.declared[t[k+2].s] = mod, true
			k += 2
		case a.op(k, "{"):
			e := closeAt(t, k) - 1
			a.specifiers(k+1, e, mod, "as")
			k = e
		case a.name(k) != "" && a.name(k) != "from" && (a.op(k+1, ",") || a.name(k+1) == "from"):
			a.alias[t[k].s], a.declared[t[k].s] = mod, true
		}
	}
}

// specifiers binds `a, b as c` (import) or `a, b: c` (destructuring)
// between s and e to base.a, base.b.
func (a *js) specifiers(s, e int, base, rename string) []string {
	var names []string
	t := a.t
	for k := s; k < e; k++ {
		n := a.name(k)
		if n == "" || n == "type" && a.name(k+1) != "" {
			continue
		}
		local := n
		if rename == "as" && a.name(k+1) == "as" && a.name(k+2) != "" {
			local = t[k+2].s
			k += 2
		} else if rename == ":" && a.op(k+1, ":") && a.name(k+2) != "" {
			local = t[k+2].s
			k += 2
		}
		if a.op(k+1, "{") || a.op(k+1, "[") {
			k = closeAt(t, k+1) - 1
			continue
		}
		if a.op(k+1, "=") { // a default: skip its expression
			for k+1 < e && !a.op(k+1, ",") {
				k++
			}
		}
		a.alias[local], a.declared[local] = base+"."+n, true
		names = append(names, n)
	}
	return names
}

// declaration handles `X = <expr>` and `{ a, b: c } = <expr>` after const,
// let or var.
func (a *js) declaration(i int) {
	t := a.t
	if a.op(i, "{") {
		e := closeAt(t, i)
		if !a.op(e, "=") {
			return
		}
		src, _, _ := a.chain(e+1, false)
		if src == "" {
			return
		}
		for _, n := range a.specifiers(i+1, e-1, src, ":") {
			if src == "Error()" && n == "stack" {
				a.fs.add(t[i].line, RuleStack, "asks for the call stack (const { stack } = new Error())", "Error().stack")
			}
			if src == "process.env" && runnerEnv(n) {
				a.fs.add(t[i].line, RuleEnv, "reads the runner's environment variable "+n, n)
			}
			if src == "process" && (n == "argv" || n == "argv0" || n == "execArgv" || n == "ppid" || n == "title") && !a.entry {
				a.fs.add(t[i].line, RuleArgv, "asks which program runs it (process."+n+")", "process."+n)
			}
		}
		return
	}
	n := a.name(i)
	if n == "" {
		return
	}
	j := i + 1
	if a.op(j, ":") { // a TypeScript annotation
		for j < len(t) && !a.op(j, "=") && t[j].k != tNL {
			j++
		}
	}
	if !a.op(j, "=") {
		return
	}
	if v, ok, end := foldStr(t, j+1, a.alias); ok && (end >= len(t) || t[end].k == tNL || a.op(end, ",")) {
		a.alias["\x00"+n] = "\x01" + v
		return
	}
	if a.name(j+1) == "await" {
		j++
	}
	// Only a name for something imported or global is an alias, and a
	// call's result only where it is a fresh Error (its .stack is asked
	// later): `var args = Array.prototype.slice.call(arguments)` is a value.
	if a.op(j+1, "(") && j+4 < len(t) && t[j+2].k == tNum && a.op(j+3, ",") && a.name(j+4) == "eval" {
		j += 3 // (0, eval)("this")
	}
	first := a.name(j + 1)
	_, known := a.alias[first]
	known = known || jsKnownRoots[first] || first == "new" || first == "Function" || first == "eval"
	if p, _, _ := a.chain(j+1, false); known && p != "" && p != n && (!strings.Contains(p, "()") || p == "Error()") {
		a.alias[n] = p
		if p != "Error()" { // a fresh error is asked only when its stack is read
			a.bound[n] = true
		}
	}
}

func (a *js) imported(line int, mod string) {
	if runnerJSModule(mod) && mod != "assert" && mod != "assert/strict" && !a.entry {
		a.fs.add(line, RuleUsesRunner, "imports the test runner ("+mod+")", mod)
	}
	if testPathValue(mod) && (strings.HasPrefix(mod, ".") || strings.HasPrefix(mod, "/")) {
		a.fs.add(line, RuleReadsTests, "loads a test file ("+mod+")", mod)
	}
}

// jsErrorCtors: the builtin errors, whose fresh instance's stack is the
// caller's (a project's own Error subclass may set its stack any way).
var jsErrorCtors = map[string]bool{"Error": true, "TypeError": true, "RangeError": true, "SyntaxError": true,
	"ReferenceError": true, "EvalError": true, "URIError": true, "AggregateError": true}

// jsKnownRoots: the globals the classes follow through an alias.
var jsKnownRoots = map[string]bool{"process": true, "globalThis": true, "global": true, "window": true, "self": true,
	"require": true, "module": true, "Error": true, "Object": true, "Reflect": true, "import": true, "arguments": true}

var jsGlobalObjects = map[string]bool{"globalThis": true, "global": true, "window": true, "self": true}

func (a *js) resolve(n string) string {
	if v, ok := a.alias[n]; ok {
		return v
	}
	return n
}

// chain resolves the expression at i (a name, `new Error(...)`,
// `require("m")`, `import("m")`) and its members and calls.
func (a *js) chain(i int, emit bool) (string, []step, int) {
	t := a.t
	n := a.name(i)
	if n == "" {
		return "", nil, i + 1
	}
	line := t[i].line
	j := i + 1
	var p string
	switch {
	case n == "new" && jsErrorCtors[a.resolve(a.name(i+1))]:
		j = i + 2
		if a.op(j, "(") {
			j = closeAt(t, j)
		}
		p = "Error()"
		// (new Error).stack
		if a.op(i-1, "(") && a.op(j, ")") && (a.op(j+1, ".") || a.op(j+1, "?.")) {
			j++
		}
	case (n == "require" || n == "import") && a.op(j, "(") && foldsTo(t, j+1, a.alias, ")"):
		m, _, _ := foldStr(t, j+1, a.alias)
		p = normJSModule(m)
		j = closeAt(t, j)
	case (n == "Function" || n == "new" && a.name(i+1) == "Function") && a.returnsThis(i):
		// Function("return this")() is the global object, whatever the
		// module's scope hides (ECMA-262, CreateDynamicFunction: its body
		// runs as sloppy global code).
		j = i + 1
		if n == "new" {
			j++
		}
		j = closeAt(t, closeAt(t, j))
		p = "globalThis"
	case n == "eval" && a.op(i-1, ",") && a.op(j, ")") && a.op(j+1, "(") && j+3 < len(t) && t[j+2].k == tStr && strings.TrimSpace(t[j+2].s) == "this" && a.op(j+3, ")"):
		// (0, eval)("this"): an indirect eval runs in the global scope
		// (ECMA-262, PerformEval with direct false).
		j += 4
		p = "globalThis"
	default:
		if jsKeyword[n] {
			return "", nil, i + 1
		}
		p = a.resolve(n)
	}
	// (await import("m")).env
	if (n == "import" || n == "require") && a.name(i-1) == "await" && a.op(i-2, "(") && a.op(j, ")") && (a.op(j+1, ".") || a.op(j+1, "?.")) {
		j++
	}
	steps := []step{{p, line, j}}
	for j < len(t) {
		switch {
		case (a.op(j, ".") || a.op(j, "?.")) && a.name(j+1) != "":
			p = normJS(p + "." + t[j+1].s)
			j += 2
		case a.op(j, "!") && (a.op(j+1, ".") || a.op(j+1, "?.")): // TypeScript's non-null assertion
			j++
			continue
		case a.op(j, "[") || a.op(j, "?.") && a.op(j+1, "["):
			if a.op(j, "?.") {
				j++
			}
			if k, ok, end := foldStr(t, j+1, a.alias); ok && a.op(end, "]") {
				p = normJS(p + "." + k)
			} else if j+1 < len(t) && t[j+1].k == tNum && a.op(j+2, "]") {
				p = p + "[" + t[j+1].s + "]"
			} else {
				p = p + "[]"
			}
			j = closeAt(t, j)
		case a.op(j, "(") || a.op(j, "?.") && a.op(j+1, "("):
			if a.op(j, "?.") {
				j++
			}
			if emit {
				a.call(p, j, line)
			}
			if jsErrorCtors[p] {
				p = "Error()"
			} else {
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

var jsKeyword = map[string]bool{"new": true, "typeof": true, "return": true, "if": true, "else": true, "for": true, "while": true,
	"const": true, "let": true, "var": true, "function": true, "class": true, "in": true, "of": true, "instanceof": true,
	"delete": true, "void": true, "throw": true, "case": true, "export": true, "default": true, "await": true, "async": true,
	"true": true, "false": true, "null": true, "undefined": true, "this": true, "yield": true, "extends": true, "from": true,
	"switch": true, "try": true, "catch": true, "finally": true, "do": true, "break": true, "continue": true, "static": true}

// normJS drops the global object: globalThis.process is process.
func normJS(p string) string {
	for g := range jsGlobalObjects {
		if strings.HasPrefix(p, g+".") && len(p) > len(g)+1 {
			return p[len(g)+1:]
		}
	}
	if strings.HasPrefix(p, "process.process.") {
		return p[len("process."):]
	}
	// module.constructor is node's Module: its _load, _cache, _extensions.
	for _, m := range []string{"module.constructor.", "module.Module."} {
		if strings.HasPrefix(p, m) {
			return "module." + p[len(m):]
		}
	}
	return p
}

func (a *js) walk() {
	t := a.t
	for i := 0; i < len(t); i++ {
		if t[i].k != tName || a.op(i-1, ".") || a.op(i-1, "?.") {
			continue
		}
		if a.name(i) == "import" && !a.op(i+1, "(") && !a.op(i+1, ".") {
			for i < len(t) && t[i].k != tNL {
				i++
			}
			continue
		}
		if a.name(i) == "typeof" && a.name(i+1) != "" && !a.op(i+2, ".") && jsRunnerGlobals[t[i+1].s] && !a.declared[t[i+1].s] {
			a.fs.add(t[i].line, RuleLoaded, "asks whether the test runner is loaded (typeof "+t[i+1].s+")", t[i+1].s)
		}
		if a.name(i) == "import" && a.op(i+1, ".") && a.name(i+2) == "meta" {
			a.importMeta(i)
			continue
		}
		// A global object's runner name: globalThis.expect, window.__vitest_worker__.
		if jsGlobalObjects[t[i].s] && !a.declared[t[i].s] || jsGlobalObjects[a.alias[t[i].s]] {
			var g string
			var end int
			if a.op(i+1, ".") && a.name(i+2) != "" {
				g, end = t[i+2].s, i+3
			} else if a.op(i+1, "[") {
				if v, ok, e := foldStr(t, i+2, a.alias); ok && a.op(e, "]") {
					g, end = v, e+1
				}
			}
			if g != "" && (jsRunnerGlobals[g] || strings.HasPrefix(g, "__vitest") || strings.HasPrefix(g, "__jest") || strings.HasPrefix(g, "__mocha")) {
				if a.assigned(end) {
					a.fs.add(t[i].line, RulePatch, "replaces the test runner's global "+g, g)
				} else {
					a.fs.add(t[i].line, RuleLoaded, "asks whether the test runner is loaded (global "+g+")", g)
				}
			}
		}
		a.chain(i, true)
	}
}

func (a *js) importMeta(i int) {
	t := a.t
	j := i + 3
	var parts []string
	for a.op(j, ".") && a.name(j+1) != "" {
		parts = append(parts, t[j+1].s)
		j += 2
	}
	p := "import.meta." + strings.Join(parts, ".")
	switch {
	case len(parts) >= 1 && (parts[0] == "vitest" || parts[0] == "jest"):
		a.fs.add(t[i].line, RuleLoaded, "asks whether the test runner is loaded ("+p+")", p)
	case len(parts) == 2 && parts[0] == "env" && (runnerEnv(parts[1]) || a.comparedToTest(j, i)):
		a.fs.add(t[i].line, RuleEnv, "reads the runner's environment variable "+parts[1], parts[1])
	}
}

// assigned reports whether the token at j starts an assignment.
func (a *js) assigned(j int) bool {
	if j >= len(a.t) || a.t[j].k != tOp {
		return false
	}
	s := a.t[j].s
	return s == "=" || len(s) >= 2 && strings.HasSuffix(s, "=") && s != "==" && s != "===" && s != "!=" && s != "!==" && s != "<=" && s != ">=" && s != "=>"
}

// comparedToTest: the value between s and e is compared with "test".
func (a *js) comparedToTest(e, s int) bool {
	cmp := func(i int) bool {
		return a.op(i, "===") || a.op(i, "==") || a.op(i, "!==") || a.op(i, "!=")
	}
	isTest := func(i int) bool { return i >= 0 && i < len(a.t) && a.t[i].k == tStr && a.t[i].s == "test" }
	return cmp(e) && isTest(e+1) || cmp(s-1) && isTest(s-2)
}

// call judges a call by what it is handed: the object a defineProperty
// changes, what Object.keys lists, whose stack captureStackTrace fills.
func (a *js) call(p string, j, line int) {
	t := a.t
	arg, _, end := a.chain(j+1, false)
	this := a.name(j+1) == "this"
	switch p {
	case "Object.keys", "Object.entries", "Object.values", "Object.getOwnPropertyNames", "Reflect.ownKeys", "JSON.stringify":
		if arg == "process.env" && a.op(end, ")") && a.namesRunner {
			a.fs.add(line, RuleEnv, "lists the environment ("+p+"(process.env))", "process.env")
		}
		if jsGlobalObjects[arg] && a.op(end, ")") && a.namesRunner {
			a.fs.add(line, RuleLoaded, "lists the globals ("+p+"("+arg+"))", arg)
		}
		if arg == "require.cache" {
			a.fs.add(line, RuleLoaded, "lists the loaded modules ("+p+"(require.cache))", "require.cache")
		}
	case "Object.defineProperty", "Object.defineProperties", "Object.assign", "Object.setPrototypeOf", "Reflect.set",
		"Reflect.defineProperty", "Reflect.deleteProperty", "Reflect.setPrototypeOf":
		if a.sensitiveTarget(arg) || a.name(j+1) != "" && jsGlobalObjects[a.name(j+1)] && a.op(j+2, ",") && j+3 < len(t) && t[j+3].k == tStr && jsRunnerGlobals[t[j+3].s] {
			a.fs.add(line, RulePatch, "patches the test runner or a builtin ("+p+" on "+arg+")", arg)
		}
	case "Reflect.get", "Reflect.has", "Reflect.getOwnPropertyDescriptor", "Object.getOwnPropertyDescriptor", "Object.hasOwn",
		"Object.prototype.hasOwnProperty.call", "Object.prototype.propertyIsEnumerable.call":
		if arg == "Error()" && a.op(end, ",") {
			if k, ok, _ := foldStr(t, end+1, a.alias); ok && k == "stack" {
				a.fs.add(line, RuleStack, "asks for the call stack ("+p+"(new Error(), \"stack\"))", "Error().stack")
			}
		}
		if arg == "process.env" && a.op(end, ",") {
			if k, ok, _ := foldStr(t, end+1, a.alias); ok && runnerEnv(k) {
				a.fs.add(line, RuleEnv, "reads the runner's environment variable "+k, k)
			}
		}
	case "Error.captureStackTrace":
		// On anything but the error being built, unless the file only
		// decorates errors' stacks with it (axios appends the request's
		// stack to a failed response's error: err.stack += stack).
		if !this && !a.decoratesStacks() {
			a.fs.add(line, RuleStack, "asks for the call stack (Error.captureStackTrace)", "Error.captureStackTrace")
		}
	case "require.resolve", "import.meta.resolve", "module.createRequire().resolve":
		if j+1 < len(t) && t[j+1].k == tStr && runnerJSModule(t[j+1].s) {
			a.fs.add(line, RuleLoaded, "asks whether the test runner is installed ("+t[j+1].s+")", t[j+1].s)
		}
	}
}

// sensitiveTarget: the runner's or assertion library's objects, the
// prototypes every comparison goes through.
func (a *js) sensitiveTarget(p string) bool {
	root, _, _ := strings.Cut(p, ".")
	switch {
	case p == "":
		return false
	case runnerJSModule(root) || runnerJSModule(p):
		return true
	case jsRunnerGlobals[root] && !a.declared[root]:
		return true
	case p == "Object.prototype" || p == "Object" || p == "Function.prototype" || strings.HasSuffix(p, "Error.prototype"):
		return true
	case strings.HasPrefix(p, "module") && (strings.Contains(p, "_load") || strings.Contains(p, "prototype")):
		return true
	}
	return false
}

func (a *js) judge(i int, steps []step) {
	t := a.t
	line := t[i].line
	last := steps[len(steps)-1]
	// Rebinding a bare name is not changing what it named.
	mut := (a.assigned(last.end) || a.name(i-1) == "delete") && len(steps) > 1
	for si, s := range steps {
		if si == 0 && a.bound[t[i].s] && s.path != "os.environ" && s.path != "sys.modules" && s.path != "process.env" {
			continue // membership in an alias is asked where it is used
		}
		p := s.path
		isLast := si == len(steps)-1
		root, _, _ := strings.Cut(p, ".")
		switch {
		case p == "Error().stack" && a.setsStack(i):
			// this.stack = new Error().stack: an error taking its own stack.
		case p == "Error().stack" || p == "Error.prepareStackTrace" || p == "arguments.callee" || strings.HasSuffix(p, "callee.caller") || p == "Function.caller":
			a.fs.add(line, RuleStack, "asks for the call stack ("+p+")", p)
		case p == "process.argv":
			if a.entry || a.userArgs(s.end) {
				continue
			}
			a.fs.add(line, RuleArgv, "asks which program runs it (process.argv)", p)
		case p == "process.argv0" || p == "process.execArgv" || p == "process.title" || p == "process.ppid" || p == "process.mainModule" ||
			p == "module.parent" || p == "process.report" || p == "require.main" && !a.mainCheck(i, s.end):
			if !a.entry {
				a.fs.add(line, RuleArgv, "asks which program runs it ("+p+")", p)
			}
		case strings.HasPrefix(p, "process.env.") && !strings.Contains(p[len("process.env."):], "."):
			name := p[len("process.env."):]
			if runnerEnv(name) || (name == "NODE_ENV" || name == "BABEL_ENV" || name == "MODE") && a.comparedToTest(s.end, i) {
				if mut {
					continue // setting it is not asking
				}
				a.fs.add(line, RuleEnv, "reads the runner's environment variable "+name, name)
			}
		case si > 0 && !strings.HasPrefix(p, "process.env.") && strings.Contains(p, ".env.") && runnerEnv(p[strings.LastIndex(p, ".")+1:]) && !mut:
			// Whatever reached the environment: new Function("return process")().env.VITEST.
			name := p[strings.LastIndex(p, ".")+1:]
			a.fs.add(line, RuleEnv, "reads the runner's environment variable "+name, name)
		case p == "process.env" && isLast && a.name(i-1) == "in" && i >= 2 && t[i-2].k == tStr && runnerEnv(t[i-2].s):
			a.fs.add(line, RuleEnv, "reads the runner's environment variable "+t[i-2].s, t[i-2].s)
		case p == "process.env" && isLast && a.name(i-1) == "in" && a.forIn(i) && a.namesRunner:
			a.fs.add(line, RuleEnv, "lists the environment (for ... in process.env)", "process.env")
		case p == "require.cache" || p == "module.children" || p == "process.moduleLoadList" || strings.HasPrefix(p, "module._cache") || strings.HasPrefix(p, "module._pathCache"):
			a.fs.add(line, RuleLoaded, "asks which modules are loaded ("+p+")", p)
		case p == "require.extensions" || strings.HasPrefix(p, "module._load") || strings.HasPrefix(p, "module._resolveFilename") ||
			strings.HasPrefix(p, "module._extensions") || strings.HasPrefix(p, "module.prototype.require") || p == "module.register" || p == "module.registerHooks" || p == "module.Module":
			a.fs.add(line, RulePatch, "hooks the module loader ("+p+")", p)
		case mut && isLast && (runnerJSModule(root) || jsRunnerGlobals[root] && !a.declared[root] || a.sensitiveTarget(p) && p != "Object" ||
			p == "Object.is" || strings.HasPrefix(p, "Object.prototype.") || strings.Contains(p, "Error.prototype.") || a.builtinProto(p, i)):
			if root == p && !runnerJSModule(root) && !strings.HasPrefix(p, "Object") {
				continue // rebinding a local name
			}
			a.fs.add(line, RulePatch, "patches the test runner or assertion library ("+p+")", p)
		case isLast && si > 0 && (runnerJSModule(root) && root != "assert" || jsRunnerGlobals[root] && !a.declared[root] && root != "assert" && root != "test" && root != "it") &&
			(strings.HasSuffix(p, ".extend()") || strings.HasSuffix(p, ".addMatchers()") || strings.HasSuffix(p, ".addSnapshotSerializer()") || strings.HasSuffix(p, ".use()")):
			a.fs.add(line, RulePatch, "extends the test runner's assertions ("+p+")", p)
		}
	}
}

// userArgs: process.argv.slice(2) or process.argv[2]: the user's
// arguments, not the program's name.
func (a *js) userArgs(j int) bool {
	t := a.t
	if a.op(j, ".") && a.name(j+1) == "slice" && a.op(j+2, "(") && j+3 < len(t) && t[j+3].k == tNum {
		n, _ := strconv.Atoi(t[j+3].s)
		return n >= 2
	}
	if a.op(j, "[") && j+1 < len(t) && t[j+1].k == tNum {
		n, _ := strconv.Atoi(t[j+1].s)
		return n >= 2
	}
	return false
}

// mainCheck: `require.main === module`, the idiom for "run as a script".
func (a *js) mainCheck(i, j int) bool {
	cmp := func(k int) bool { return a.op(k, "===") || a.op(k, "==") || a.op(k, "!==") || a.op(k, "!=") }
	return cmp(j) && a.name(j+1) == "module" || cmp(i-1) && a.name(i-2) == "module"
}

func (a *js) forIn(i int) bool {
	for j := i - 1; j >= 0 && j > i-8; j-- {
		if a.name(j) == "for" {
			return true
		}
	}
	return false
}

// literals judges the strings: a test or config file's name in a file that
// reads files, a test file loaded by name, /proc, the runner's own
// variable names and marker symbols.
func (a *js) literals() {
	t := a.t
	io, env := false, false
	for i := range t {
		if t[i].k == tName && jsIO[t[i].s] {
			io = true
		}
		if (a.name(i) == "require" || a.name(i) == "import") && a.op(i+1, "(") && i+2 < len(t) && t[i+2].k != tStr {
			io = true
		}
		if a.name(i) == "env" && a.op(i-1, ".") {
			env = true
		}
	}
	for i := 0; i < len(t); i++ {
		if t[i].k == tName && !a.op(i-1, ".") && !a.op(i-1, "?.") {
			// A decoder's call: atob("..."), String.fromCharCode(...).
			if v, ok, end, dec := foldExpr(t, i, a.alias); ok && dec != "" {
				a.fs.hidden(t[i].line, v, dec)
				if strictRunnerEnv(v) {
					a.fs.add(t[i].line, RuleEnv, "names the runner's environment variable "+v, v)
				}
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
		loaded := (a.name(i-2) == "require" || a.name(i-2) == "import") && a.op(i-1, "(")
		call := enclosingCall(t, i)
		switch {
		case (call == "eval" || call == "Function") && a.op(i-1, "(") || a.name(i-3) == "new" && a.name(i-2) == "Function":
			a.sub(v, line) // code in a string runs as code
		case (jsRunnerGlobals[v] || strings.HasPrefix(v, "__vitest") || strings.HasPrefix(v, "__jest")) && a.name(end) == "in" && jsGlobalObjects[a.name(end+1)]:
			a.fs.add(line, RuleLoaded, "asks whether the test runner is loaded ("+quote(v)+" in "+a.name(end+1)+")", v)
		case runnerNameLit(v) && compared(t, i, end):
			a.fs.add(line, RuleLoaded, "compares what it found with the test runner's name "+quote(v), v)
		case io && testDirLit(t, i, end, v):
			a.fs.add(line, RuleReadsTests, "builds a path into the tests ("+quote(v)+") in code that reads files", v)
		case strings.Contains(v, "$$jest") || strings.Contains(v, "jest.asymmetricMatcher") || strings.HasPrefix(v, "__vitest") || strings.HasPrefix(v, "__jest") || v == "jest-circus" || strings.HasPrefix(v, "vitest-"):
			a.fs.add(line, RuleLoaded, "names the test runner's internals ("+v+")", v)
		case isProc(v):
			a.fs.add(line, RuleArgv, "reads what /proc tells of the process ("+v+")", v)
		case loaded && testPathValue(v) && (strings.HasPrefix(v, ".") || strings.HasPrefix(v, "/")):
			a.fs.add(line, RuleReadsTests, "loads a test file ("+v+")", v)
		case io && testPathValue(v):
			a.fs.add(line, RuleReadsTests, "names the runner's test or config file "+quote(v)+" in code that reads files", v)
		case io && testSourceLit.MatchString(v):
			a.fs.add(line, RuleReadsTests, "searches what it reads for test code ("+quote(v)+")", v)
		case env && strictRunnerEnv(v):
			a.fs.add(line, RuleEnv, "names the runner's environment variable "+v, v)
		}
		i = max(i, end-1)
	}
}

// sub analyzes code held in a string (eval, new Function) as if written
// where the string is.
func (a *js) sub(code string, line int) {
	toks := jsTokens(code)
	for i := range toks {
		toks[i].line = line
	}
	b := &js{t: toks, alias: map[string]string{}, declared: a.declared, entry: a.entry, fs: a.fs, namesRunner: a.namesRunner, bound: a.bound}
	for k, v := range a.alias {
		b.alias[k] = v
	}
	b.bind()
	b.walk()
	b.literals()
}

var jsEqualNames = map[string]bool{"equals": true, "isEqual": true, "equal": true, "asymmetricMatch": true}

// equality flags an equals/isEqual/asymmetricMatch that never looks at
// its argument, and a valueOf or [Symbol.toPrimitive] that answers a
// constant (loose equality and arithmetic compare through them).
func (a *js) equality() {
	t := a.t
	for i := 0; i < len(t); i++ {
		n := a.name(i)
		prim := false
		at := i
		if a.op(i, "[") && a.name(i+1) == "Symbol" && a.op(i+2, ".") && a.name(i+3) == "toPrimitive" && a.op(i+4, "]") {
			n, prim, i = "[Symbol.toPrimitive]", true, i+4
		} else if n == "valueOf" {
			prim = true
		} else if !jsEqualNames[n] || a.op(i-1, ".") && !a.op(i+1, "=") {
			continue
		}
		j := i + 1
		if a.op(j, ":") || a.op(j, "=") {
			j++
			if a.name(j) == "function" {
				j++
				if a.name(j) != "" {
					j++
				}
			}
		}
		var params []string
		switch {
		case a.op(j, "("):
			e := closeAt(t, j)
			for k := j + 1; k < e-1; k++ {
				if a.name(k) != "" && (a.op(k-1, "(") || a.op(k-1, ",") || a.op(k-1, "...") || a.op(k-1, "{")) {
					params = append(params, t[k].s)
				}
			}
			j = e
		case a.name(j) != "" && a.op(j+1, "=>"):
			params = []string{t[j].s}
			j++
		default:
			continue
		}
		if a.op(j, ":") { // a return type
			for j < len(t) && !a.op(j, "{") && !a.op(j, "=>") {
				j++
			}
		}
		var body []tok
		switch {
		case a.op(j, "{"):
			body = t[j+1 : closeAt(t, j)-1]
		case a.op(j, "=>"):
			if a.op(j+1, "{") {
				body = t[j+2 : closeAt(t, j+1)-1]
			} else {
				for k := j + 1; k < len(t) && t[k].k != tNL && !a.op(k, ",") && !a.op(k, "}") && !a.op(k, ")"); k++ {
					body = append(body, t[k])
				}
			}
		default:
			continue
		}
		if len(body) == 0 {
			continue
		}
		line := t[at].line
		if prim {
			if constReturn(body) {
				a.fs.add(line, RuleEquality, "defines "+n+" that answers a constant", n)
			}
			continue
		}
		uses := false
		for k, b := range body {
			if b.k == tName && (b.s == "throw" && k == 0) {
				uses = true
			}
			for _, p := range params {
				if b.k == tName && b.s == p {
					uses = true
				}
			}
		}
		if !uses {
			a.fs.add(line, RuleEquality, "defines "+n+" whose answer does not depend on what it is compared with", n)
		}
	}
}

// constReturn: a body that is `return <literal>` (or an arrow's literal).
func constReturn(body []tok) bool {
	var b []tok
	for _, x := range body {
		if x.k != tNL {
			b = append(b, x)
		}
	}
	if len(b) >= 1 && b[0].k == tName && b[0].s == "return" {
		b = b[1:]
	}
	if len(b) == 1 && (b[0].k == tNum || b[0].k == tStr || b[0].k == tName && (b[0].s == "true" || b[0].s == "false")) {
		return true
	}
	return false
}

// jsExports reports whether a file exports anything (ES modules' export,
// CommonJS's module.exports and exports.x): a file that does not is a
// script (lodash's build scripts read process.argv), not a module a test
// imports for its functions.
func jsExports(t []tok) bool {
	for i := range t {
		if t[i].k != tName {
			continue
		}
		switch {
		case t[i].s == "export" && (i == 0 || t[i-1].k == tNL || t[i-1].k == tOp && (t[i-1].s == "}" || t[i-1].s == ";")):
			return true
		case t[i].s == "exports" && (i == 0 || !(t[i-1].k == tOp && t[i-1].s == ".")):
			return true
		case t[i].s == "module" && i+2 < len(t) && t[i+1].s == "." && t[i+2].s == "exports":
			return true
		}
	}
	return false
}

// jsBuiltins are the constructors whose prototypes every comparison and
// matcher goes through (toContain calls includes, toEqual walks Map and
// Set).
var jsBuiltins = map[string]bool{"Array": true, "String": true, "Number": true, "Boolean": true, "Map": true, "Set": true,
	"Promise": true, "Function": true, "Date": true, "RegExp": true, "Symbol": true, "JSON": true, "Math": true, "Reflect": true}

// builtinProto: an assignment into a builtin's prototype (or JSON, Math,
// Reflect) that is not a polyfill (`if (!Array.prototype.at)` before it,
// or `X.prototype.m = X.prototype.m || ...`).
func (a *js) builtinProto(p string, i int) bool {
	root, rest, _ := strings.Cut(p, ".")
	if !jsBuiltins[root] || a.declared[root] || rest == "" {
		return false
	}
	if !strings.HasPrefix(rest, "prototype.") && root != "JSON" && root != "Math" && root != "Reflect" {
		return false
	}
	line := a.t[i].line
	for j := i - 1; j >= 0 && a.t[j].line >= line-2; j-- {
		if a.op(j, "!") && a.name(j+1) == root {
			return false // a polyfill's guard
		}
	}
	for j := i + 1; j < len(a.t) && a.t[j].k != tNL; j++ {
		if a.op(j, "||") || a.op(j, "??") || a.op(j, "||=") || a.op(j, "??=") {
			return false
		}
	}
	return true
}

// setsStack: the statement holding the token at i assigns to a .stack.
func (a *js) setsStack(i int) bool {
	for j := i - 1; j >= 1 && a.t[j].k != tNL; j-- {
		if a.name(j-1) == "stack" && a.op(j-2, ".") && (a.op(j, "=") || a.op(j, "+=")) {
			return true
		}
	}
	return false
}

// decoratesStacks: the file appends to or sets some error's .stack.
func (a *js) decoratesStacks() bool {
	for j := 2; j < len(a.t); j++ {
		if (a.op(j, "=") || a.op(j, "+=")) && a.name(j-1) == "stack" && a.op(j-2, ".") {
			return true
		}
	}
	return false
}

// returnsThis: at i, Function("return this") or new Function("return
// this"), called.
func (a *js) returnsThis(i int) bool {
	j := i + 1
	if a.name(i) == "new" {
		j++
	}
	if !a.op(j, "(") {
		return false
	}
	v, ok, e := foldStr(a.t, j+1, a.alias)
	body := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ";"))
	return ok && a.op(e, ")") && (body == "return this" || body == "return globalThis") && a.op(closeAt(a.t, j), "(")
}

// foldsTo: the expression at i folds to a constant that the token close
// ends.
func foldsTo(t []tok, i int, consts map[string]string, close string) bool {
	_, ok, e := foldStr(t, i, consts)
	return ok && isOp(t, e, close)
}
