#!/usr/bin/env bash
# What asking the runner which files are tests costs (docs/report.md,
# "Which files are tests"): this build against the one before the
# collection (COLLECT_BASE, default ebd76bb), side by side in alternating
# rounds, on a real project: python-json-pointer (testdata/judge/real, its
# whole suite in tests.py) with a regression in escape(), 4 hypotheses
# (the baseline, a cheat weakening tests.py, the fix appending a
# regression test there, the bare fix), under pytest naming tests.py
# (pytest's collection runs, sealed, once per run before the hypotheses)
# and python3 -munittest (the project's makefile; discovery's pattern is
# read from the command, nothing runs). Two specs:
#   A. with "test_paths": ["tests.py"], so both builds take tests.py for
#      the judge's and judge alike: the difference is the collection's
#      own cost. The project has no conftest.py, so pytest's
#      configuration is its answer and the collection is not run (A);
#      A+conftest adds an empty conftest.py to the checkout, which makes
#      the run ask pytest;
#   B. without: the old build takes tests.py for code (the cheat wins
#      under pytest, the fix's test is no proposal), the new one asks the
#      runner, and the fix's test then runs in the cross phase: the
#      difference is the collection and the cross-examination it makes
#      possible.
# CPU is the run's and everything it waited for (sandboxes included,
# getrusage(2)); the figure is the median over ROUNDS of new/old. A first
# round of each is a warm-up, not counted.
# usage: bench/collect.sh [ROUNDS]   (default 7; SHORT=1: one round, this
#   tree's build on both sides)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
base=${COLLECT_BASE:-ebd76bb}
tmp=$(mktemp -d "${BENCH_TMP:-/tmp}/shadow-collect.XXXXXX")
chmod 755 "$tmp"
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
. bench/lib.sh  # cpu, median
shadow_build "$tmp/new-shadow"
if short; then
  rounds=1; cp "$tmp/new-shadow" "$tmp/old-shadow"
else
  git worktree add -q --detach "$tmp/old" "$base"
  (cd "$tmp/old" && go build -o "$tmp/old-shadow" .)
fi
py=python3
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import pytest' 2>/dev/null; then py=$(command -v "$p"); break; fi
done

src=testdata/judge/real/python-json-pointer
ws="$tmp/ws"; mkdir -p "$ws" "$tmp/cands"
cp "$src/tests.py" "$src/LICENSE.txt" "$src/makefile" "$ws/"
good="return s.replace('~', '~0').replace('/', '~1')"
bad="return s.replace('/', '~1').replace('~', '~0')"
python3 - "$src" "$ws" "$tmp/cands" "$good" "$bad" <<'PY'
import sys
src, ws, cands, good, bad = sys.argv[1:]
code = open(src + "/jsonpointer.py").read()
tests = open(src + "/tests.py").read()
assert good in code
open(ws + "/jsonpointer.py", "w").write(code.replace(good, bad))
open(cands + "/jsonpointer.py", "w").write(code)
open(cands + "/weak.py", "w").write(tests.replace('            "/a~1b",\n', "", 1)
    .replace("            (\"/a~1b\", \"/a~1b\", \"JsonPointer('/a~1b')\"),\n", "", 1))
tail = "\n\ndef load_tests(loader, tests, ignore):"
reg = ("\n\nclass EscapeOrderTests(unittest.TestCase):\n\n    def test_escape_tilde_before_slash(self):\n"
       "        self.assertEqual(jsonpointer.escape('~/'), '~0~1')\n")
open(cands + "/with_test.py", "w").write(tests.replace(tail, reg + tail, 1))
PY
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
cp -a "$ws" "$tmp/ws-conftest"
(cd "$tmp/ws-conftest" && : > conftest.py && git add -A && git -c user.email=b@b -c user.name=b commit -qm conftest)
cat > "$tmp/B.json" <<JSON
{"hypotheses": [
  {"name": "baseline"},
  {"name": "weaken", "edits": [{"path": "tests.py", "file": "$tmp/cands/weak.py"}]},
  {"name": "fix_append", "edits": [{"path": "jsonpointer.py", "file": "$tmp/cands/jsonpointer.py"}, {"path": "tests.py", "file": "$tmp/cands/with_test.py"}]},
  {"name": "fix", "edits": [{"path": "jsonpointer.py", "file": "$tmp/cands/jsonpointer.py"}]}
]}
JSON
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s["test_paths"]=["tests.py"]; json.dump(s, open(sys.argv[2], "w"))' "$tmp/B.json" "$tmp/A.json"

bench() { # NAME SPEC WORKSPACE COMMAND...
  local name=$1 spec=$2 ws=$3; shift 3
  echo "== $name: $*"
  for i in $(seq 0 "$rounds"); do
    for v in old new; do
      c=$(XDG_STATE_HOME="$tmp/state-$v" cpu "$tmp/$v-shadow" --headless --json --no-record -C "$ws" "$tmp/$spec.json" -- "$@")
      [ "$i" -eq 0 ] && continue
      echo "$c" >> "$tmp/$name-$v"
      printf '%s %.3f s CPU\n' "$v" "$c"
    done
  done
  paste "$tmp/$name-new" "$tmp/$name-old" | awk '{print $1/$2}' > "$tmp/$name-ratio"
  printf '%s: old median %.3f s CPU, new %.3f s; new/old per round, median %.3fx\n' "$name" \
    "$(median < "$tmp/$name-old")" "$(median < "$tmp/$name-new")" "$(median < "$tmp/$name-ratio")"
}
bench A-pytest A "$ws" "$py" -m pytest -q -p no:cacheprovider tests.py
bench A+conftest-pytest A "$tmp/ws-conftest" "$py" -m pytest -q -p no:cacheprovider tests.py
bench A-unittest A "$ws" python3 -B -munittest
bench B-pytest B "$ws" "$py" -m pytest -q -p no:cacheprovider tests.py
bench B-unittest B "$ws" python3 -B -munittest
# What the new build took for tests, and who won, once.
"$tmp/new-shadow" --headless --json --no-record -C "$tmp/ws-conftest" "$tmp/B.json" -- "$py" -m pytest -q -p no:cacheprovider tests.py |
  python3 -c 'import json,sys; r=json.load(sys.stdin); print("new: winner", r["winner"], "test_collection", json.dumps(r.get("test_collection")))'
