#!/usr/bin/env bash
# Copy mode's Landlock seal (docs/internals.md, the Landlock seal), measured
# side by side in one run:
#   1. fixed cost per hypothesis in copy mode (command: true, -j 1, the
#      median of 40 hypotheses from the event stream): this build with the
#      seal turned off (SHADOW_LANDLOCK=off) against it on, alternating, and
#      the build before the seal (LANDLOCK_BASE, default 69b81ba) for scale;
#   2. go-cmp's `go test ./...` in copy mode (CPU seconds of the whole run):
#      unsealed (the build before: the user's own, warm GOCACHE), sealed
#      with a cold slot cache (first run), sealed with the slot's cache warm
#      (later runs); what choosing per-slot caches costs;
#   3. a small pytest project the same way (nothing redirected matters to
#      it: its __pycache__ and .pytest_cache are in the copy).
# usage: bench/landlock.sh [ROUNDS]   (default 3; SHORT=1: one round, this
#   tree's build in place of the one before the seal, no part 2)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
base=${LANDLOCK_BASE:-69b81ba}
tmp=$(mktemp -d "${BENCH_TMP:-/tmp}/shadow-landlock.XXXXXX")
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
. bench/lib.sh  # now, elapsed, median (from the repository root)
shadow_build "$tmp/new"
if short; then
  rounds=1; cp "$tmp/new" "$tmp/old-shadow"
else
  git worktree add -q "$tmp/old" "$base"
  (cd "$tmp/old" && go build -o "$tmp/old-shadow" .)
fi
per_hyp() { python3 -c '
import sys, json, statistics
from datetime import datetime
t = {}
for line in sys.stdin:
    e = json.loads(line)
    if e["kind"] in ("hyp_started", "hyp_finished"):
        t.setdefault(e["hyp"], {})[e["kind"]] = datetime.fromisoformat(e["time"].replace("Z", "+00:00"))
d = [(v["hyp_finished"] - v["hyp_started"]).total_seconds() * 1000 for v in t.values()]
print("%.1f" % statistics.median(d))'; }
# cpu (lib.sh): user+sys seconds of CMD and its children, printed with
# two decimals here
cpu2() { cpu "$@" | awk '{printf "%.2f\n", $1}'; }

echo "== 1. fixed cost per hypothesis, copy mode, command true (-j 1, median of 40 per round)"
ws="$tmp/ws"; mkdir -p "$ws"
for i in $(seq 100); do echo "$i" > "$ws/f$i.txt"; done
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
python3 -c 'import json; print(json.dumps({"hypotheses": [{"name": "h%d" % i, "edits": [{"path": "f1.txt", "content": "x\n"}]} for i in range(40)]}))' > "$tmp/n40.json"
: > "$tmp/old.t"; : > "$tmp/off.t"; : > "$tmp/new.t"
for r in $(seq "$rounds"); do
  XDG_STATE_HOME="$tmp/st-old" "$tmp/old-shadow" --headless --events --no-record --mode copy -j 1 -C "$ws" "$tmp/n40.json" -- true | per_hyp >> "$tmp/old.t"
  SHADOW_LANDLOCK=off XDG_STATE_HOME="$tmp/st-new" "$tmp/new" --headless --events --no-record --mode copy -j 1 -C "$ws" "$tmp/n40.json" -- true | per_hyp >> "$tmp/off.t"
  XDG_STATE_HOME="$tmp/st-new" "$tmp/new" --headless --events --no-record --mode copy -j 1 -C "$ws" "$tmp/n40.json" -- true | per_hyp >> "$tmp/new.t"
done
o=$(median < "$tmp/old.t"); f=$(median < "$tmp/off.t"); n=$(median < "$tmp/new.t")
awk -v o="$o" -v f="$f" -v n="$n" 'BEGIN{printf "this build, SHADOW_LANDLOCK=off %.1f ms   sealed %.1f ms   the seal %+.1f ms per hypothesis   (build %s, before the seal and the other batch-3 work: %.1f ms)\n", f, n, n-f, "'"$base"'", o}'

echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json" # parts 2 and 3
echo "== 2. go-cmp, go test ./... in copy mode, CPU seconds of the whole run"
if short; then
  echo "skipped: part 2 under SHORT=1 (a cold Go build in a slot's cache: a minute of CPU or more)"
else
dir=$(go mod download -json github.com/google/go-cmp@v0.7.0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cmp="$tmp/go-cmp"; cp -r "$dir" "$cmp"; chmod -R u+w "$cmp"
(cd "$cmp" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json"
XDG_STATE_HOME="$tmp/st-old" "$tmp/old-shadow" --headless --no-record --mode copy -C "$cmp" "$tmp/one.json" -- go test ./... >/dev/null 2>&1 || true
printf 'unsealed, user GOCACHE warm: '; XDG_STATE_HOME="$tmp/st-old" cpu2 "$tmp/old-shadow" --headless --no-record --mode copy -C "$cmp" "$tmp/one.json" -- go test ./...
printf 'sealed, slot cache cold:      '; XDG_STATE_HOME="$tmp/st-new" cpu2 "$tmp/new" --headless --no-record --mode copy -C "$cmp" "$tmp/one.json" -- go test ./...
for r in $(seq "$rounds"); do
  printf 'sealed, slot cache warm:      '; XDG_STATE_HOME="$tmp/st-new" cpu2 "$tmp/new" --headless --no-record --mode copy -C "$cmp" "$tmp/one.json" -- go test ./...
done

fi

echo "== 3. a pytest project, copy mode, CPU seconds"
python=python3
/usr/bin/python3 -c 'import pytest' 2>/dev/null && python=/usr/bin/python3 # Debian's python3-pytest, not a pyenv shim
"$python" -c 'import pytest' 2>/dev/null || skip "part 3: no pytest for $python (apt-get install python3-pytest)"
py="$tmp/py"; mkdir -p "$py"
for i in $(seq 20); do printf 'def f%d(x):\n    return x + %d\n' "$i" "$i" > "$py/m$i.py"; printf 'from m%d import f%d\n\ndef test_f():\n    assert f%d(1) == %d\n' "$i" "$i" "$i" "$((i+1))" > "$py/test_m$i.py"; done
(cd "$py" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
for r in $(seq "$rounds"); do
  printf 'unsealed: '; XDG_STATE_HOME="$tmp/st-old" cpu2 "$tmp/old-shadow" --headless --no-record --mode copy -C "$py" "$tmp/one.json" -- "$python" -m pytest -q
  printf 'sealed:   '; XDG_STATE_HOME="$tmp/st-new" cpu2 "$tmp/new" --headless --no-record --mode copy -C "$py" "$tmp/one.json" -- "$python" -m pytest -q
done
