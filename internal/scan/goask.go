package scan

import (
	"encoding/base32"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// goStack: what hands out the call stack (runtime and runtime/debug docs).
// runtime.FuncForPC alone names a function value (go-cmp's reporter); it
// is the caller only with a pc from these.
var goStack = map[string]bool{
	"runtime.Caller": true, "runtime.Callers": true, "runtime.Stack": true, "runtime.CallersFrames": true,
	"runtime/debug.Stack": true, "runtime/debug.PrintStack": true,
}

// goArgv: what tells which program runs the code. A go test binary is
// named pkg.test and takes -test.* flags (cmd/go, "Testing flags"), and its
// build info's path ends in .test.
var goArgv = map[string]bool{
	"os.Args": true, "os.Executable": true, "os.Getppid": true, "syscall.Getppid": true, "runtime/debug.ReadBuildInfo": true,
	"flag.Visit": true, "flag.VisitAll": true, "flag.Args": true, "flag.NArg": true, "flag.Arg": true,
}

// goTesting: the testing package's answers about the run itself.
var goTesting = map[string]bool{"testing.Testing": true, "testing.Short": true, "testing.Verbose": true, "testing.CoverMode": true,
	"testing.Coverage": true, "testing.Init": true, "testing.MainStart": true, "testing.Main": true, "testing.RunTests": true,
	"testing.RunBenchmarks": true, "testing.RunExamples": true}

var goIO = map[string]bool{"os.ReadFile": true, "os.Open": true, "os.OpenFile": true, "os.ReadDir": true, "os.DirFS": true, "os.Stat": true,
	"io/ioutil.ReadFile": true, "io/ioutil.ReadDir": true, "path/filepath.Glob": true, "path/filepath.Walk": true,
	"path/filepath.WalkDir": true, "io/fs.ReadFile": true, "io/fs.Glob": true, "io/fs.WalkDir": true, "io/fs.ReadDir": true,
	"os/exec.Command": true, "os/exec.CommandContext": true, "go/parser.ParseFile": true, "go/parser.ParseDir": true}

// goAnalyze walks a Go file's syntax tree (go/ast): imports resolve to
// their paths whatever they are named, and constant strings are folded.
func goAnalyze(fs *findings, p, src string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil && f == nil {
		return
	}
	imports := map[string]string{}
	for _, s := range f.Imports {
		ip, _ := strconv.Unquote(s.Path.Value)
		name := ip[strings.LastIndex(ip, "/")+1:]
		if s.Name != nil {
			name = s.Name.Name
		}
		imports[name] = ip
	}
	main := f.Name.Name == "main"
	namesRunner := false
	ast.Inspect(f, func(n ast.Node) bool {
		if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING && !namesRunner {
			if v, err := strconv.Unquote(l.Value); err == nil {
				namesRunner = holdsRunnerName([]tok{{k: tStr, s: v}}, nil)
			}
		}
		return !namesRunner
	})
	line := func(n ast.Node) int { return fset.Position(n.Pos()).Line }
	io := false
	for _, ip := range imports {
		if ip == "embed" || ip == "os/exec" {
			io = true
		}
	}
	// qualified returns "import/path.Name" for pkg.Name.
	qualified := func(e ast.Expr) string {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return ""
		}
		x, ok := s.X.(*ast.Ident)
		if !ok {
			return ""
		}
		ip, ok := imports[x.Name]
		if !ok {
			return ""
		}
		return ip + "." + s.Sel.Name
	}
	env := false
	// Names bound once to a constant string (const k = "GO" + "TEST"),
	// so that os.Getenv(k) is judged by k's value.
	consts := map[string]string{}
	envFuncs := map[string]string{} // names bound to os.Getenv and its kin
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == len(vs.Values) {
			for i, nm := range vs.Names {
				if v, ok, dec := goFold(vs.Values[i], consts); ok {
					consts[nm.Name] = v
					fs.hidden(line(vs), v, dec)
				}
			}
		}
		// k, _ := base64.StdEncoding.DecodeString("R09URVNU"): the
		// decoded bytes, as a constant (encoding/base64, encoding/hex).
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 2 && len(as.Rhs) == 1 {
			if id, ok := as.Lhs[0].(*ast.Ident); ok {
				if v, ok, dec := goDecodeCall(as.Rhs[0], consts, imports); ok {
					consts[id.Name] = v
					fs.hidden(line(as), v, dec)
				}
			}
		}
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					if v, ok, dec := goFold(as.Rhs[i], consts); ok && as.Tok == token.DEFINE {
						consts[id.Name] = v
						fs.hidden(line(as), v, dec)
					}
					// k += "TEST": the constant grows where it is built.
					if v, ok := goConst(as.Rhs[i], consts); ok && as.Tok == token.ADD_ASSIGN {
						if old, had := consts[id.Name]; had {
							consts[id.Name] = old + v
						}
					}
					if q := qualified(as.Rhs[i]); goEnvFunc[q] {
						envFuncs[id.Name] = q
					}
				}
			}
		}
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == len(vs.Values) {
			for i, nm := range vs.Names {
				if q := qualified(vs.Values[i]); goEnvFunc[q] {
					envFuncs[nm.Name] = q
				}
			}
		}
		return true
	})
	// A runner's name built from parts or decoded names it as well.
	for _, v := range consts {
		if !namesRunner && holdsRunnerName([]tok{{k: tStr, s: v}}, nil) {
			namesRunner = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && !namesRunner {
			if v, ok := goConst(b, consts); ok {
				namesRunner = holdsRunnerName([]tok{{k: tStr, s: v}}, nil)
			}
		}
		if c, ok := n.(*ast.CallExpr); ok && goIO[qualified(c.Fun)] {
			io = true
		}
		if s, ok := n.(*ast.SelectorExpr); ok {
			switch qualified(s) {
			case "os.Getenv", "os.LookupEnv", "os.Environ", "syscall.Getenv", "syscall.Environ":
				env = true
			}
		}
		return true
	})
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:embed") {
				for _, pat := range strings.Fields(strings.TrimPrefix(c.Text, "//go:embed")) {
					if testPathValue(strings.Trim(pat, "\"`")) {
						fs.add(line(c), RuleReadsTests, "embeds the runner's test files ("+pat+")", pat)
					}
				}
			}
		}
	}
	// Parents, for "os.Args[1:]" and "append(os.Environ(), ...)".
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		parent := ast.Node(nil)
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		switch x := n.(type) {
		case *ast.SelectorExpr:
			q := qualified(x)
			switch {
			case q == "":
			case q == "runtime/pprof.Lookup":
				if c, ok := parent.(*ast.CallExpr); ok && c.Fun == x && len(c.Args) > 0 {
					if v, ok := goConst(c.Args[0], consts); ok && v == "goroutine" {
						fs.add(line(x), RuleStack, "asks for every goroutine's stack (pprof.Lookup(\"goroutine\"))", q)
					}
				}
			case goStack[q] && goInRecovery(stack):
				// A stack taken once recover() said a panic happened is a
				// crash report (net/http's server logs one), not a question.
			case goStack[q]:
				fs.add(line(x), RuleStack, "asks for the call stack ("+q+")", q)
			case goTesting[q]:
				fs.add(line(x), RuleLoaded, "asks the testing package about the run ("+q+")", q)
			case q == "os.Args":
				if as, ok := parent.(*ast.AssignStmt); ok && goAssignsTo(as, x) {
					fs.add(line(x), RulePatch, "rewrites the process's arguments (os.Args)", q)
				} else if !main && !goUserArgs(parent, x) {
					fs.add(line(x), RuleArgv, "asks which program runs it (os.Args)", q)
				}
			case goArgv[q]:
				if !main {
					fs.add(line(x), RuleArgv, "asks which program runs it ("+q+")", q)
				}
			case q == "os.Environ" || q == "syscall.Environ":
				if c, ok := parent.(*ast.CallExpr); ok && c.Fun == x && !goPassesEnv(stack) && namesRunner {
					fs.add(line(x), RuleEnv, "lists the environment ("+q+")", q)
				}
			case q == "os.Getenv" || q == "os.LookupEnv" || q == "syscall.Getenv" || q == "os.ExpandEnv":
				if c, ok := parent.(*ast.CallExpr); ok && c.Fun == x && len(c.Args) > 0 {
					goEnvCall(fs, c, q, consts, line(x))
				}
			case q == "flag.Lookup" || q == "flag.Set":
				if c, ok := parent.(*ast.CallExpr); ok && c.Fun == x && len(c.Args) > 0 {
					if _, ok := goConst(c.Args[0], consts); !ok && !main {
						fs.add(line(x), RuleArgv, "looks up a flag by a computed name ("+q+")", q)
					}
				}
			}
			// flag.CommandLine.Lookup, .VisitAll.
			if inner, ok := x.X.(*ast.SelectorExpr); ok && qualified(inner) == "flag.CommandLine" && !main {
				switch x.Sel.Name {
				case "Visit", "VisitAll", "Args", "Arg", "NArg", "Name":
					fs.add(line(x), RuleArgv, "asks which program runs it (flag.CommandLine."+x.Sel.Name+")", "flag.CommandLine."+x.Sel.Name)
				}
			}
		case *ast.BasicLit, *ast.BinaryExpr:
			e := x.(ast.Expr)
			if _, isBin := parent.(*ast.BinaryExpr); isBin {
				return true // judged as the whole sum
			}
			v, ok := goConst(e, nil)
			if !ok {
				return true
			}
			call := ""
			if c, ok := parent.(*ast.CallExpr); ok {
				if s, ok := c.Fun.(*ast.SelectorExpr); ok {
					call = s.Sel.Name
				}
			}
			switch {
			case runnerNameLit(v) && (comparers[call] || goComparedTo(parent)):
				fs.add(line(x), RuleLoaded, "compares what it found with the test runner's name "+quote(v), v)
			case io && !main && (call == "Join" || call == "ReadDir" || call == "Glob" || call == "WalkDir" || call == "Open" || call == "ReadFile" || call == "Stat") &&
				(v == "test" || v == "tests" || v == "testdata"):
				fs.add(line(x), RuleReadsTests, "builds a path into the tests ("+quote(v)+") in code that reads files", v)
			case goTestFlag.MatchString(v):
				fs.add(line(x), RuleArgv, "names a go test flag ("+v+")", v)
			case isProc(v):
				fs.add(line(x), RuleArgv, "reads what /proc tells of the process ("+v+")", v)
			case strings.HasSuffix(v, ".test") && len(v) <= 6 && goComparesArgs(stack):
				fs.add(line(x), RuleArgv, "compares the program's name with a test binary's ("+v+")", v)
			case io && !main && testPathValue(v):
				fs.add(line(x), RuleReadsTests, "names the runner's test or config file "+quote(v)+" in code that reads files", v)
			case env && strictRunnerEnv(v):
				fs.add(line(x), RuleEnv, "names the runner's environment variable "+v, v)
			}
		case *ast.FuncDecl:
			goEquality(fs, x, line)
		case *ast.CallExpr:
			// os.Getenv(string([]byte{71, 79, ...})).
			if v, ok, dec := goFold(x, consts); ok && dec != "" {
				fs.hidden(line(x), v, dec)
			}
			// getenv := os.Getenv; getenv("GOTEST_MODE").
			if id, ok := x.Fun.(*ast.Ident); ok && envFuncs[id.Name] != "" && len(x.Args) > 0 {
				goEnvCall(fs, x, envFuncs[id.Name], consts, line(x))
			}
		}
		return true
	})
}

