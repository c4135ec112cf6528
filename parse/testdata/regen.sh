#!/usr/bin/env bash
# regen.sh regenerates the captured runner outputs under parse/testdata/ by
# creating tiny projects in a temporary directory and running the real tools on
# them. The table test in parse_test.go holds the expected counts; after a
# regeneration, run `go test ./parse` and check any difference by hand (a new
# tool version may print a new format — that is what this script is for).
#
# Tools it needs (Debian 12 + npm registry):
#   apt-get update && apt-get install -y python3-pytest cmake meson ninja-build make gcc
#   go (>= 1.22), cargo/rustc, node >= 20 with npm
#   npm packages are installed into the temp dir: npm install vitest@3 jest
#     (vitest 4 / vite 8 need a newer node than 20)
#
# vitest/tree.txt: its list (the RUN line to the last file line) is vitest
#   5.1.2's real output for the files jsfiles writes (npm install vitest@5);
#   node 20 cannot run its summary (Map.groupBy), so the failure section and
#   the summary are vitest 3's from default.txt, which vitest 5 prints alike.
#
# Not regenerated here, because the tools cannot be installed on the project's
# machines (no network but the Debian, npm and Go registries): bun test,
# cargo nextest, swift test (XCTest and swift-testing). Their fixtures
# (bun/, nextest/, xctest/, swift-testing/) are written by hand from the
# documented output format, and each says so in a header comment.
#
# Usage: parse/testdata/regen.sh [runner...]   (default: all; "verdict" for verdict/)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/shadow-parse-regen.XXXXXX)
trap 'rm -rf "$T"' EXIT
# Fixtures must not carry the random temp dir: replace it with a fixed path.
FIXED=/tmp/proj
PY=${PYTHON:-python3}
if ! "$PY" -c 'import pytest' 2>/dev/null; then PY=/usr/bin/python3; fi
export NO_COLOR= CLICOLOR_FORCE= TERM=dumb
unset NO_COLOR CLICOLOR_FORCE

# save DIR FILE CMD... runs CMD in DIR (stdout+stderr together, as shadow sees
# them) and writes the output to testdata/FILE.
save() {
	local dir=$1 file=$2
	shift 2
	mkdir -p "$HERE/$(dirname "$file")"
	(cd "$dir" && "$@") >"$T/out" 2>&1
	echo "exit $? : $file" >&2
	sed "s#$T#$FIXED#g" "$T/out" >"$HERE/$file"
}

