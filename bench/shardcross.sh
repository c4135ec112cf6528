#!/usr/bin/env bash
# What the cross phase across shards costs (docs/cli.md, "Shards"):
# testdata/judge/go (a Go module, 6 hypotheses: an overfit, three fixes, two
# of which bring a reproduction, a test-weakening candidate, the baseline) run
# unsharded and as 3 shards, with the cross phase and with --no-cross, side by
# side in alternating rounds. Prints the cross jobs each makes (cross_started
# events: the shards together run the checkout's jobs once per shard, and each
# passing candidate's against every proposal, whichever shard it is in) and
# the median wall time of the unsharded run and of the 3 shards run one after
# another.
# usage: bench/shardcross.sh [ROUNDS]   (default 3; SHORT=1: one round)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
if short; then rounds=1; fi
tmp=$(mktemp -d /tmp/shadow-bench-shardcross.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"
cp -a testdata/judge/go/ws "$tmp/ws"
spec=$PWD/testdata/judge/go/spec.json
run() { "$shadow" --headless --no-record -j 2 -C "$tmp/ws" "$@" "$spec" -- go test -count=1 ./...; }
shards() { for k in 0 1 2; do run --shard "$k/3" "$@"; done; }

echo "== cross jobs (cross_started events)"
n=$(run --events | grep -c '"kind":"cross_started"' || true)
s=0
for k in 0 1 2; do
  c=$(run --events --shard "$k/3" | grep -c '"kind":"cross_started"' || true)
  echo "shard $k/3: $c"
  s=$((s + c))
done
echo "unsharded: $n  3 shards together: $s"

echo "== wall time, median of $rounds rounds (-j 2)"
for f in whole whole-nc shards shards-nc; do : > "$tmp/$f"; done
for _ in $(seq "$rounds"); do
  elapsed run >> "$tmp/whole"
  elapsed run --no-cross >> "$tmp/whole-nc"
  elapsed shards >> "$tmp/shards"
  elapsed shards --no-cross >> "$tmp/shards-nc"
done
w=$(median < "$tmp/whole"); wn=$(median < "$tmp/whole-nc")
s=$(median < "$tmp/shards"); sn=$(median < "$tmp/shards-nc")
awk -v w="$w" -v wn="$wn" -v s="$s" -v sn="$sn" 'BEGIN{
  printf "unsharded: cross %.2fs  --no-cross %.2fs  (%.2fx)\n", w, wn, w/wn
  printf "3 shards in turn: cross %.2fs  --no-cross %.2fs  (%.2fx)\n", s, sn, s/sn }'