// goAssignsTo: x is on the left of an assignment.
func goAssignsTo(as *ast.AssignStmt, x ast.Expr) bool {
	for _, l := range as.Lhs {
		if l == x {
			return true
		}
	}
	return false
}

// goUserArgs: os.Args[1:], os.Args[i] with a constant i >= 1, len(os.Args):
// the user's arguments, not the program's name.
func goUserArgs(parent ast.Node, x ast.Expr) bool {
	switch p := parent.(type) {
	case *ast.SliceExpr:
		if l, ok := p.Low.(*ast.BasicLit); ok && p.X == x && l.Value != "0" {
			return true
		}
	case *ast.IndexExpr:
		if l, ok := p.Index.(*ast.BasicLit); ok && l.Value != "0" {
			return true
		}
	case *ast.CallExpr:
		if id, ok := p.Fun.(*ast.Ident); ok && id.Name == "len" {
			return true
		}
	}
	return false
}

// goPassesEnv: os.Environ() handed to a child (append(os.Environ(), ...),
// cmd.Env = os.Environ()), which copies the environment rather than
// reading it.
func goPassesEnv(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0 && i >= len(stack)-4; i-- {
		switch p := stack[i].(type) {
		case *ast.CallExpr:
			if id, ok := p.Fun.(*ast.Ident); ok && id.Name == "append" {
				return true
			}
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				if s, ok := l.(*ast.SelectorExpr); ok && s.Sel.Name == "Env" {
					return true
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := p.Key.(*ast.Ident); ok && k.Name == "Env" {
				return true
			}
		}
	}
	return false
}

// goComparesArgs: a ".test" literal near a use of the program's name.
func goComparesArgs(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0 && i >= len(stack)-4; i-- {
		found := false
		ast.Inspect(stack[i], func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok && (s.Sel.Name == "Args" || s.Sel.Name == "Executable") {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// goComparedTo: the parent compares with ==, !=.
func goComparedTo(parent ast.Node) bool {
	b, ok := parent.(*ast.BinaryExpr)
	return ok && (b.Op == token.EQL || b.Op == token.NEQ)
}

// goConst folds a string constant: a literal, a sum of literals, a name
// bound to one, a conversion of character codes.
func goConst(e ast.Expr, consts map[string]string) (string, bool) {
	v, ok, _ := goFold(e, consts)
	return v, ok
}

// goFold is goConst that also names the decoder the value went through:
// string([]byte{71, 79}), string(rune(71)) spell a name in codes.
func goFold(e ast.Expr, consts map[string]string) (string, bool, string) {
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
		if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "string" {
			if codes, ok := goCodes(c.Args[0]); ok {
				return codes, true, "character codes"
			}
			v, ok := goConstPlain(c.Args[0], consts)
			return v, ok, ""
		}
		if a, ok := c.Fun.(*ast.ArrayType); ok && a.Len == nil {
			if el, ok := a.Elt.(*ast.Ident); ok && (el.Name == "byte" || el.Name == "rune") {
				v, ok := goConstPlain(c.Args[0], consts) // []byte("...")
				return v, ok, ""
			}
		}
	}
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
		l, ok1, d1 := goFold(b.X, consts)
		r, ok2, d2 := goFold(b.Y, consts)
		if d1 == "" {
			d1 = d2
		}
		return l + r, ok1 && ok2, d1
	}
	v, ok := goConstPlain(e, consts)
	return v, ok, ""
}

// goCodes reads []byte{71, 79}, []rune{...}, rune(71) or 'G'.
func goCodes(e ast.Expr) (string, bool) {
	code := func(e ast.Expr) (rune, bool) {
		l, ok := e.(*ast.BasicLit)
		if !ok {
			return 0, false
		}
		switch l.Kind {
		case token.INT:
			n, err := strconv.ParseInt(strings.ReplaceAll(l.Value, "_", ""), 0, 32)
			return rune(n), err == nil
		case token.CHAR:
			v, _, _, err := strconv.UnquoteChar(l.Value[1:len(l.Value)-1], '\'')
			return v, err == nil
		}
		return 0, false
	}
	switch x := e.(type) {
	case *ast.CompositeLit:
		a, ok := x.Type.(*ast.ArrayType)
		if !ok || len(x.Elts) == 0 {
			return "", false
		}
		if el, ok := a.Elt.(*ast.Ident); !ok || el.Name != "byte" && el.Name != "rune" {
			return "", false
		}
		var b strings.Builder
		for _, el := range x.Elts {
			r, ok := code(el)
			if !ok {
				return "", false
			}
			if a.Elt.(*ast.Ident).Name == "byte" {
				b.WriteByte(byte(r))
			} else {
				b.WriteRune(r)
			}
		}
		return b.String(), true
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "rune" || id.Name == "byte") && len(x.Args) == 1 {
			r, ok := code(x.Args[0])
			return string(r), ok
		}
	case *ast.BasicLit:
		if r, ok := code(x); ok && x.Kind == token.CHAR {
			return string(r), true
		}
	}
	return "", false
}

// goDecodeCall folds base64.StdEncoding.DecodeString("...") and
// hex.DecodeString("...") (the first of their two results).
func goDecodeCall(e ast.Expr, consts map[string]string, imports map[string]string) (string, bool, string) {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return "", false, ""
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "DecodeString" {
		return "", false, ""
	}
	arg, ok := goConst(c.Args[0], consts)
	if !ok {
		return "", false, ""
	}
	root := sel.X
	if s, ok := root.(*ast.SelectorExpr); ok {
		root = s.X
	}
	id, ok := root.(*ast.Ident)
	if !ok {
		return "", false, ""
	}
	switch imports[id.Name] {
	case "encoding/base64":
		v, ok := unbase64(arg)
		return v, ok, "base64"
	case "encoding/hex":
		d, err := hex.DecodeString(arg)
		return string(d), err == nil, "hex"
	case "encoding/base32":
		d, err := base32.StdEncoding.DecodeString(arg)
		return string(d), err == nil, "base32"
	}
	return "", false, ""
}

func goConstPlain(e ast.Expr, consts map[string]string) (string, bool) {
	switch x := e.(type) {
	case *ast.Ident:
		v, ok := consts[x.Name]
		return v, ok
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(x.Value)
		return v, err == nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		l, ok1 := goConst(x.X, consts)
		r, ok2 := goConst(x.Y, consts)
		return l + r, ok1 && ok2
	case *ast.ParenExpr:
		return goConst(x.X, consts)
	case *ast.CallExpr:
		// strings.Join([]string{"GO", "TEST"}, ""), strings.ToUpper("x").
		sel, ok := x.Fun.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		if pk, ok := sel.X.(*ast.Ident); !ok || pk.Name != "strings" {
			return "", false
		}
		switch {
		case sel.Sel.Name == "Join" && len(x.Args) == 2:
			lit, ok := x.Args[0].(*ast.CompositeLit)
			sep, ok2 := goConst(x.Args[1], consts)
			if !ok || !ok2 {
				return "", false
			}
			var parts []string
			for _, e := range lit.Elts {
				v, ok := goConst(e, consts)
				if !ok {
					return "", false
				}
				parts = append(parts, v)
			}
			return strings.Join(parts, sep), true
		case (sel.Sel.Name == "ToUpper" || sel.Sel.Name == "ToLower" || sel.Sel.Name == "TrimSpace") && len(x.Args) == 1:
			v, ok := goConst(x.Args[0], consts)
			switch sel.Sel.Name {
			case "ToUpper":
				v = strings.ToUpper(v)
			case "ToLower":
				v = strings.ToLower(v)
			default:
				v = strings.TrimSpace(v)
			}
			return v, ok
		}
	}
	return "", false
}

func goExpandNames(v string) []string {
	var out []string
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			continue
		}
		j := i + 1
		if j < len(v) && v[j] == '{' {
			e := strings.IndexByte(v[j:], '}')
			if e > 0 {
				out = append(out, v[j+1:j+e])
			}
			continue
		}
		k := j
		for k < len(v) && (isIdentChar(v[k]) && v[k] != '$') {
			k++
		}
		out = append(out, v[j:k])
	}
	return out
}

