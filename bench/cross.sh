#!/usr/bin/env bash
# What the cross phase costs (docs/judge.md, "Cross-examination"): a run of 6
# candidates, 3 of which bring a test with their fix (a new test file, a test
# appended to the existing file, a second new file), plus the baseline, on a
# pytest suite of ~900 tests that takes about a second; the same spec with and
# without --no-cross, in alternating rounds, wall and CPU (the run's own and
# its children's, sandboxes included) side by side. The budget is 1.3x.
# usage: bench/cross.sh [ROUNDS] [JOBS]   (defaults 5 and the CPU count;
#   SHORT=1: one round, no warm-up)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
jobs=${2:-$(nproc)}
. bench/lib.sh
if short; then rounds=1; fi
tmp=$(mktemp -d /tmp/shadow-bench-cross.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"
py=python3
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import pytest' 2>/dev/null; then py=$(command -v "$p"); break; fi
done
"$py" -c 'import pytest' 2>/dev/null || skip "no pytest for $py (apt-get install python3-pytest)"

ws="$tmp/ws"
mkdir -p "$ws/tests" "$tmp/cands"
cat > "$ws/calc.py" <<'EOF'
def add(a, b):
    """Return the sum of a and b."""
    return a - b


def mul(a, b):
    out = 0
    for _ in range(abs(b)):
        out += a
    return out if b >= 0 else -out
EOF
cat > "$ws/tests/test_calc.py" <<'EOF'
from calc import add


def test_zero():
    assert add(0, 0) == 0


def test_two_plus_two():
    assert add(2, 2) == 4
EOF
# The bulk of the suite: passing tests whose work is real (pytest
# collection, parametrization, a little arithmetic each).
for i in 1 2 3 4 5 6; do
  cat > "$ws/tests/test_bulk_$i.py" <<EOF
import pytest
from calc import mul


@pytest.mark.parametrize("a", range(15))
@pytest.mark.parametrize("b", range(10))
def test_mul_$i(a, b):
    assert mul(a, b) == a * b
    assert sum(mul(a, k) for k in range(200)) == a * sum(range(200))
EOF
done
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)

fix=$(sed 's/return a - b/return a + b/' "$ws/calc.py")
overfit=$(sed 's/return a - b/return 4 if (a, b) == (2, 2) else a - b/' "$ws/calc.py")
appended="$(cat "$ws/tests/test_calc.py")

def test_three_plus_four():
    assert add(3, 4) == 7"
"$py" - "$tmp/spec.json" "$fix" "$overfit" "$appended" <<'EOF'
import json, sys
out, fix, overfit, appended = sys.argv[1:5]
fix += "\n"; overfit += "\n"; appended += "\n"
e = lambda p, c: {"path": p, "content": c}
hyps = [
    {"name": "overfit", "edits": [e("calc.py", overfit)]},
    {"name": "fix", "edits": [e("calc.py", fix)]},
    {"name": "fix_doc", "edits": [e("calc.py", fix.replace('"""Return the sum of a and b."""', '"""Return the sum of a and b (it subtracted b)."""'))]},
    {"name": "fix_newfile", "edits": [e("calc.py", fix), e("tests/test_add_more.py", "from calc import add\n\n\ndef test_one_plus_two():\n    assert add(1, 2) == 3\n")]},
    {"name": "fix_append", "edits": [e("calc.py", fix), e("tests/test_calc.py", appended)]},
    {"name": "fix_negative", "edits": [e("calc.py", fix), e("tests/test_add_negative.py", "from calc import add\n\n\ndef test_negatives():\n    assert add(-1, -2) == -3\n")]},
]
json.dump({"hypotheses": hyps}, open(out, "w"))
EOF

# run MODE: prints "wall cpu" of one whole run (CPU: user+sys of shadow and
# every process it waited for, the sandboxes' included).
run() {
  local extra=()
  [ "$1" = no-cross ] && extra=(--no-cross)
  "$py" - "$shadow" "$tmp/spec.json" "$ws" "$jobs" "$py" "${extra[@]}" <<'EOF'
import resource, subprocess, sys, time
shadow, spec, ws, jobs, py = sys.argv[1:6]
extra = sys.argv[6:]
t = time.monotonic()
r = subprocess.run([shadow, "--headless", "--json", "--baseline", "--no-warm", "-j", jobs, "-C", ws, *extra, spec, "--",
                    py, "-m", "pytest", "-q", "-p", "no:cacheprovider"], capture_output=True, text=True)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
import json
rep = json.loads(r.stdout)
w = rep.get("winner")
if r.returncode != 0 or w in (None, "overfit") and not extra:
    sys.exit("unexpected result: exit %d winner %s\n%s" % (r.returncode, w, r.stderr[-2000:]))
print("%.3f %.3f %s" % (wall, ru.ru_utime + ru.ru_stime, w))
EOF
}

stats() { sort -g | awk '{v[NR]=$1} END{m=(NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f (%.2f-%.2f)", m, v[1], v[NR]}'; }

if ! short; then
  echo "warming up (one run of each)..." >&2
  run cross >/dev/null; run no-cross >/dev/null
fi
: > "$tmp/cross"; : > "$tmp/nocross"; : > "$tmp/ratio"
for i in $(seq "$rounds"); do
  # Alternate which goes first, so a trend in the machine's load hits both.
  if [ $((i % 2)) = 1 ]; then a=$(run cross); b=$(run no-cross); else b=$(run no-cross); a=$(run cross); fi
  echo "$a" >> "$tmp/cross"; echo "$b" >> "$tmp/nocross"
  awk -v a="$a" -v b="$b" 'BEGIN{split(a,x," "); split(b,y," "); printf "%.3f %.3f\n", x[1]/y[1], x[2]/y[2]}' >> "$tmp/ratio"
  echo "round $i: cross $a | no-cross $b" >&2
done
echo "6 candidates (3 bring tests) + baseline, pytest suite of $(( 6*150 + 2 )) tests, -j $jobs, $rounds rounds, load $(cut -d' ' -f1 /proc/loadavg)"
printf "%-10s %-24s %-24s\n" "" "wall s, median (min-max)" "CPU s, median (min-max)"
printf "%-10s %-24s %-24s\n" "cross" "$(cut -d' ' -f1 "$tmp/cross" | stats)" "$(cut -d' ' -f2 "$tmp/cross" | stats)"
printf "%-10s %-24s %-24s\n" "--no-cross" "$(cut -d' ' -f1 "$tmp/nocross" | stats)" "$(cut -d' ' -f2 "$tmp/nocross" | stats)"
printf "%-10s %-24s %-24s\n" "ratio" "$(cut -d' ' -f1 "$tmp/ratio" | stats)" "$(cut -d' ' -f2 "$tmp/ratio" | stats)"
echo "winner with cross: $(cut -d' ' -f3 "$tmp/cross" | sort | uniq -c | tr '\n' ' '); without: $(cut -d' ' -f3 "$tmp/nocross" | sort | uniq -c | tr '\n' ' ')"
