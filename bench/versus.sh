#!/usr/bin/env bash
# shadow's own cost, this tree against an earlier commit's build, side by
# side: the CPU time (user + system of shadow and everything it waited
# for, getrusage(2)) of bench/overhead.sh's two workloads, each run by
# both builds in alternating rounds so a noisy shared machine affects
# both alike:
#   1. one hypothesis running `go test -count=1 ./parse` on this
#      repository (warm build cache), as overhead.sh's section 1;
#   2. 40 hypotheses of `true`, -j 1, on a 1k-file workspace, as its
#      section 2 (the fixed cost per hypothesis).
# Prints the medians and the ratio this/BASE (below 1: this tree is cheaper).
# usage: bench/versus.sh BASE [ROUNDS]   (default 5; SHORT=1: one round,
#   BASE this tree's HEAD unless given, so that CI runs it as written)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh  # cpu, median, short
base=${1:-}
rounds=${2:-5}
if short; then base=${base:-HEAD} rounds=1; fi
[ -n "$base" ] || { echo "usage: bench/versus.sh BASE [ROUNDS]" >&2; exit 2; }
tmp=$(mktemp -d /tmp/shadow-versus.XXXXXX)
trap 'git worktree remove --force "$tmp/before" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"

# Both static, as the Makefile builds them (overhead.sh says why).
git worktree add -q --detach "$tmp/before" "$base" >/dev/null
(cd "$tmp/before" && CGO_ENABLED=0 go build -o "$tmp/base" .)
git worktree remove --force "$tmp/before"
CGO_ENABLED=0 go build -o "$tmp/this" .

echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json"
ws="$tmp/ws"; mkdir -p "$ws"
python3 -c '
import os, sys
for i in range(1000):
    d = os.path.join(sys.argv[1], "d%03d" % (i % 100))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%04d.txt" % i), "w").write("%d\n" % i)' "$ws"
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
printf '{"hypotheses":[' > "$tmp/n40.json"
for i in $(seq 40); do [ "$i" -gt 1 ] && printf ','; printf '{"name":"h%d","edits":[{"path":"d000/f0000.txt","content":"x\\n"}]}' "$i"; done >> "$tmp/n40.json"
printf ']}\n' >> "$tmp/n40.json"

go test -count=1 ./parse >/dev/null 2>&1 || true  # warm the build cache
for b in base this; do
  "$tmp/$b" --headless --no-record -C . "$tmp/one.json" -- go test -count=1 ./parse >/dev/null 2>&1 || true
  "$tmp/$b" --headless --no-record -j 1 -C "$ws" "$tmp/n40.json" -- true >/dev/null 2>&1 || true
done
for f in gotest true40; do : > "$tmp/$f.base"; : > "$tmp/$f.this"; done
for i in $(seq "$rounds"); do
  for b in base this; do
    cpu "$tmp/$b" --headless --no-record -C . "$tmp/one.json" -- go test -count=1 ./parse >> "$tmp/gotest.$b"
    cpu "$tmp/$b" --headless --no-record -j 1 -C "$ws" "$tmp/n40.json" -- true >> "$tmp/true40.$b"
  done
done
for f in gotest true40; do
  b=$(median < "$tmp/$f.base"); t=$(median < "$tmp/$f.this")
  awk -v f="$f" -v b="$b" -v t="$t" -v r="$rounds" -v base="$base" 'BEGIN{printf "%-7s CPU median of %d: %s %.3fs  this %.3fs  ratio %.3f\n", f, r, base, b, t, t/b}'
done