want() { [ $# -eq 0 ] && return 0; for w in "${SEL[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
SEL=("$@")
sel() { [ ${#SEL[@]} -eq 0 ] || want "$1"; }

gomod() {
	mkdir -p "$T/go/calc" "$T/go/util"
	cat >"$T/go/go.mod" <<'G'
module example.com/proj

go 1.22
G
	cat >"$T/go/calc/calc.go" <<'G'
package calc

func Add(a, b int) int { return a + b }
func Sub(a, b int) int { return a + b } // bug
G
	cat >"$T/go/calc/calc_test.go" <<'G'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("add")
	}
}

func TestSub(t *testing.T) {
	if Sub(3, 1) != 2 {
		t.Errorf("Sub(3, 1) = %d, want 2", Sub(3, 1))
	}
}

func TestSkip(t *testing.T) { t.Skip("not today") }

func TestTable(t *testing.T) {
	for _, c := range []struct {
		name    string
		a, b, w int
	}{{"zero", 0, 0, 0}, {"neg", 3, 1, 2}} {
		t.Run(c.name, func(t *testing.T) {
			if got := Sub(c.a, c.b); got != c.w {
				t.Errorf("got %d", got)
			}
		})
	}
}
G
	cat >"$T/go/util/util_test.go" <<'G'
package util

import "testing"

func TestOne(t *testing.T) {}
func TestTwo(t *testing.T) {
	t.Run("a", func(t *testing.T) {})
}
G
	mkdir -p "$T/gobroken"
	cp "$T/go/go.mod" "$T/gobroken/"
	cat >"$T/gobroken/x_test.go" <<'G'
package x

import "testing"

func TestX(t *testing.T) { undefined() }
G
}

if sel go; then
	gomod
	export GOFLAGS=-count=1
	save "$T/go" go/json.txt go test -json ./...
	save "$T/go" go/v.txt go test -v ./...
	save "$T/go" go/plain.txt go test ./...
	save "$T/go" go/plain_pass.txt go test ./util
	save "$T/gobroken" go/buildfail.txt go test ./...
	save "$T/gobroken" go/json_buildfail.txt go test -json ./...
	mkdir -p "$T/gopanic"
	cp "$T/go/go.mod" "$T/gopanic/"
	cat >"$T/gopanic/p_test.go" <<'G'
package p

import "testing"

func TestFine(t *testing.T) {}

func TestPanics(t *testing.T) {
	var m map[string]int
	m["x"] = 1
}

func TestNeverRuns(t *testing.T) {}
G
	save "$T/gopanic" go/v_panic.txt go test -v ./...
	unset GOFLAGS
fi

if sel cargo; then
	mkdir -p "$T/rs/src" "$T/rs/tests"
	cat >"$T/rs/Cargo.toml" <<'R'
[package]
name = "calc"
version = "0.1.0"
edition = "2021"
R
	cat >"$T/rs/src/lib.rs" <<'R'
/// Adds.
///
/// ```
/// assert_eq!(calc::add(1, 2), 3);
/// ```
pub fn add(a: i32, b: i32) -> i32 { a + b }

/// Subtracts.
///
/// ```
/// assert_eq!(calc::sub(3, 1), 2);
/// ```
pub fn sub(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn add_works() { assert_eq!(add(1, 2), 3); }
    #[test]
    fn sub_works() { assert_eq!(sub(3, 1), 2); }
    #[test]
    #[ignore]
    fn slow() {}
}
R
	cat >"$T/rs/tests/it.rs" <<'R'
#[test]
fn integration_add() { assert_eq!(calc::add(2, 2), 4); }
R
	(cd "$T/rs" && cargo build --tests -q 2>/dev/null)
	save "$T/rs" cargo/nofailfast.txt cargo test --no-fail-fast
	save "$T/rs" cargo/failfast.txt cargo test
	save "$T/rs" cargo/color.txt cargo test --no-fail-fast --color always
	sed -i 's/a + b }$/a - b }/; 0,/a - b }/s//a + b }/' "$T/rs/src/lib.rs"
	save "$T/rs" cargo/pass.txt cargo test
	# A workspace of two crates: one summary per binary per crate, summed.
	mkdir -p "$T/ws/one/src" "$T/ws/two/src"
	printf '[workspace]\nmembers = ["one", "two"]\nresolver = "2"\n' >"$T/ws/Cargo.toml"
	for c in one two; do
		printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n' "$c" >"$T/ws/$c/Cargo.toml"
	done
	cat >"$T/ws/one/src/lib.rs" <<'R'
#[cfg(test)]
mod tests {
    #[test]
    fn a() {}
    #[test]
    fn b() {}
}
R
	cat >"$T/ws/two/src/lib.rs" <<'R'
#[cfg(test)]
mod tests {
    #[test]
    fn c() {}
    #[test]
    fn d() { panic!("boom") }
}
R
	(cd "$T/ws" && cargo build --tests -q 2>/dev/null)
	save "$T/ws" cargo/workspace.txt cargo test --workspace --no-fail-fast
	echo 'pub fn broken() -> i32 { nope }' >>"$T/rs/src/lib.rs"
	save "$T/rs" cargo/compile_error.txt cargo test
fi

if sel pytest; then
	mkdir -p "$T/py/tests"
	cat >"$T/py/tests/test_calc.py" <<'P'
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_add():
    assert 1 + 2 == 3


def test_sub():
    assert 3 - 1 == 3


@pytest.mark.skip(reason="not today")
def test_skip():
    pass


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="fixed already")
def test_xpass():
    pass


def test_error(broken):
    pass


@pytest.mark.parametrize("a,b", [(1, 1), (2, 3)])
def test_eq(a, b):
    assert a == b
P
	mkdir -p "$T/pyempty" "$T/pycoll/tests"
	echo 'import nosuchmodule' >"$T/pycoll/tests/test_bad.py"
	echo 'def test_ok(): pass' >"$T/pycoll/tests/test_ok.py"
	save "$T/py" pytest/q.txt "$PY" -m pytest -q -p no:cacheprovider
	save "$T/py" pytest/v.txt "$PY" -m pytest -v -p no:cacheprovider
	save "$T/py" pytest/default.txt "$PY" -m pytest -p no:cacheprovider
	save "$T/py" pytest/color.txt "$PY" -m pytest -v --color=yes -p no:cacheprovider
	save "$T/py" pytest/ra.txt "$PY" -m pytest -q -rA -p no:cacheprovider
	save "$T/pyempty" pytest/notests.txt "$PY" -m pytest -p no:cacheprovider
	save "$T/pycoll" pytest/collect_error.txt "$PY" -m pytest -p no:cacheprovider
	mkdir -p "$T/pyok"
	cat >"$T/pyok/test_ok.py" <<'P'
import pytest


def test_a():
    pass


def test_b():
    pass


@pytest.mark.xfail(strict=True)
def test_strict():
    pass
P
	save "$T/pyok" pytest/strict_xpass.txt "$PY" -m pytest -q -p no:cacheprovider
	mkdir -p "$HERE/junit"
	(cd "$T/py" && "$PY" -m pytest -q -p no:cacheprovider --junitxml="$T/junit.xml" >/dev/null 2>&1)
	sed "s#$T#$FIXED#g" "$T/junit.xml" >"$HERE/junit/pytest.xml"
fi

if sel unittest; then
	mkdir -p "$T/ut"
	cat >"$T/ut/test_calc.py" <<'P'
import unittest


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(1 + 2, 3)

    def test_doc(self):
        """Docstrings show in verbose mode."""
        self.assertTrue(True)

    def test_sub(self):
        self.assertEqual(3 - 1, 3)

    def test_error(self):
        raise RuntimeError("boom")

    @unittest.skip("not today")
    def test_skip(self):
        pass

    @unittest.expectedFailure
    def test_xfail(self):
        self.assertEqual(1, 2)
P
	mkdir -p "$T/ut2"
	cat >"$T/ut2/test_ok.py" <<'P'
import unittest


class TestOK(unittest.TestCase):
    def test_a(self):
        pass

    @unittest.skip("no")
    def test_b(self):
        pass

    @unittest.skipIf(True, "no")
    def test_c(self):
        pass
P
	save "$T/ut" unittest/plain.txt "$PY" -m unittest
	save "$T/ut" unittest/v.txt "$PY" -m unittest -v
	save "$T/ut2" unittest/ok_skipped.txt "$PY" -m unittest
	save "$T/ut2" unittest/ok_skipped_v.txt "$PY" -m unittest -v
	mkdir -p "$T/ut3"
	echo 'import nosuchmodule' >"$T/ut3/test_broken.py"
	save "$T/ut3" unittest/import_error.txt "$PY" -m unittest
fi

jsfiles() {
	# $1: dir. Both runners read the same CommonJS files with globals.
	mkdir -p "$1"
	cat >"$1/a.test.js" <<'J'
describe('a', () => {
  test('adds', () => { expect(1 + 2).toBe(3); });
  test('multiplies', () => { expect(2 * 3).toBe(6); });
});
J
	cat >"$1/b.test.js" <<'J'
describe('b', () => {
  test('subtracts', () => { expect(3 - 1).toBe(3); });
  test.skip('skipped', () => {});
  describe('nested', () => {
    test('divides', () => { expect(6 / 2).toBe(3); });
  });
});
J
}

if sel vitest || sel jest; then
	mkdir -p "$T/js"
	(cd "$T/js" && npm init -y >/dev/null && npm install --no-audit --no-fund vitest@3 jest >/dev/null 2>&1)
	jsfiles "$T/js/vt"
	jsfiles "$T/js/jt"
	cat >"$T/js/vitest.config.mjs" <<'J'
export default { test: { globals: true, include: ['vt/**/*.test.js'] } };
J
	(cd "$T/js" && node -e '
	  const p = require("./package.json");
	  p.scripts = { test: "jest --rootDir jt" };
	  p.jest = undefined;
	  require("fs").writeFileSync("package.json", JSON.stringify(p, null, 2));')
fi
if sel vitest; then
	save "$T/js" vitest/default.txt npx vitest run
	save "$T/js" vitest/verbose.txt npx vitest run --reporter=verbose
	save "$T/js" vitest/color.txt env FORCE_COLOR=1 npx vitest run
	echo 'describe("c", () => { test("x", () => { expect(1).toBe(1) }) ' >"$T/js/vt/c.test.js"
	save "$T/js" vitest/broken_file.txt npx vitest run
	rm "$T/js/vt/c.test.js"
fi
if sel jest; then
	save "$T/js" jest/default.txt npx jest --rootDir jt
	save "$T/js" jest/verbose.txt npx jest --rootDir jt --verbose
	save "$T/js" jest/color.txt env FORCE_COLOR=1 npx jest --rootDir jt
	save "$T/js" jest/npm_test.txt npm test
	save "$T/js" jest/single_file.txt npx jest --rootDir jt b.test.js
	echo 'describe("c", () => { test("x", () => { expect(1).toBe(1) }) ' >"$T/js/jt/c.test.js"
	save "$T/js" jest/broken_suite.txt npx jest --rootDir jt
	rm "$T/js/jt/c.test.js"
fi

if sel node; then
	mkdir -p "$T/node/test"
	cat >"$T/node/test/calc.test.js" <<'J'
const test = require('node:test');
const assert = require('node:assert');

test('adds', () => { assert.strictEqual(1 + 2, 3); });
test('subtracts', () => { assert.strictEqual(3 - 1, 3); });
test('skipped', { skip: 'not today' }, () => {});
test('todo', { todo: true }, () => {});
test.describe('suite', () => {
  test.it('inner passes', () => {});
  test.it('inner fails', () => { assert.ok(false); });
});
J
	save "$T/node" node/tap.txt node --test --test-reporter=tap
	cat >"$T/node/test/more.test.js" <<'J'
const test = require('node:test');
test('more passes', () => {});
J
	save "$T/node" node/tap_two_files.txt node --test --test-reporter=tap
	rm "$T/node/test/more.test.js"
	save "$T/node" node/spec.txt node --test --test-reporter=spec
	save "$T/node" node/spec_color.txt env FORCE_COLOR=1 node --test --test-reporter=spec
fi

if sel ctest; then
	mkdir -p "$T/cm"
	cat >"$T/cm/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.16)
project(calc NONE)
enable_testing()
add_test(NAME pass_test COMMAND sh -c "exit 0")
add_test(NAME fail_test COMMAND sh -c "echo broken; exit 1")
add_test(NAME skip_test COMMAND sh -c "exit 77")
set_tests_properties(skip_test PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME other_pass COMMAND sh -c "exit 0")
C
	(cd "$T/cm" && cmake -S . -B build >/dev/null)
	save "$T/cm" ctest/ctest.txt sh -c 'cd build && ctest'
	save "$T/cm" ctest/output_on_failure.txt sh -c 'cd build && ctest --output-on-failure -V'
	(cd "$T/cm/build" && ctest --output-junit "$T/ctest.xml" >/dev/null 2>&1)
	mkdir -p "$HERE/junit"
	sed "s#$T#$FIXED#g" "$T/ctest.xml" >"$HERE/junit/ctest.xml"
fi

if sel meson; then
	mkdir -p "$T/me"
	cat >"$T/me/meson.build" <<'M'
project('calc', 'c')
sh = find_program('sh')
test('pass_test', sh, args: ['-c', 'exit 0'])
test('fail_test', sh, args: ['-c', 'echo broken; exit 1'])
test('skip_test', sh, args: ['-c', 'exit 77'])
test('xfail_test', sh, args: ['-c', 'exit 1'], should_fail: true)
M
	(cd "$T/me" && meson setup build >/dev/null)
	save "$T/me" meson/meson.txt meson test -C build
fi

if sel mixed; then
	gomod
	mkdir -p "$T/mix"
	cp -r "$T/go/util" "$T/go/go.mod" "$T/mix/"
	mkdir -p "$T/mix/tests"
	cat >"$T/mix/tests/test_x.py" <<'P'
def test_ok():
    pass


def test_bad():
    assert 0
P
	printf 'test:\n\tgo test -count=1 ./...\n\t%s -m pytest -q -p no:cacheprovider tests\n' "$PY" >"$T/mix/Makefile"
	save "$T/mix" mixed/make_go_pytest.txt make test
fi

# verdict/: the same small project per runner and the cheats of issue 11
# (DESIGN §4), for engine's lost_tests / fixed / disqualified tests:
#   base      one test failing (sub)
#   fixed     the code fixed
#   deleted   a test file deleted
#   skipped   a skip marker on the failing test
#   weakened  the failing test's assertions removed (same counts)
#   renamed   the failing test renamed (and the code fixed)
#   twice     the failing test gone and another test collected twice
#             (pytest --keep-duplicates, unittest naming one test twice,
#             jest/vitest a duplicate title); go and cargo cannot have two
#             tests of one name, so they have no "twice".
# vcopy NAME copies the project template $T/v-SRC to $T/v-NAME.
vcopy() { rm -rf "$T/v-$2"; cp -r "$T/v-$1" "$T/v-$2"; }
vsed() { sed -i "$1" "$2"; }

if sel verdict; then
	mkdir -p "$T/v-py/tests"
	cat >"$T/v-py/calc.py" <<'P'
def sub(a, b):
    return a + b  # bug
P
	cat >"$T/v-py/tests/test_calc.py" <<'P'
import unittest

from calc import sub


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(1 + 2, 3)

    def test_sub(self):
        self.assertEqual(sub(3, 1), 2)

    def test_mul(self):
        self.assertEqual(2 * 3, 6)
P
	cat >"$T/v-py/tests/test_more.py" <<'P'
import unittest


class TestMore(unittest.TestCase):
    def test_one(self):
        pass

    def test_two(self):
        pass
P
	touch "$T/v-py/tests/__init__.py"
	vcopy py py-fixed; vsed 's/a + b  # bug/a - b/' "$T/v-py-fixed/calc.py"
	vcopy py py-deleted; rm "$T/v-py-deleted/tests/test_calc.py"
	vcopy py py-skipped; vsed 's/    def test_sub/    @unittest.skip("later")\n    def test_sub/' "$T/v-py-skipped/tests/test_calc.py"
	vcopy py py-weakened; vsed 's/self.assertEqual(sub(3, 1), 2)/pass/' "$T/v-py-weakened/tests/test_calc.py"
	vcopy py-fixed py-renamed; vsed 's/def test_sub/def test_subtract/' "$T/v-py-renamed/tests/test_calc.py"
	vcopy py py-twice; vsed '/def test_sub/,+2d' "$T/v-py-twice/tests/test_calc.py"
	PYT=("$PY" -m pytest -p no:cacheprovider)
	for v in base fixed deleted skipped weakened renamed; do
		d="$T/v-py"; [ $v = base ] || d="$T/v-py-$v"
		save "$d" verdict/pytest-q/$v.txt "${PYT[@]}" -q tests
		save "$d" verdict/pytest-v/$v.txt "${PYT[@]}" -v tests
		save "$d" verdict/unittest-v/$v.txt "$PY" -m unittest -v
		save "$d" verdict/unittest/$v.txt "$PY" -m unittest
	done
	save "$T/v-py-twice" verdict/pytest-q/twice.txt "${PYT[@]}" -q --keep-duplicates tests tests/test_more.py
	save "$T/v-py-twice" verdict/pytest-v/twice.txt "${PYT[@]}" -v --keep-duplicates tests tests/test_more.py
	save "$T/v-py-twice" verdict/unittest-v/twice.txt "$PY" -m unittest -v tests.test_calc.TestCalc.test_add tests.test_calc.TestCalc.test_mul tests.test_more.TestMore.test_one tests.test_more.TestMore.test_two tests.test_more.TestMore.test_two
	save "$T/v-py-twice" verdict/unittest/twice.txt "$PY" -m unittest tests.test_calc.TestCalc.test_add tests.test_calc.TestCalc.test_mul tests.test_more.TestMore.test_one tests.test_more.TestMore.test_two tests.test_more.TestMore.test_two

	mkdir -p "$T/v-go/calc" "$T/v-go/more"
	printf 'module example.com/v\n\ngo 1.22\n' >"$T/v-go/go.mod"
	printf 'package calc\n\nfunc Sub(a, b int) int { return a + b } // bug\n' >"$T/v-go/calc/calc.go"
	cat >"$T/v-go/calc/calc_test.go" <<'G'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if 1+2 != 3 {
		t.Fatal("add")
	}
}

func TestSub(t *testing.T) {
	if Sub(3, 1) != 2 {
		t.Errorf("Sub(3, 1) = %d, want 2", Sub(3, 1))
	}
}

func TestMul(t *testing.T) {
	if 2*3 != 6 {
		t.Fatal("mul")
	}
}
G
	printf 'package more\n' >"$T/v-go/more/more.go"
	printf 'package more\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {}\n\nfunc TestTwo(t *testing.T) {}\n' >"$T/v-go/more/more_test.go"
	vcopy go go-fixed; vsed 's/return a + b } \/\/ bug/return a - b }/' "$T/v-go-fixed/calc/calc.go"
	vcopy go go-deleted; rm "$T/v-go-deleted/calc/calc_test.go"
	vcopy go go-skipped; vsed 's/func TestSub(t \*testing.T) {/func TestSub(t *testing.T) {\n\tt.Skip("later")/' "$T/v-go-skipped/calc/calc_test.go"
	vcopy go go-weakened; vsed 's/if Sub(3, 1) != 2 {/if false {/' "$T/v-go-weakened/calc/calc_test.go"
	vcopy go-fixed go-renamed; vsed 's/func TestSub(/func TestSubtract(/' "$T/v-go-renamed/calc/calc_test.go"
	for v in base fixed deleted skipped weakened renamed; do
		d="$T/v-go"; [ $v = base ] || d="$T/v-go-$v"
		save "$d" verdict/go/$v.txt go test -count=1 ./...
		save "$d" verdict/go-v/$v.txt go test -count=1 -v ./...
		save "$d" verdict/go-json/$v.txt go test -count=1 -json ./...
	done

	mkdir -p "$T/v-rs/src" "$T/v-rs/tests"
	printf '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n' >"$T/v-rs/Cargo.toml"
	cat >"$T/v-rs/src/lib.rs" <<'R'
pub fn sub(a: i32, b: i32) -> i32 {
    a + b // bug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_works() {
        assert_eq!(1 + 2, 3);
    }

    #[test]
    fn sub_works() {
        assert_eq!(sub(3, 1), 2);
    }

    #[test]
    fn mul_works() {
        assert_eq!(2 * 3, 6);
    }
}
R
	printf '#[test]\nfn integration_one() {}\n\n#[test]\nfn integration_two() {}\n' >"$T/v-rs/tests/it.rs"
	(cd "$T/v-rs" && cargo build --tests -q >/dev/null 2>&1)
	vcopy rs rs-fixed; vsed 's|a + b // bug|a - b|' "$T/v-rs-fixed/src/lib.rs"
	vcopy rs rs-deleted; rm "$T/v-rs-deleted/tests/it.rs"
	vcopy rs rs-skipped; vsed 's/    fn sub_works/    #[ignore]\n    fn sub_works/' "$T/v-rs-skipped/src/lib.rs"
	vcopy rs rs-weakened; vsed 's/assert_eq!(sub(3, 1), 2);/let _ = sub;/' "$T/v-rs-weakened/src/lib.rs"
	vcopy rs-fixed rs-renamed; vsed 's/fn sub_works/fn subtract_works/' "$T/v-rs-renamed/src/lib.rs"
	for v in base fixed deleted skipped weakened renamed; do
		d="$T/v-rs"; [ $v = base ] || d="$T/v-rs-$v"
		save "$d" verdict/cargo/$v.txt env RUST_BACKTRACE=0 cargo test -q --no-fail-fast
	done

	mkdir -p "$T/v-js/jt"
	JSMOD=${JS_MODULES:-$HERE/../../testdata/runners/js/node_modules}
	ln -s "$JSMOD" "$T/v-js/node_modules"
	printf '{"name":"v","private":true,"type":"commonjs"}\n' >"$T/v-js/package.json"
	printf 'export default { test: { include: ["jt/**/*.test.js"], globals: true } }\n' >"$T/v-js/vitest.config.mjs"
	cat >"$T/v-js/jt/a.test.js" <<'J'
describe('a', () => {
  test('adds', () => { expect(1 + 2).toBe(3) })
  test('multiplies', () => { expect(2 * 3).toBe(6) })
})
J
	cat >"$T/v-js/jt/b.test.js" <<'J'
const sub = (a, b) => a + b // bug
describe('b', () => {
  test('subtracts', () => { expect(sub(3, 1)).toBe(2) })
  test('divides', () => { expect(6 / 3).toBe(2) })
})
J
	vcopy js js-fixed; vsed 's|a + b // bug|a - b|' "$T/v-js-fixed/jt/b.test.js"
	vcopy js js-deleted; rm "$T/v-js-deleted/jt/b.test.js"
	vcopy js js-skipped; vsed "s/  test('subtracts'/  test.skip('subtracts'/" "$T/v-js-skipped/jt/b.test.js"
	vcopy js js-weakened; vsed 's/expect(sub(3, 1)).toBe(2)/sub(3, 1)/' "$T/v-js-weakened/jt/b.test.js"
	vcopy js-fixed js-renamed; vsed "s/test('subtracts'/test('minus'/" "$T/v-js-renamed/jt/b.test.js"
	vcopy js js-twice; vsed "s/test('subtracts', () => { expect(sub(3, 1)).toBe(2) })/test('divides', () => { expect(6 \/ 3).toBe(2) })/" "$T/v-js-twice/jt/b.test.js"
	for v in base fixed deleted skipped weakened renamed twice; do
		d="$T/v-js"; [ $v = base ] || d="$T/v-js-$v"
		save "$d" verdict/jest/$v.txt npx jest --rootDir jt
		save "$d" verdict/jest-v/$v.txt npx jest --rootDir jt --verbose
		save "$d" verdict/vitest/$v.txt npx vitest run
		save "$d" verdict/vitest-v/$v.txt npx vitest run --reporter=verbose
	done
fi
