#!/usr/bin/env bash
# Prints the warm layer's effect (docs/internals.md, "Warm build outputs
# across runs") on the two-crate cargo workspace of testdata/warm-cargo, whose
# core crate changed after the checkout's last build (a winner applied): the
# baseline's wall time (its duration_ms) and crates compiled in a first run,
# in a second identical run (the layer holds the first baseline's build) and
# in a second run with --no-warm (what it was before), side by side in each
# round; and the whole runs' wall time, which includes feeding the layer after
# the report.
# usage: bench/warm.sh [ROUNDS]   (default 3; medians; SHORT=1: one round,
#   200 functions)
#   BENCH_FNS=N  functions generated into core so that compiling it costs
#                something (default 4000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
fns=${BENCH_FNS:-4000}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
if short; then rounds=1 fns=${BENCH_FNS:-200}; fi
export PATH="$PATH:$HOME/.cargo/bin"
command -v cargo >/dev/null || skip "bench/warm.sh: cargo is not on PATH (https://rustup.rs)"
unset RUSTC_WRAPPER CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
tmp=$(mktemp -d /tmp/shadow-warmbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"
base() { # base REPORT: the baseline's duration_ms and the crates it compiled
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
h = [h for h in r["hypotheses"] if h["name"] == "baseline"][0]
n = sum(1 for l in open(h["log"]) if l.split()[:1] == ["Compiling"])
w = r.get("warm") or {}
print(h["duration_ms"], n, "used" if w.get("used") else "-", w.get("generation", 0))
PY
}
echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/spec.json"
printf '%-6s %14s %14s %14s %10s\n' round first_ms second_ms nowarm_ms ratio
: > "$tmp/ratios"; : > "$tmp/wratios"
for r in $(seq "$rounds"); do
  ws="$tmp/ws$r" state="$tmp/state$r"
  cp -r testdata/warm-cargo "$ws"
  python3 - "$ws/core/src/lib.rs" "$fns" <<'PY'
import sys
p, n = sys.argv[1], int(sys.argv[2])
with open(p, "a") as f:
    for i in range(n):
        f.write(f"pub fn f{i}(x: u64) -> u64 {{ x.wrapping_mul({i}).rotate_left({i % 63}) ^ {i} }}\n")
PY
  (cd "$ws" && git init -q && git add -A && git -c user.email=b@e -c user.name=b commit -qm init && cargo build --offline -q)
  echo 'pub fn changed() {}' >> "$ws/core/src/lib.rs" # the applied winner
  run() {
    local s e
    s=$(date +%s%N)
    local rc=0
    XDG_STATE_HOME="$state" "$shadow" --headless --json -C "$ws" "$@" "$tmp/spec.json" -- cargo build --offline > "$tmp/rep.json" 2>"$tmp/err" || rc=$?
    BENCH_LAST=$tmp/err checked "$rc" shadow "$@" >&2
    e=$(date +%s%N)
    echo "$(base "$tmp/rep.json") $(( (e - s) / 1000000 ))"
  }
  read -r d1 c1 _ _ w1 < <(run)
  read -r d2 c2 u2 g2 w2 < <(run)
  read -r d3 c3 _ _ w3 < <(run --no-warm)
  ratio=$(awk -v a="$d2" -v b="$d1" 'BEGIN{printf "%.3f", a/b}')
  echo "$ratio" >> "$tmp/ratios"
  awk -v a="$w2" -v b="$w1" 'BEGIN{printf "%.3f\n", a/b}' >> "$tmp/wratios"
  printf '%-6s %8s (%d cr) %8s (%d cr) %8s (%d cr) %10s   layer %s gen %s; whole runs %s / %s / %s ms\n' "$r" "$d1" "$c1" "$d2" "$c2" "$d3" "$c3" "$ratio" "$u2" "$g2" "$w1" "$w2" "$w3"
done
echo "second/first baseline wall time, median of $rounds: $(median < "$tmp/ratios")"
echo "second/first whole run (shadow's wall time, the layer's update included), median of $rounds: $(median < "$tmp/wratios")"
