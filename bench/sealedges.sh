#!/usr/bin/env bash
# The seal's edges (terminals, sockets decided at connect, IPC and keys,
# tmpfs caps; copy mode's read and metadata rules): its fixed cost per
# hypothesis, command `true`, this build against an earlier one
# (SEAL_EDGES_BASE, default 8b8b9d3: the build before them), measured
# side by side, alternating rounds:
#   1. overlay mode: overlay's BenchmarkShadowTrue, 40 hypotheses a round
#      (the same figure as bench/overhead.sh's part 2b); ms/op is wall
#      time, cpu-ms/op the init's and the command's CPU;
#   2. copy mode, sealed: the median of 40 hypotheses' hyp_started to
#      hyp_finished from the event stream, -j 1 (bench/landlock.sh's
#      part 1).
# usage: bench/sealedges.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
base=${SEAL_EDGES_BASE:-8b8b9d3}
tmp=$(mktemp -d "${BENCH_TMP:-/tmp}/shadow-sealedges.XXXXXX")
chmod 755 "$tmp"
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
. bench/lib.sh  # now, elapsed, median (from the repository root)
git worktree add -q --detach "$tmp/old" "$base"
(cd "$tmp/old" && go build -o "$tmp/old-shadow" . && go test -c -o "$tmp/old-overlay.test" ./overlay)
go build -o "$tmp/new-shadow" .
go test -c -o "$tmp/new-overlay.test" ./overlay

echo "== 1. overlay: BenchmarkShadowTrue (command true), $rounds alternating rounds of 40"
for i in $(seq "$rounds"); do
  for v in old new; do
    (cd "$tmp" && "./$v-overlay.test" -test.run '^$' -test.bench 'BenchmarkShadowTrue$' -test.benchtime 40x) |
      awk -v v="$v" '/^Benchmark/{print $3/1e6, $5 > "/dev/stderr"; printf "%s %6.1f ms/op  %5.2f cpu-ms/op\n", v, $3/1e6, $5}' 2>>"$tmp/ov-$v"
  done
done
for v in old new; do
  printf '%s median: %.1f ms/op, %.2f cpu-ms/op\n' "$v" "$(cut -d' ' -f1 "$tmp/ov-$v" | median)" "$(cut -d' ' -f2 "$tmp/ov-$v" | median)"
done

echo "== 2. copy mode, sealed: per hypothesis (command true, -j 1, median of 40), $rounds alternating rounds"
ws="$tmp/ws"; mkdir -p "$ws"
for i in $(seq 200); do echo "$i" > "$ws/f$i.txt"; done
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
printf '{"hypotheses":[' > "$tmp/n40.json"
for i in $(seq 40); do [ "$i" -gt 1 ] && printf ','; printf '{"name":"h%d","edits":[{"path":"f1.txt","content":"x\\n"}]}' "$i"; done >> "$tmp/n40.json"
printf ']}\n' >> "$tmp/n40.json"
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
for i in $(seq "$rounds"); do
  for v in old new; do
    ms=$(XDG_STATE_HOME="$tmp/state-$v" "$tmp/$v-shadow" --mode copy --require-seal --headless --events --no-record -j 1 -C "$ws" "$tmp/n40.json" -- true | per_hyp)
    echo "$ms" >> "$tmp/cp-$v"
    echo "$v $ms ms"
  done
done
o=$(median < "$tmp/cp-old"); n=$(median < "$tmp/cp-new")
awk -v o="$o" -v n="$n" 'BEGIN{printf "copy median: old %.1f ms, new %.1f ms: %+.1f ms per hypothesis\n", o, n, n-o}'
