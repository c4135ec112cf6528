#!/usr/bin/env bash
# Per-hypothesis CPU of this build against an earlier one (HYPCOST_BASE,
# default ec680d0: the build before the home layer's lazy stacking),
# measured side by side, alternating old and new in every round. The
# figure is CPU time (user + system of shadow and everything it waited
# for: the init, the command), the marginal cost of one hypothesis:
# (CPU of a run of 21 hypotheses - CPU of a run of 1) / 20, -j 1, median
# over ROUNDS. Two set-ups:
#   1. stacking the home layer (docs/modes.md, "The home layer"): `true`
#      in the demo's Go module on a fresh $HOME whose layer a baseline of
#      `go test ./...` fed (Go's build cache in it), with the layer and
#      with --no-warm: the difference is what stacking costs;
#   2. the fixed cost: `true` on a 1k-file checkout (the default seal,
#      the caller's own $HOME and caches); "dyn" is this tree built with
#      cgo (a plain `go install` where a C compiler is found), whose init
#      starts through the dynamic loader in every hypothesis.
# Both builds as the Makefile makes them (CGO_ENABLED=0: static).
# usage: bench/hypcost.sh [ROUNDS]   (default 5; SHORT=1: 1 round, no base build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
base=${HYPCOST_BASE:-ec680d0}
tmp=$(mktemp -d "${BENCH_TMP:-/tmp}/shadow-hypcost.XXXXXX")
chmod 755 "$tmp"
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
. bench/lib.sh # now, elapsed, median, cpu
vers="new"
shadow_build "$tmp/new-shadow" CGO_ENABLED=0
if short; then
  rounds=1
else
  git worktree add -q --detach "$tmp/old" "$base"
  (cd "$tmp/old" && CGO_ENABLED=0 go build -o "$tmp/old-shadow" .)
  CGO_ENABLED=1 go build -o "$tmp/dyn-shadow" .
  vers="old new"
fi

spec() { # spec N: N hypotheses, each writing one file
  printf '{"hypotheses":['
  for i in $(seq "$1"); do [ "$i" -gt 1 ] && printf ','; printf '{"name":"h%d","edits":[{"path":"n%d.txt","content":"x\\n"}]}' "$i" "$i"; done
  printf ']}\n'
}
spec 1 > "$tmp/n1.json"; spec 21 > "$tmp/n21.json"
# marginal V ARGS...: the marginal CPU ms of one hypothesis of V's build,
# run under the environment prefix in the array pre.
pre=(env)
marginal() {
  local v=$1; shift
  local one many
  one=$(cpu "${pre[@]}" "$tmp/$v-shadow" --headless --no-record -j 1 "$@" "$tmp/n1.json" -- true)
  many=$(cpu "${pre[@]}" "$tmp/$v-shadow" --headless --no-record -j 1 "$@" "$tmp/n21.json" -- true)
  awk -v a="$one" -v b="$many" 'BEGIN{printf "%.2f\n", (b-a)*1000/20}'
}

# 1. The demo's module, a fresh $HOME each version, fed once.
mod="$tmp/mod"; mkdir -p "$mod"
for f in go.mod calc.go calc_test.go; do cp "demo/fixture/workspace/$f.txt" "$mod/$f"; done
(cd "$mod" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
printf '{"hypotheses":[{"name":"baseline"},{"name":"c","edits":[{"path":"NOTES.txt","content":"x\\n"}]}]}\n' > "$tmp/feed.json"
homeenv() { # homeenv V: pre set to V's own $HOME and state, Go's caches at their defaults
  pre=(env -u GOCACHE -u GOMODCACHE -u GOPATH -u XDG_CACHE_HOME -u GOFLAGS HOME="$tmp/home-$1" XDG_STATE_HOME="$tmp/home-$1/.local/state"
    GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off)
}
for v in $vers; do
  mkdir -p "$tmp/home-$v"; homeenv "$v"
  "${pre[@]}" "$tmp/$v-shadow" --headless --no-record -C "$mod" "$tmp/feed.json" -- go test ./... >/dev/null 2>&1 || true
done
echo "== 1. stacking the home layer: CPU ms per hypothesis of true, layer on and off ($rounds alternating rounds)"
for i in $(seq "$rounds"); do
  for v in $vers; do
    homeenv "$v"
    on=$(marginal "$v" -C "$mod")
    off=$(marginal "$v" --no-warm -C "$mod")
    echo "$on $off" >> "$tmp/stack-$v"
    printf '%s on %6.2f  off %6.2f  stacking %+6.2f ms\n' "$v" "$on" "$off" "$(awk -v a="$on" -v b="$off" 'BEGIN{print a-b}')"
  done
done
for v in $vers; do
  on=$(cut -d' ' -f1 "$tmp/stack-$v" | median); off=$(cut -d' ' -f2 "$tmp/stack-$v" | median)
  awk -v v="$v" -v a="$on" -v b="$off" 'BEGIN{printf "%s median: %.2f ms with the layer, %.2f ms without: stacking %+.2f ms per hypothesis\n", v, a, b, a-b}'
done

echo "== 2. fixed cost: CPU ms per hypothesis of true on a 1k-file checkout ($rounds alternating rounds)"
ws="$tmp/ws"
python3 -c '
import os, sys
for i in range(1000):
    d = os.path.join(sys.argv[1], "d%03d" % (i % 100))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%04d.txt" % i), "w").write("%d\n" % i)
' "$ws"
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
fvers=$vers
[ -x "$tmp/dyn-shadow" ] && fvers="$vers dyn"
for i in $(seq "$rounds"); do
  for v in $fvers; do
    pre=(env XDG_STATE_HOME="$tmp/state-$v")
    ms=$(marginal "$v" -C "$ws")
    echo "$ms" >> "$tmp/fixed-$v"
    printf '%s %6.2f ms\n' "$v" "$ms"
  done
done
for v in $fvers; do
  printf '%s median: %.2f ms of CPU per hypothesis (goal <= 8)\n' "$v" "$(median < "$tmp/fixed-$v")"
done