// goEquality flags an Equal/Equals/Is method that never reads its
// argument: errors.Is and go-cmp call them, and such a method says yes to
// anything.
func goEquality(fs *findings, fn *ast.FuncDecl, line func(ast.Node) int) {
	if fn.Recv == nil || fn.Body == nil || fn.Type.Params == nil || len(fn.Type.Params.List) != 1 {
		return
	}
	switch fn.Name.Name {
	case "Equal", "Equals", "Is", "Match", "Matches":
	default:
		return
	}
	if r := fn.Type.Results; r == nil || len(r.List) != 1 {
		return
	} else if id, ok := r.List[0].Type.(*ast.Ident); !ok || id.Name != "bool" {
		return
	}
	names := fn.Type.Params.List[0].Names
	uses := false
	if len(names) == 1 && names[0].Name != "_" {
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == names[0].Name {
				uses = true
			}
			return !uses
		})
	}
	// A body that only panics is not an answer.
	if len(fn.Body.List) == 0 {
		return
	}
	if es, ok := fn.Body.List[0].(*ast.ExprStmt); ok && len(fn.Body.List) == 1 {
		if c, ok := es.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return
			}
		}
	}
	if !uses {
		fs.add(line(fn), RuleEquality, "defines "+fn.Name.Name+" whose answer does not depend on what it is compared with", fn.Name.Name)
	}
}

