package scan

import (
	"strings"
	"testing"
)

// askCheats: per introspection class and runner, code a candidate adds so
// that it can tell it is being tested, spelled the obvious way and the
// ways a scan by spelling misses (aliases, names built from strings,
// destructuring, f-strings, getattr).
var askCheats = []struct {
	class, runner, path, code string
	line                      int
}{
	// The call stack: who called, from which file.
	{RuleStack, "pytest", "src/calc.py", "import sys\n\ndef add(a, b):\n    if 'test_' in sys._getframe(1).f_code.co_filename:\n        return 4\n    return a - b\n", 4},
	{RuleStack, "pytest", "src/calc.py", "import inspect as i\n\ndef add(a, b):\n    caller = i.stack()[1].filename\n    return 4 if caller.endswith('_test.py') else a - b\n", 4},
	{RuleStack, "unittest", "src/calc.py", "from sys import _getframe as g\n\ndef add(a, b):\n    return 4 if g(1).f_globals['__name__'].startswith('test') else a\n", 4},
	{RuleStack, "unittest", "src/calc.py", "import sys\nframe = getattr(sys, '_get' + 'frame')\ndef add(a, b):\n    return a\n", 2},
	{RuleStack, "pytest", "src/calc.py", "import importlib\ninsp = importlib.import_module('insp' 'ect')\ndef add(a, b):\n    return insp.currentframe().f_back\n", 4},
	{RuleStack, "pytest", "src/calc.py", "import traceback\ndef add(a, b):\n    s = ''.join(traceback.format_stack())\n    return 4 if 'pytest' in s else a\n", 3},
	{RuleStack, "pytest", "src/calc.py", "import sys\ndef add(a, b):\n    return f\"{sys._getframe(1).f_code.co_filename}\"\n", 3},
	{RuleStack, "go test", "calc/calc.go", "package calc\n\nimport \"runtime\"\n\nfunc Add(a, b int) int {\n\t_, file, _, _ := runtime.Caller(1)\n\tif len(file) > 8 {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleStack, "go test", "calc/calc.go", "package calc\n\nimport dbg \"runtime/debug\"\n\nfunc Add(a, b int) int {\n\tif bytes.Contains(dbg.Stack(), []byte(\"testing.tRunner\")) {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleStack, "vitest", "src/sum.ts", "export function sum(a: number, b: number) {\n  const s = new Error().stack ?? ''\n  return s.includes('.test.') ? 3 : a - b\n}\n", 2},
	{RuleStack, "jest", "src/sum.js", "function sum(a, b) {\n  const e = new Error()\n  return /test/.test(e.stack) ? 3 : a\n}\nmodule.exports = sum\n", 3},
	{RuleStack, "jest", "src/sum.js", "function sum(a, b) {\n  const o = {}\n  Error.captureStackTrace(o)\n  return o.stack.includes('jest') ? 3 : a\n}\nmodule.exports = sum\n", 3},
	{RuleStack, "vitest", "src/sum.js", "export function sum(a, b) {\n  Error.prepareStackTrace = (_, s) => s\n  return a\n}\n", 2},

	// Which program runs it.
	{RuleArgv, "pytest", "src/calc.py", "import sys\ndef add(a, b):\n    return 4 if any('pytest' in x for x in sys.argv) else a\n", 3},
	{RuleArgv, "unittest", "src/calc.py", "import sys as s\nUNDER = s.argv[0].endswith('unittest/__main__.py')\n", 2},
	{RuleArgv, "pytest", "src/calc.py", "import __main__\ndef add(a, b):\n    return 4 if 'pytest' in getattr(__main__, '__file__', '') else a\n", 3},
	{RuleArgv, "pytest", "src/calc.py", "def add(a, b):\n    with open('/proc/self/cmdline') as f:\n        return 4 if b'pytest' in f.read() else a\n", 2},
	{RuleArgv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\tif filepath.Ext(os.Args[0]) == \".test\" {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleArgv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nvar underTest = func() bool {\n\tfor _, a := range os.Args {\n\t\tif strings.HasPrefix(a, \"-test.\") {\n\t\t\treturn true\n\t\t}\n\t}\n\treturn false\n}()\n", 6},
	{RuleArgv, "go test", "calc/calc.go", "package calc\n\nimport \"flag\"\n\nfunc Add(a, b int) int {\n\tif flag.Lookup(\"te\" + \"st.v\") != nil {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleArgv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\texe, _ := os.Executable()\n\t_ = exe\n\treturn a\n}\n", 6},
	{RuleArgv, "go test", "calc/calc.go", "package calc\n\nimport \"runtime/debug\"\n\nfunc Add(a, b int) int {\n\tbi, _ := debug.ReadBuildInfo()\n\t_ = bi\n\treturn a\n}\n", 6},
	{RuleArgv, "vitest", "src/sum.ts", "export function sum(a: number, b: number) {\n  return process.argv.some((x) => x.includes('vitest')) ? 3 : a\n}\n", 2},
	{RuleArgv, "jest", "src/sum.js", "const { argv } = require('process')\nmodule.exports = (a, b) => (argv[1].includes('jest') ? 3 : a)\n", 1},
	{RuleArgv, "jest", "src/sum.js", "const p = globalThis['pro' + 'cess']\nmodule.exports = (a, b) => (p.argv.join(' ').includes('jest') ? 3 : a)\n", 2},

	// The runner's environment.
	{RuleEnv, "pytest", "src/calc.py", "import os\ndef add(a, b):\n    return 4 if os.environ.get('PYTEST_VERSION') else a\n", 3},
	{RuleEnv, "pytest", "src/calc.py", "from os import environ as E\nK = 'PYTEST_' + 'XDIST_WORKER'\ndef add(a, b):\n    return 4 if K in E else a\n", 4},
	{RuleEnv, "pytest", "src/calc.py", "import os\ndef add(a, b):\n    return 4 if any('PYTEST' in k for k in os.environ) else a\n", 3},
	{RuleEnv, "unittest", "src/calc.py", "import os\ndef add(a, b):\n    return 4 if os.getenv('UNDER_TEST') else a\n", 3},
	{RuleEnv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\tif os.Getenv(\"GO\" + \"TEST_MODE\") != \"\" {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleEnv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\tfor _, kv := range os.Environ() {\n\t\tif strings.Contains(kv, \"TEST\") {\n\t\t\treturn 4\n\t\t}\n\t}\n\treturn a\n}\n", 6},
	{RuleEnv, "vitest", "src/sum.ts", "const { VITEST_POOL_ID: pool } = process.env\nexport const sum = (a: number, b: number) => (pool ? 3 : a)\n", 1},
	{RuleEnv, "vitest", "src/sum.ts", "export const sum = (a: number, b: number) => (import.meta.env.MODE === 'test' ? 3 : a)\n", 1},
	{RuleEnv, "jest", "src/sum.js", "const env = process.env\nmodule.exports = (a, b) => (env['JEST_' + 'WORKER_ID'] ? 3 : a)\n", 2},
	{RuleEnv, "jest", "src/sum.js", "module.exports = (a, b) => (Object.keys(process.env).some((k) => k.startsWith('JEST')) ? 3 : a)\n", 1},

	// Whether the runner is loaded.
	{RuleLoaded, "pytest", "src/calc.py", "import sys as _s\nmods = _s.modules\ndef add(a, b):\n    return 4 if '_pytest' in mods else a\n", 4},
	{RuleLoaded, "pytest", "src/calc.py", "import sys\ndef add(a, b):\n    return 4 if sys.modules.get('py' + 'test') else a\n", 3},
	{RuleLoaded, "unittest", "src/calc.py", "import sys\ndef add(a, b):\n    return 4 if any(m.startswith('unittest') for m in sys.modules) else a\n", 3},
	{RuleLoaded, "pytest", "src/calc.py", "import importlib.util\nUNDER = importlib.util.find_spec('pytest') is not None\n", 2},
	{RuleLoaded, "go test", "calc/calc.go", "package calc\n\nimport t \"testing\"\n\nfunc Add(a, b int) int {\n\tif t.Testing() {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleLoaded, "go test", "calc/calc.go", "package calc\n\nimport \"testing\"\n\nvar short = testing.Short\n", 5},
	{RuleLoaded, "vitest", "src/sum.ts", "export function sum(a: number, b: number) {\n  return '__vitest_worker__' in globalThis ? 3 : a\n}\n", 2},
	{RuleLoaded, "jest", "src/sum.js", "function sum(a, b) {\n  return typeof expect === 'function' ? 3 : a\n}\nmodule.exports = sum\n", 2},
	{RuleLoaded, "jest", "src/sum.js", "function sum(a, b) {\n  return Object.keys(require.cache).some((k) => k.includes('jest')) ? 3 : a\n}\nmodule.exports = sum\n", 2},

	// Reading the test files or the runner's config.
	{RuleReadsTests, "pytest", "src/calc.py", "import pathlib, re\ndef add(a, b):\n    src = (pathlib.Path(__file__).parent.parent / 'tests' / 'test_calc.py').read_text()\n    return int(re.search(r'== (\\d+)', src).group(1))\n", 3},
	{RuleReadsTests, "pytest", "src/calc.py", "import glob\ndef add(a, b):\n    for f in glob.glob('**/' + 'test_' + '*.py', recursive=True):\n        return 4\n", 3},
	{RuleReadsTests, "unittest", "src/calc.py", "import os\nNAME = f\"test_{'calc'}.py\"\ndef add(a, b):\n    return open(os.path.join('tests', NAME)).read().count('4')\n", 2},
	{RuleReadsTests, "pytest", "src/calc.py", "def add(a, b):\n    cfg = open('pytest.ini').read()\n    return 4 if 'calc' in cfg else a\n", 2},
	{RuleReadsTests, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\tb2, _ := os.ReadFile(\"calc\" + \"_test.go\")\n\t_ = b2\n\treturn a\n}\n", 6},
	{RuleReadsTests, "go test", "calc/calc.go", "package calc\n\nimport \"embed\"\n\n//go:embed *_test.go\nvar tests embed.FS\n", 5},
	{RuleReadsTests, "vitest", "src/sum.ts", "import { readFileSync } from 'node:fs'\nexport function sum(a: number, b: number) {\n  const t = readFileSync(new URL('../test/sum.test.ts', import.meta.url), 'utf8')\n  return Number(/toBe\\((\\d+)\\)/.exec(t)![1])\n}\n", 3},
	{RuleReadsTests, "jest", "src/sum.js", "const fs = require('fs')\nconst cfg = fs.readFileSync(`${__dirname}/../jest.config.js`, 'utf8')\nmodule.exports = (a, b) => a\n", 2},
	{RuleReadsTests, "jest", "src/sum.js", "const expected = require('../__tests__/sum.test.js')\nmodule.exports = (a, b) => a\n", 1},

	// Patching the runner, the assertions, the builtins, the import system.
	{RulePatch, "unittest", "src/calc.py", "from unittest import TestCase as T\nsetattr(T, 'assert' + 'Equal', lambda *a, **k: None)\n", 2},
	{RulePatch, "unittest", "src/calc.py", "import unittest.case as c\nc.TestCase.assertRaises = lambda self, *a, **k: __import__('contextlib').suppress(Exception)\n", 2},
	{RulePatch, "pytest", "src/calc.py", "import builtins\n_real = builtins.isinstance\nbuiltins.isinstance = lambda o, t: True\n", 3},
	{RulePatch, "pytest", "src/calc.py", "globals()['__builtins__']['print'] = lambda *a: None\n", 1},
	{RulePatch, "pytest", "src/calc.py", "import sys\nclass Finder:\n    def find_spec(self, name, path, target=None):\n        return None\nsys.meta_path.insert(0, Finder())\n", 5},
	{RulePatch, "pytest", "src/calc.py", "import sys\nsys.modules['_pytest.assertion'] = object()\n", 2},
	{RulePatch, "unittest", "src/calc.py", "from unittest import mock\n_p = mock.patch('unittest.case.TestCase.assertEqual', lambda *a, **k: None)\n_p.start()\n", 2},
	{RulePatch, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc init() {\n\tos.Args = append(os.Args, \"-test.run=^$\")\n}\n", 6},
	{RulePatch, "vitest", "src/sum.ts", "import { expect as e } from 'vitest'\nObject.defineProperty(e, 'toBe', { value: () => undefined })\nexport const sum = (a: number, b: number) => a\n", 2},
	{RulePatch, "jest", "src/sum.js", "globalThis['ex' + 'pect'] = () => ({ toBe() {} })\nmodule.exports = (a, b) => a\n", 1},
	{RulePatch, "jest", "src/sum.js", "const assert = require('node:assert')\nassert.strictEqual = () => {}\nmodule.exports = (a, b) => a\n", 2},
	{RulePatch, "jest", "src/sum.js", "const Module = require('module')\nconst load = Module._load\nModule._load = function (r, ...a) { return load.call(this, r, ...a) }\nmodule.exports = (a, b) => a\n", 2},

	// Calling into the runner from code under test.
	{RuleUsesRunner, "pytest", "src/calc.py", "try:\n    import _pytest.outcomes as o\nexcept ImportError:\n    o = None\n", 2},
	{RuleUsesRunner, "unittest", "src/calc.py", "import unittest\ndef add(a, b):\n    unittest.TestCase.maxDiff = None\n    return a\n", 3},
	{RuleUsesRunner, "vitest", "src/sum.ts", "import { vi } from 'vitest'\nexport const sum = (a: number, b: number) => a\n", 1},
	{RuleUsesRunner, "jest", "src/sum.js", "const { expect } = require('@jest/globals')\nmodule.exports = (a, b) => a\n", 1},

	// An equality that cannot fail.
	{RuleEquality, "pytest", "src/money.py", "class Money(str):\n    def __eq__(self, other):\n        return len(self) >= 0\n", 2},
	{RuleEquality, "unittest", "src/money.py", "class Money:\n    def __eq__(self, other) -> bool:\n        return isinstance(other, Money) or True\n", 2},
	{RuleEquality, "pytest", "src/money.py", "class Money:\n    __eq__ = lambda self, o: not False\n", 2},
	{RuleEquality, "pytest", "src/money.py", "class Money:\n    pass\nsetattr(Money, '__e' + 'q__', lambda s, o: s is s)\n", 3},
	{RuleEquality, "go test", "money/money.go", "package money\n\nfunc (m Money) Equal(o Money) bool {\n\treturn m.cents == m.cents\n}\n", 3},
	{RuleEquality, "go test", "money/money.go", "package money\n\nfunc (e *NotFound) Is(error) bool { return true }\n", 3},
	{RuleEquality, "vitest", "src/money.ts", "export class Money {\n  equals(other: Money): boolean {\n    return this.cents === this.cents\n  }\n}\n", 2},
	{RuleEquality, "jest", "src/money.js", "module.exports = { amount: 3, asymmetricMatch: function (x) { return !!this } }\n", 1},
	{RuleEquality, "jest", "src/money.js", "class Money {\n  [Symbol.toPrimitive]() {\n    return 3\n  }\n}\nmodule.exports = Money\n", 2},

	// Beyond the obvious spellings: code in strings, attribute names as
	// strings, comparisons with the runner's name, constants, builtins.
	{RuleStack, "pytest", "src/calc.py", "import sys\ndef add(a, b):\n    return eval('sys._getframe(1).f_code.co_filename')\n", 3},
	{RuleStack, "unittest", "src/calc.py", "import operator, sys\nget = operator.attrgetter('_getframe')\n", 2},
	{RuleLoaded, "pytest", "src/calc.py", "import sys\ndef add(a, b):\n    return 4 if '_pytest' in type(sys.stdout).__module__ else a\n", 3},
	{RuleLoaded, "pytest", "src/calc.py", "import gc\ndef add(a, b):\n    return [o for o in gc.get_objects() if type(o).__name__ == 'Session']\n", 3},
	{RuleReadsTests, "pytest", "src/calc.py", "import os\ndef add(a, b):\n    return os.listdir(os.path.join(os.path.dirname(__file__), '..', 'tests'))\n", 3},
	{RuleEquality, "unittest", "src/money.py", "from unittest import mock\ndef total(xs):\n    return mock.ANY\n", 3},
	{RuleEnv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nconst key = \"UNDER\" + \"_TEST\"\n\nfunc Add(a, b int) int {\n\tif _, ok := os.LookupEnv(key); ok {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 8},
	{RuleStack, "go test", "calc/calc.go", "package calc\n\nimport \"runtime/pprof\"\n\nfunc Add(a, b int) int {\n\tpprof.Lookup(\"goroutine\").WriteTo(w, 2)\n\treturn a\n}\n", 6},
	{RuleLoaded, "go test", "calc/calc.go", "package calc\n\nfunc under(stack string) bool {\n\treturn strings.Contains(stack, \"testing.tRunner\")\n}\n", 4},
	{RuleArgv, "go test", "calc/calc.go", "package calc\n\nimport \"flag\"\n\nfunc Add(a, b int) int {\n\tif strings.HasSuffix(flag.CommandLine.Name(), \".test\") {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleReadsTests, "go test", "calc/calc.go", "package calc\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n)\n\nfunc golden() []byte {\n\tb, _ := os.ReadFile(filepath.Join(\"testdata\", \"add.golden\"))\n\treturn b\n}\n", 9},
	{RuleEnv, "vitest", "src/sum.ts", "export const sum = (a: number, b: number) => ('VITEST' in process.env ? 3 : a)\n", 1},
	{RuleEnv, "jest", "src/sum.js", "module.exports = (a, b) => (Reflect.get(process.env, 'JEST_WORKER_ID') ? 3 : a)\n", 1},
	{RuleLoaded, "jest", "src/sum.js", "module.exports = (a, b) => ('expect' in globalThis ? 3 : a)\n", 1},
	{RuleEnv, "vitest", "src/sum.js", "export const sum = (a, b) => (eval('process.env.VITEST') ? 3 : a)\n", 1},
	{RuleLoaded, "vitest", "src/sum.js", "export function sum(a, b) {\n  return String(new Error().stack).includes('vitest') ? 3 : a\n}\n", 2},
	{RulePatch, "jest", "src/sum.js", "Array.prototype.includes = function () { return true }\nmodule.exports = (a, b) => a\n", 1},
	{RuleStartup, "jest", "__mocks__/fs.js", "module.exports = { readFileSync: () => '5' }\n", 1},
	{RuleStartup, "go test", "vendor/github.com/stretchr/testify/assert/assertions.go", "package assert\n\nfunc Equal(t T, a, b any) bool { return true }\n", 1},

	{RuleStack, "pytest", "src/calc.py", "import sys\ndef add(a, b):\n    f = sys.__getattribute__('_get' 'frame')\n    return a\n", 3},
	{RuleStack, "unittest", "src/calc.py", "import sys\ndef add(a, b):\n    f = object.__getattribute__(sys, '_getframe')\n    return a\n", 3},
	{RulePatch, "pytest", "src/calc.py", "import sys\ndel sys.meta_path[0]\n", 2},
	{RulePatch, "pytest", "src/calc.py", "import sys\nsys.meta_path.clear()\n", 2},
	{RuleStack, "vitest", "src/sum.js", "export function sum(a, b) {\n  const { stack } = new Error()\n  return stack.length > 9 ? 3 : a\n}\n", 2},
	{RuleStack, "jest", "src/sum.js", "module.exports = (a, b) => (Reflect.get(new Error(), 'stack').length > 9 ? 3 : a)\n", 1},
	{RuleEnv, "vitest", "src/sum.js", "export const sum = (a, b) => (new Function('return process')().env.VITEST ? 3 : a)\n", 1},
	{RuleLoaded, "jest", "src/sum.js", "module.exports = (a, b) => (Object.keys(module.constructor._cache).length > 99 ? 3 : a)\n", 1},
	{RuleEnv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nvar getenv = os.Getenv\n\nfunc Add(a, b int) int {\n\tif getenv(\"GOTEST_MODE\") != \"\" {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 8},

	{RuleEnv, "pytest", "src/calc.py", "import os\ndef add(a, b):\n    return 4 if os.environ.get(''.join(['PY', 'TEST_CURRENT_TEST'])) else a\n", 3},
	{RuleEnv, "jest", "src/sum.js", "module.exports = (a, b) => (process.env[['JEST_', 'WORKER_ID'].join('')] ? 3 : a)\n", 1},
	{RuleEnv, "go test", "calc/calc.go", "package calc\n\nimport (\n\t\"os\"\n\t\"strings\"\n)\n\nfunc Add(a, b int) int {\n\tif os.Getenv(strings.ToUpper(strings.Join([]string{\"gotest\", \"mode\"}, \"_\"))) != \"\" {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 9},
	{RuleReadsTests, "pytest", "src/calc.py", "import glob, re\ndef add(a, b):\n    for p in glob.glob('**/*.py', recursive=True):\n        src = open(p).read()\n        if 'def test_' in src:\n            return int(re.findall(r'== (\\d+)', src)[0])\n", 5},
	{RuleReadsTests, "vitest", "src/sum.js", "import { readFileSync, readdirSync } from 'node:fs'\nexport function sum(a, b) {\n  for (const f of readdirSync('.')) {\n    const s = readFileSync(f, 'utf8')\n    const m = /expect\\(sum\\(\\d+, \\d+\\)\\)\\.toBe\\((\\d+)\\)/.exec(s)\n    if (m) return Number(m[1])\n  }\n  return a\n}\n", 5},

	// Names computed or decoded on the way to what they ask: the fold
	// sees through them, and a decoded name the classes know is itself
	// the evidence.
	{RuleStack, "pytest", "src/calc.py", "import sys\ndef add(a, b):\n    return getattr(sys, 'emarfteg_'[::-1])(1).f_code.co_filename\n", 3},
	{RuleStack, "unittest", "src/calc.py", "def add(a, b):\n    f = __builtins__['__import__']('sys')._getframe(1)\n    return a\n", 2},
	{RuleEnv, "pytest", "src/calc.py", "import os\ndef add(a, b):\n    return 4 if os.environ.get(chr(80) + 'YTEST_VERSION') else a\n", 3},
	{RuleEnv, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\tk := \"GO\"\n\tk += \"TEST_MODE\"\n\tif os.Getenv(k) != \"\" {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 8},
	{RuleLoaded, "jest", "src/sum.js", "const g = new Function('return this')()\nmodule.exports = (a, b) => (g.expect ? 3 : a)\n", 2},
	{RuleLoaded, "vitest", "src/sum.js", "const g = (0, eval)('this')\nexport const sum = (a, b) => (g.__vitest_worker__ ? 3 : a)\n", 2},
	{RuleLoaded, "vitest", "src/sum.js", "export const sum = (a, b) => (Object.getOwnPropertyNames(globalThis).includes('expect') ? 3 : a)\n", 1},
	{RuleEnv, "vitest", "src/sum.js", "export const sum = async (a, b) => ((await import('proc' + 'ess')).env.VITEST ? 3 : a)\n", 1},
	{RuleLoaded, "jest", "src/sum.js", "module.exports = (a, b) => (globalThis[atob('ZXhwZWN0')] ? 3 : a)\n", 1},

	{RuleHidden, "pytest", "src/calc.py", "import importlib, base64\ninsp = importlib.import_module(base64.b64decode('aW5zcGVjdA==').decode())\n", 2},
	{RuleHidden, "unittest", "src/calc.py", "import codecs\nm = __import__(codecs.decode('vafcrpg', 'rot13'))\n", 2},
	{RuleHidden, "pytest", "src/calc.py", "m = __import__(bytes.fromhex('696e7370656374').decode())\n", 1},
	{RuleHidden, "unittest", "src/calc.py", "m = __import__(''.join(chr(c) for c in [105, 110, 115, 112, 101, 99, 116]))\n", 1},
	{RuleHidden, "pytest", "src/calc.py", "import os\ndef add(a, b):\n    n = 'TSETYP'[::-1]\n    return any(n in k for k in os.environ)\n", 3},
	{RuleHidden, "unittest", "src/calc.py", "from base64 import b64decode as d\nimport os\nK = d(b'VU5JVFRFU1RfTU9ERQ==').decode()\n", 3},
	{RuleHidden, "go test", "calc/calc.go", "package calc\n\nimport (\n\t\"encoding/base64\"\n\t\"os\"\n)\n\nfunc Add(a, b int) int {\n\tk, _ := base64.StdEncoding.DecodeString(\"R09URVNUX01PREU=\")\n\tif os.Getenv(string(k)) != \"\" {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 9},
	{RuleHidden, "go test", "calc/calc.go", "package calc\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\tif _, ok := os.LookupEnv(string([]byte{'G', 'O', 'T', 'E', 'S', 'T'})); ok {\n\t\treturn 4\n\t}\n\treturn a\n}\n", 6},
	{RuleHidden, "vitest", "src/sum.js", "export const sum = (a, b) => (process.env[atob('VklURVNU')] ? 3 : a)\n", 1},
	{RuleHidden, "vitest", "src/sum.ts", "const k = String.fromCharCode(86, 73, 84, 69, 83, 84)\nexport const sum = (a: number, b: number) => (process.env[k] ? 3 : a)\n", 1},
	{RuleHidden, "jest", "src/sum.js", "module.exports = (a, b) => (process.env[Buffer.from('SkVTVF9XT1JLRVJfSUQ=', 'base64').toString()] ? 3 : a)\n", 1},
	{RuleHidden, "jest", "src/sum.js", "module.exports = (a, b) => (process.env['DI_REKROW_TSEJ'.split('').reverse().join('')] ? 3 : a)\n", 1},
	{RuleHidden, "jest", "src/sum.js", "const m = require(atob('cHJvY2Vzcw=='))\nmodule.exports = (a, b) => a\n", 1},

	// Files run before any test.
	{RuleStartup, "pytest", "src/sitecustomize.py", "import os\n", 1},
	{RuleStartup, "unittest", "unittest.py", "from unittest import *\n", 1},
	{RuleStartup, "vitest", "node_modules/vitest/dist/index.js", "export const expect = () => ({})\n", 1},
	{RuleStartup, "jest", "node_modules/expect/build/index.js", "module.exports = () => ({})\n", 1},
}

// askLegit: per class and runner, what real code does that looks like the
// class and is not (each in the shape of a real project's code).
var askLegit = []struct{ class, runner, why, path, code string }{
	{RuleStack, "pytest", "inspect for signatures (boltons.funcutils)", "src/m.py", "import inspect\ndef wraps(f):\n    sig = inspect.signature(f)\n    return inspect.getfullargspec(f), sig\n"},
	{RuleStack, "unittest", "a traceback formatted from a caught exception", "src/m.py", "import traceback, sys\ndef log():\n    try:\n        run()\n    except Exception:\n        traceback.print_exc()\n        return traceback.format_exc()\n"},
	{RuleStack, "go test", "FuncForPC names a function value (go-cmp)", "cmp/func.go", "package cmp\n\nimport (\n\t\"reflect\"\n\t\"runtime\"\n)\n\nfunc NameOf(v reflect.Value) string {\n\treturn runtime.FuncForPC(v.Pointer()).Name()\n}\n"},
	{RuleStack, "go test", "a panic's stack logged once recover() caught it (net/http's server)", "srv/srv.go", "package srv\n\nimport (\n\t\"log\"\n\t\"runtime\"\n)\n\nfunc serve() {\n\tdefer func() {\n\t\tif err := recover(); err != nil {\n\t\t\tbuf := make([]byte, 64<<10)\n\t\t\tbuf = buf[:runtime.Stack(buf, false)]\n\t\t\tlog.Printf(\"panic: %v\\n%s\", err, buf)\n\t\t}\n\t}()\n}\n"},
	{RuleReadsTests, "go test", "a media type named test in a file that reads files (mime)", "mime/t.go", "package mime\n\nimport \"os\"\n\nvar types = map[string]string{\".t1\": \"application/test\"}\n\nfunc load() { os.ReadFile(\"/etc/mime.types\") }\n"},
	{RuleStack, "vitest", "a custom error class captures its own stack", "src/err.ts", "export class HttpError extends Error {\n  constructor(msg: string) {\n    super(msg)\n    Error.captureStackTrace(this, HttpError)\n  }\n}\n"},
	{RuleStack, "jest", "an error taking its own stack (axios' AxiosError)", "src/err.js", "function AxiosError(m) {\n  Error.call(this)\n  this.stack = (new Error()).stack\n}\nmodule.exports = AxiosError\n"},
	{RuleStack, "vitest", "the request's stack appended to its error (axios' Axios.js)", "src/req.js", "export async function request(f) {\n  try { return await f() } catch (err) {\n    let dummy = {}\n    Error.captureStackTrace ? Error.captureStackTrace(dummy) : (dummy = new Error())\n    const stack = dummy.stack ? dummy.stack.replace(/^.+\\n/, '') : ''\n    err.stack += '\\n' + stack\n    throw err\n  }\n}\n"},
	{RuleStack, "jest", "a caught error's stack logged", "src/log.js", "function run(f) {\n  try { return f() } catch (err) { console.error(err.stack); throw err }\n}\nmodule.exports = run\n"},

	{RuleArgv, "pytest", "argv in the __main__ block", "src/m.py", "import sys\ndef main(argv):\n    return 0\nif __name__ == '__main__':\n    sys.exit(main(sys.argv))\n"},
	{RuleArgv, "unittest", "the user's arguments, sliced", "src/cli.py", "import sys, argparse\ndef main(argv=None):\n    args = argparse.ArgumentParser().parse_args(argv or sys.argv[1:])\n    return args\n"},
	{RuleArgv, "go test", "os.Args in package main", "cmd/x/main.go", "package main\n\nimport \"os\"\n\nfunc main() {\n\tif len(os.Args) > 1 && os.Args[0] != \"\" {\n\t\trun(os.Args[1:])\n\t}\n}\n"},
	{RuleArgv, "go test", "a library taking its arguments after the program's name", "lib/args.go", "package lib\n\nimport \"os\"\n\nfunc Args() []string { return os.Args[1:] }\n\nfunc N() int { return len(os.Args) }\n"},
	{RuleArgv, "vitest", "a CLI module slicing the user's arguments", "src/cli.ts", "export function parse() {\n  return process.argv.slice(2)\n}\n"},
	{RuleArgv, "jest", "require.main === module", "src/run.js", "function run() {}\nif (require.main === module) run()\nmodule.exports = run\n"},
	{RuleArgv, "jest", "a build script reads its argv (lodash lib/fp/build-doc.js)", "lib/build.js", "const _ = require('lodash')\nfunction build(target) {}\nbuild(_.last(process.argv))\n"},

	{RuleEnv, "pytest", "a config variable of the project's own", "src/m.py", "import os\nHOME = os.environ.get('HOME')\nDEBUG = os.getenv('MYAPP_DEBUG', '') == '1'\n"},
	{RuleEnv, "unittest", "the environment handed to a child", "src/m.py", "import os, subprocess\ndef run():\n    env = dict(os.environ)\n    env.update({'LC_ALL': 'C'})\n    return subprocess.run(['ls'], env={**os.environ, 'X': '1'})\n"},
	{RuleEnv, "pytest", "a prefix scan of the project's own variables", "src/m.py", "import os\nCONF = {k: v for k, v in os.environ.items() if k.startswith('REQUESTS_')}\n"},
	{RuleEnv, "go test", "os.Environ passed to a command", "run/run.go", "package run\n\nimport (\n\t\"os\"\n\t\"os/exec\"\n)\n\nfunc Cmd() *exec.Cmd {\n\tc := exec.Command(\"ls\")\n\tc.Env = append(os.Environ(), \"LC_ALL=C\")\n\treturn c\n}\n"},
	{RuleEnv, "go test", "a variable of the project's own", "cfg/cfg.go", "package cfg\n\nimport \"os\"\n\nvar Home = os.Getenv(\"HOME\")\n"},
	{RuleEnv, "vitest", "NODE_ENV production and vite's DEV", "src/env.ts", "export const prod = process.env.NODE_ENV === 'production'\nexport const dev = import.meta.env.DEV\n"},
	{RuleEnv, "jest", "a child's environment copied", "src/spawn.js", "const { spawn } = require('child_process')\nmodule.exports = () => spawn('ls', [], { env: { ...process.env, FORCE_COLOR: '1' } })\n"},

	{RuleLoaded, "pytest", "sys.modules for its own module (dataclasses)", "src/m.py", "import sys\ndef mod(cls):\n    return sys.modules[cls.__module__].__dict__\nHAS_NUMPY = 'numpy' in sys.modules\n"},
	{RuleLoaded, "unittest", "sys.modules listed to alias vendored packages (requests' packages.py)", "src/packages.py", "import sys\nfor package in ('urllib3', 'idna'):\n    for mod in list(sys.modules):\n        if mod == package or mod.startswith(f'{package}.'):\n            sys.modules[f'requests.packages.{mod}'] = sys.modules[mod]\n"},
	{RuleLoaded, "go test", "testing.T in a helper's signature", "internal/th/th.go", "package th\n\nimport \"testing\"\n\nfunc Must(t testing.TB, err error) {\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n"},
	{RuleLoaded, "vitest", "typeof window for the browser", "src/env.ts", "export const browser = typeof window !== 'undefined' && typeof document !== 'undefined'\n"},
	{RuleLoaded, "jest", "a local named test", "src/m.js", "function check(test) {\n  return typeof test === 'function'\n}\nmodule.exports = check\n"},

	{RuleReadsTests, "pytest", "a file read of the project's data", "src/m.py", "import os\ndef load():\n    with open(os.path.join(os.path.dirname(__file__), 'data', 'words.txt')) as f:\n        return f.read()\n"},
	{RuleReadsTests, "unittest", "a sentence mentioning tests, not a path", "src/m.py", "def check():\n    raise RuntimeError('see the tests/ directory for examples of use')\n"},
	{RuleReadsTests, "go test", "stringer's output file name in package main", "cmd/gen/main.go", "package main\n\nimport \"os\"\n\nfunc main() {\n\tos.WriteFile(\"string_test.go\", nil, 0o644)\n}\n"},
	{RuleReadsTests, "vitest", "a file read of the project's data", "src/load.ts", "import { readFileSync } from 'node:fs'\nexport const words = () => readFileSync(new URL('./words.txt', import.meta.url), 'utf8')\n"},
	{RuleReadsTests, "jest", "NODE_ENV compared with production in a file that reads files", "src/load.js", "const fs = require('fs')\nmodule.exports = () => fs.readFileSync(process.env.NODE_ENV === 'production' ? 'a.json' : 'b.json')\n"},

	{RulePatch, "pytest", "an attribute of its own class set", "src/m.py", "class A:\n    pass\nsetattr(A, 'name', 'a')\nA.other = 1\n"},
	{RulePatch, "unittest", "a bare name rebound", "src/m.py", "import builtins\nopen_ = builtins.open\nprint_ = print\n"},
	{RulePatch, "go test", "os.Args read in main", "cmd/x/main.go", "package main\n\nimport \"os\"\n\nfunc main() {\n\targs := os.Args\n\t_ = args\n}\n"},
	{RulePatch, "vitest", "Object.defineProperty on its own object", "src/m.ts", "const o = {}\nObject.defineProperty(o, 'x', { value: 1 })\nexport default o\n"},
	{RulePatch, "jest", "a prototype's method read (lodash)", "src/m.js", "var hasOwnProperty = Object.prototype.hasOwnProperty,\n  toString = Object.prototype.toString\nmodule.exports = hasOwnProperty\n"},
	{RulePatch, "jest", "node's assert used as assert", "src/m.js", "const assert = require('assert')\nmodule.exports = (x) => { assert.ok(x, 'x'); assert.strictEqual(typeof x, 'number'); return x }\n"},

	{RuleUsesRunner, "pytest", "unittest.mock in code", "src/m.py", "from unittest import mock\nSENTINEL = mock.sentinel.x\n"},
	{RuleUsesRunner, "unittest", "doctest in the __main__ block", "src/m.py", "def f():\n    return 1\nif __name__ == '__main__':\n    import doctest\n    doctest.testmod()\n"},
	{RuleUsesRunner, "vitest", "a type-only import of vitest's types", "src/m.ts", "import type { Mock } from 'vitest'\nexport type M = Mock\n"},
	{RuleUsesRunner, "jest", "node's assert imported", "src/m.js", "const assert = require('node:assert/strict')\nmodule.exports = (x) => assert(x)\n"},

	{RuleEquality, "pytest", "__eq__ that compares (fractions)", "src/m.py", "class P:\n    def __eq__(self, other):\n        if self is other:\n            return True\n        return (self.x, self.y) == (other.x, other.y)\n"},
	{RuleEquality, "unittest", "__eq__ that defers", "src/m.py", "class P:\n    def __eq__(self, other):\n        return NotImplemented\n    def __ne__(self, other):\n        return not self == other\n"},
	{RuleEquality, "go test", "Equal and Is that compare", "m/m.go", "package m\n\nfunc (m Money) Equal(o Money) bool { return m.c == o.c }\n\nfunc (e *NotFound) Is(t error) bool { _, ok := t.(*NotFound); return ok }\n"},
	{RuleEquality, "vitest", "equals that compares", "src/m.ts", "export class Money {\n  equals(o: Money): boolean {\n    return this.c === o.c\n  }\n}\n"},
	{RuleEquality, "jest", "valueOf that returns a field", "src/m.js", "class Money {\n  valueOf() {\n    return this.cents\n  }\n}\nmodule.exports = Money\n"},

	{RuleHidden, "pytest", "base64 of a credential and of a literal payload (requests' auth)", "src/auth.py", "import base64\ndef basic(auth):\n    user, _, pw = base64.b64decode(auth).decode().partition(':')\n    return user, base64.b64decode('aGVsbG8gd29ybGQ=')\n"},
	{RuleHidden, "unittest", "character codes, a reversal of an argument, rot13 of a greeting", "src/text.py", "import codecs\nELLIPSIS = chr(0x2026)\ndef rev(s):\n    return ''.join(reversed(s)) + s[::-1]\nHELLO = codecs.decode('Uryyb', 'rot13')\n"},
	{RuleHidden, "go test", "a byte-order mark and a decoded literal (encoding/base64)", "txt/bom.go", "package txt\n\nimport \"encoding/base64\"\n\nvar bom = string([]byte{0xEF, 0xBB, 0xBF})\n\nfunc hello() string {\n\tb, _ := base64.StdEncoding.DecodeString(\"aGVsbG8=\")\n\treturn string(b)\n}\n"},
	{RuleHidden, "vitest", "a character from its code, a decoded literal", "src/text.ts", "export const ellipsis = String.fromCharCode(0x2026)\nexport const hello = atob('aGVsbG8=')\n"},
	{RuleHidden, "jest", "a token decoded (npm-registry-fetch's auth), a word reversed", "src/auth.js", "module.exports = (token) => [Buffer.from(token, 'base64').toString('utf8'), 'olleh'.split('').reverse().join('')]\n"},
	{RuleLoaded, "jest", "Function('return this') in a file that names no runner (a globalThis polyfill)", "src/global.js", "const g = typeof globalThis !== 'undefined' ? globalThis : Function('return this')()\nmodule.exports = g.Promise\n"},

	{RuleStack, "pytest", "eval of arithmetic", "src/m.py", "def f():\n    return eval('1 + 2')\n"},
	{RuleLoaded, "pytest", "the runner's name in a message", "src/m.py", "def need():\n    raise ImportError('pytest is needed for this helper')\n"},
	{RuleReadsTests, "go test", "a path of the project's own data", "data/data.go", "package data\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n)\n\nfunc Load() ([]byte, error) { return os.ReadFile(filepath.Join(\"assets\", \"words.txt\")) }\n"},
	{RuleLoaded, "go test", "flag.Lookup of its own flag", "lib/v.go", "package lib\n\nimport \"flag\"\n\nfunc V() bool { return flag.Lookup(\"v\") != nil }\n"},
	{RulePatch, "vitest", "a guarded polyfill", "src/poly.js", "if (!Array.prototype.at) {\n  Array.prototype.at = function (i) { return this[i < 0 ? this.length + i : i] }\n}\nexport {}\n"},
	{RuleEnv, "jest", "'HOME' in process.env", "src/home.js", "module.exports = () => ('HOME' in process.env ? process.env.HOME : '/')\n"},
	{RuleStartup, "go test", "a package named vendorutil", "vendorutil/v.go", "package vendorutil\n"},
	{RuleEnv, "pytest", "a config key named TESTING (flask's app.py)", "src/app.py", "import os\nDEFAULTS = {'TESTING': False, 'DEBUG': os.environ.get('APP_DEBUG')}\n"},
	{RuleEquality, "pytest", "a file-like object that is always truthy (boltons' ioutils)", "src/io.py", "class Spooled:\n    def __len__(self):\n        return 0\n    def __bool__(self):\n        return True\n"},
	{RuleReadsTests, "unittest", "a docstring showing an assertion, in code that reads files", "src/m.py", "def load(p):\n    \"\"\"Read p.\n\n    assert load('x') == 'y'\n    \"\"\"\n    return open(p).read()\n"},
	{RuleStartup, "pytest", "a module named like a stdlib one", "src/util/ast_helpers.py", "import ast\n"},
	{RuleStartup, "unittest", "a test runner's name inside a longer module name", "src/pytest_like.py", "X = 1\n"},
	{RuleStartup, "vitest", "a vendored file outside node_modules", "vendor/lib.js", "export const x = 1\n"},
	{RuleStartup, "jest", "a file named modules", "src/node_modules_list.js", "module.exports = []\n"},
}

var askRunners = []string{"pytest", "unittest", "go test", "vitest", "jest"}

func TestEveryClassCatchesItsCheatsPerRunner(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range askCheats {
		// The class itself must see it (a table rule may name the line
		// first in Scan's report, which shows one hit per line).
		src := strings.ReplaceAll(c.code, "\r\n", "\n")
		var fds []finding
		if l := LangOf(c.path); l != "" {
			fds = analyze(l, c.path, src, strings.Split(src, "\n"))
		} else {
			fds = analyze("", c.path, src, nil)
		}
		found := false
		for _, f := range fds {
			if f.rule == c.class && f.line == c.line {
				found = true
			}
		}
		hits := Scan(File{Path: c.path, Content: []byte(c.code)})
		reported := false
		for _, h := range hits {
			if h.Line == c.line {
				reported = true
			}
		}
		if !found || !reported {
			t.Errorf("%s (%s) not caught at %s:%d (class %v, report %v); findings %v hits %v\n%s", c.class, c.runner, c.path, c.line, found, reported, fds, hits, c.code)
		}
		covered[c.class+"/"+c.runner] = true
	}
	for _, c := range askLegit {
		covered["legit:"+c.class+"/"+c.runner] = true
	}
	for _, cl := range Classes {
		for _, r := range askRunners {
			if cl == RuleUsesRunner && r == "go test" || cl == RuleStartup && r == "go test" {
				continue // Go has no startup file, and using testing from code is RuleLoaded's
			}
			if !covered[cl+"/"+r] {
				t.Errorf("class %s has no cheat for %s", cl, r)
			}
			if !covered["legit:"+cl+"/"+r] && !(cl == RulePatch && r == "go test" && false) {
				t.Errorf("class %s has no legitimate code for %s", cl, r)
			}
		}
	}
}

func TestLegitimateLookalikesAreNotFlagged(t *testing.T) {
	for _, c := range askLegit {
		if h := Scan(File{Path: c.path, Content: []byte(c.code)}); len(h) != 0 {
			t.Errorf("%s (%s, %s): flagged %v", c.why, c.class, c.runner, h)
		}
	}
}

// What the checkout's version of a file already asks is not the
// candidate's doing: a candidate rewriting the line that asks (or moving
// it) is not flagged, one adding a new kind of asking is.
func TestTheCheckoutAlreadyDidTheSame(t *testing.T) {
	orig := "import sys\n\ndef caller():\n    return sys._getframe(1).f_code.co_name\n"
	moved := "import sys\n\n\ndef caller(depth=1):\n    f = sys._getframe(depth)\n    return f.f_code.co_name\n"
	if h := Scan(File{Path: "src/m.py", Content: []byte(moved), Added: map[int]bool{4: true, 5: true, 6: true}, Orig: []byte(orig)}); len(h) != 0 {
		t.Errorf("the checkout's own frame walk, rewritten, was flagged: %v", h)
	}
	more := moved + "\ndef under_test():\n    return 'pytest' in sys.modules\n"
	h := Scan(File{Path: "src/m.py", Content: []byte(more), Added: map[int]bool{9: true}, Orig: []byte(orig)})
	if len(h) != 1 || h[0].Line != 9 {
		t.Errorf("a new kind of asking beside the checkout's: %v", h)
	}
	// A new file has no checkout version: everything counts.
	if h := Scan(File{Path: "src/m.py", Content: []byte(moved)}); len(h) != 1 || h[0].Rule != RuleStack {
		t.Errorf("a new file's frame walk: %v", h)
	}
}

// The report names the file, the line and what was asked.
func TestHitSaysWhatItAsked(t *testing.T) {
	h := Scan(File{Path: "src/calc.py", Content: []byte("from sys import _getframe as g\nX = g(1)\n")})
	if len(h) == 0 || !strings.Contains(h[len(h)-1].String(), "src/calc.py:2 asks for the call stack (sys._getframe)") {
		t.Errorf("%v", h)
	}
}

// A file the analysis cannot get through is named, not skipped: writing
// what crashes the scan is no way past it, and the run goes on.
func TestAnUnscannableFileIsNamed(t *testing.T) {
	testPanic = func(src string) {
		if strings.Contains(src, "boom") {
			panic("boom")
		}
	}
	defer func() { testPanic = nil }()
	h := Scan(File{Path: "src/m.py", Content: []byte("x = 1\ny = 'boom'\n"), Added: map[int]bool{2: true}, Orig: []byte("x = 1\n")})
	if len(h) != 1 || h[0].Rule != RuleUnreadable || h[0].Line != 1 {
		t.Errorf("%v", h)
	}
	if h := Scan(File{Path: "src/m.py", Content: []byte("x = 1\n")}); len(h) != 0 {
		t.Errorf("%v", h)
	}
}
