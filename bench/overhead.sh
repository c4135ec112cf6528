#!/usr/bin/env bash
# Prints shadow's cost figures (docs/figures.md), measured side by side in one
# run so a noisy shared machine affects both sides alike:
#   1. overhead of one shadow over the bare command: `go test -count=1` on
#      this repository's own engine and parse packages, warm caches, median
#      of alternating runs;
#   2. fixed cost per hypothesis with `true` as the command, on a 1k-file
#      and a 100k-file workspace (marginal cost of one more hypothesis);
#   2b. the seal's share of it: the build before the seal against this one;
#   3. 4 sleep-bound hypotheses on this machine's cores against one.
# usage: bench/overhead.sh [ROUNDS]   (default 7; SHORT=1: one round, the
#   1k-file workspace only, this tree's build in place of the one before)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
sizes="1000 100000" benchtime=40x
if short; then rounds=1 sizes=1000 benchtime=5x; fi
tmp=$(mktemp -d /tmp/shadow-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
# Built as the Makefile builds it (CGO_ENABLED=0: static). With cgo the
# binary starts through the dynamic loader, which the sandbox init, the
# same binary re-executed, pays again in every hypothesis.
shadow_build "$tmp/shadow" CGO_ENABLED=0
shadow="$tmp/shadow"

echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json"

echo "== 1. overhead of one shadow over the bare command (go test -count=1 ./engine ./parse, warm)"
go test -count=1 ./engine ./parse >/dev/null 2>&1 || true   # warm the build cache
"$shadow" --headless --no-record -C . "$tmp/one.json" -- go test -count=1 ./engine ./parse >/dev/null 2>&1 || true
: > "$tmp/bare"; : > "$tmp/shad"
for i in $(seq "$rounds"); do
  elapsed go test -count=1 ./engine ./parse >> "$tmp/bare"
  elapsed "$shadow" --headless --no-record -C . "$tmp/one.json" -- go test -count=1 ./engine ./parse >> "$tmp/shad"
done
b=$(median < "$tmp/bare"); s=$(median < "$tmp/shad")
awk -v b="$b" -v s="$s" 'BEGIN{printf "bare %.3fs  shadow %.3fs  ratio %.3fx\n", b, s, s/b}'

echo "== 2. fixed cost per hypothesis (command: true, -j 1)"
mkws() { # mkws DIR NFILES
  mkdir -p "$1"
  python3 -c '
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("%d\n" % i)
' "$1" "$2"
  (cd "$1" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
}
spec_n() { # spec_n N > file
  printf '{"hypotheses":['; for i in $(seq "$1"); do [ "$i" -gt 1 ] && printf ','; printf '{"name":"h%d","edits":[{"path":"d000/f%06d.txt","content":"x\\n"}]}' "$i" 0; done; printf ']}\n'
}
spec_n 1 > "$tmp/n1.json"; spec_n 40 > "$tmp/n40.json"
# Per hypothesis: hyp_started to hyp_finished from the event stream, the
# median over 40 hypotheses run one at a time; the whole run adds the
# per-run work (validation, probe cache, two source scans).
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
for n in $sizes; do
  ws="$tmp/ws$n"; mkws "$ws" "$n"
  : > "$tmp/t1"
  for i in $(seq "$rounds"); do elapsed "$shadow" --headless --no-record -j 1 -C "$ws" "$tmp/n1.json" -- true >> "$tmp/t1"; done
  t1=$(median < "$tmp/t1")
  ph=$("$shadow" --headless --events --no-record -j 1 -C "$ws" "$tmp/n40.json" -- true | per_hyp)
  awk -v n="$n" -v a="$t1" -v p="$ph" 'BEGIN{printf "%6d files: per hypothesis %.1f ms (median of 40); whole run with 1 hypothesis %.3fs\n", n, p, a}'
done

echo "== 2b. the seal's cost per hypothesis (overlay's BenchmarkShadowTrue: command true), side by side"
# The build before the seal (SEAL_BASE, default 8b5fac0: writable \$HOME,
# shared /tmp) against this one (read-only /, \$HOME overlay, private /tmp,
# /var/tmp, /dev/shm): each tree's overlay benchmark, alternating rounds.
# cpu-ms/op (the init's and the command's CPU) is the figure to compare
# on a busy machine; ns/op is wall time.
base=${SEAL_BASE:-8b5fac0}
go test -c -o "$tmp/sealed.test" ./overlay
if short; then
  cp "$tmp/sealed.test" "$tmp/before.test"
else
  git worktree add -q --detach "$tmp/before" "$base" >/dev/null 2>&1
  (cd "$tmp/before" && go test -c -o "$tmp/before.test" ./overlay)
  git worktree remove --force "$tmp/before"
fi
for i in $(seq "$rounds"); do
  for v in before sealed; do
    (cd "$tmp" && "./$v.test" -test.run '^$' -test.bench 'BenchmarkShadowTrue$' -test.benchtime "$benchtime") | awk -v v="$v" '/^Benchmark/{printf "%-7s %6.1f ms/op  %5.1f cpu-ms/op\n", v, $3/1e6, $5}'
  done
done

echo "== 3. 4 sleep-bound hypotheses (sleep 1) on $(nproc) cores"
spec_n 4 > "$tmp/n4.json"
ws="$tmp/ws1000"
one=$(elapsed "$shadow" --headless --no-record -C "$ws" "$tmp/n1.json" -- sleep 1)
four=$(elapsed "$shadow" --headless --no-record -j 4 -C "$ws" "$tmp/n4.json" -- sleep 1)
awk -v a="$one" -v b="$four" 'BEGIN{printf "one %.3fs  four at once %.3fs  ratio %.2fx (serial would be ~4x)\n", a, b, b/a}'