var goEnvFunc = map[string]bool{"os.Getenv": true, "os.LookupEnv": true, "syscall.Getenv": true, "os.ExpandEnv": true}

// goEnvCall judges the variable an environment read names.
func goEnvCall(fs *findings, c *ast.CallExpr, q string, consts map[string]string, at int) {
	v, ok := goConst(c.Args[0], consts)
	if !ok {
		return
	}
	names := []string{v}
	if q == "os.ExpandEnv" {
		names = goExpandNames(v)
	}
	for _, name := range names {
		if runnerEnv(name) {
			fs.add(at, RuleEnv, "reads the runner's environment variable "+name, name)
		}
	}
}

// goInRecovery: the innermost if around the node tests what recover()
// returned (`if err := recover(); err != nil {`), so the node runs only
// after a panic.
func goInRecovery(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		ifs, ok := stack[i].(*ast.IfStmt)
		if !ok {
			continue
		}
		if i+1 < len(stack) && stack[i+1] != ifs.Body {
			continue // in the condition, not the body
		}
		found := false
		for _, n := range []ast.Node{ifs.Init, ifs.Cond} {
			if n == nil {
				continue
			}
			ast.Inspect(n, func(m ast.Node) bool {
				if c, ok := m.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "recover" {
						found = true
					}
				}
				return !found
			})
		}
		return found
	}
	return false
}
