#!/usr/bin/env bash
# Prints what sharding costs (docs/figures.md, "Remote nodes and shards"),
# side by side in one run:
#   1. `shadow merge` of 4 shard reports of 50 hypotheses each (JSON
#      --json reports of a real run, command `true`), median wall time;
#   2. the fixed cost of a shard: the wall time of one shard of N (its
#      slice plus the baseline it reruns, plus process start and planning)
#      against 1/N of the unsharded run of the same spec, -j 1 both.
# usage: bench/shard.sh [ROUNDS]   (default 5; SHORT=1: one round, 4 shards
#   of 10)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
n=200
if short; then rounds=1 n=40; fi
tmp=$(mktemp -d /tmp/shadow-bench-shard.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"

mkdir -p "$tmp/ws"
for i in $(seq 100); do echo "$i" > "$tmp/ws/f$i.txt"; done
spec() { # spec N: a baseline and N-1 one-file candidates
  { printf '{"hypotheses":[{"name":"baseline"}'
    for i in $(seq 2 "$1"); do printf ',{"name":"h%d","edits":[{"path":"f1.txt","content":"%d\\n"}]}' "$i" "$i"; done
    printf ']}\n'; } > "$tmp/spec$1.json"
}
spec "$n"
echo "== 1. shadow merge of 4 shards of $((n / 4)) hypotheses ($n in all)"
for k in 0 1 2 3; do
  rc=0; "$shadow" --headless --json --no-record -C "$tmp/ws" --shard "$k/4" "$tmp/spec$n.json" -- true > "$tmp/s$k.json" 2>"$tmp/err" || rc=$?
  BENCH_LAST=$tmp/err checked "$rc" shadow --shard "$k/4"
done
: > "$tmp/m"
for _ in $(seq "$rounds"); do elapsed "$shadow" merge --json "$tmp"/s[0-3].json >> "$tmp/m"; done
"$shadow" merge --json "$tmp"/s[0-3].json | grep -c "\"rank\":" | sed "s/^/merged hypotheses: /" || true
echo "merge: median $(median < "$tmp/m")s over $rounds rounds ($(du -ch "$tmp"/s[0-3].json | tail -1 | cut -f1) of reports)"

echo "== 2. fixed cost of a shard (spec of 40, 4 shards, command true, -j 1)"
spec 40
: > "$tmp/whole"; : > "$tmp/shard"
for _ in $(seq "$rounds"); do
  elapsed "$shadow" --headless --no-record -j 1 -C "$tmp/ws" "$tmp/spec40.json" -- true >> "$tmp/whole"
  elapsed "$shadow" --headless --no-record -j 1 -C "$tmp/ws" --shard 0/4 "$tmp/spec40.json" -- true >> "$tmp/shard"
done
w=$(median < "$tmp/whole"); s=$(median < "$tmp/shard")
awk -v w="$w" -v s="$s" 'BEGIN{printf "unsharded %.3fs (1/4: %.3fs)  one shard %.3fs  fixed cost per shard %.3fs\n", w, w/4, s, s-w/4}'
