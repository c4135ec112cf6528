#!/usr/bin/env bash
# Prints the network's and the limits' share of shadow's fixed cost per
# hypothesis (docs/internals.md, "Limits"), side by side in one run:
#   1. overlay's BenchmarkShadowTrueNet (command true): --net host (no
#      network namespace), isolated, private (the default: a namespace with
#      lo up and the proxy's listener), private with a --host-port; the
#      build before the network change (NET_BASE, default 69b81ba: host by
#      default, no limits) for reference, alternating rounds;
#   2. what pasta (passt) costs to start per network namespace, where it
#      is installed (the reason shadow does not start one per hypothesis).
# usage: bench/netns.sh [ROUNDS]   (default 3); as root and as a user.
#   SHORT=1: one round of 5x, this tree's build in place of the one before
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
. bench/lib.sh
benchtime=40x
if short; then rounds=1 benchtime=5x; fi
tmp=$(mktemp -d /tmp/shadow-bench-net.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

echo "== 1. fixed cost per hypothesis by network (BenchmarkShadowTrueNet, command true)"
base=${NET_BASE:-69b81ba}
go test -c -o "$tmp/now.test" ./overlay
if short; then
  cp "$tmp/now.test" "$tmp/before.test"
else
  git worktree add -q --detach "$tmp/before" "$base" >/dev/null 2>&1
  (cd "$tmp/before" && go test -c -o "$tmp/before.test" ./overlay)
  git worktree remove --force "$tmp/before"
fi
for i in $(seq "$rounds"); do
  (cd "$tmp" && ./before.test -test.run '^$' -test.bench 'BenchmarkShadowTrue$' -test.benchtime "$benchtime") |
    awk -v b="$base" '/^Benchmark/{printf "%-26s %6.1f ms/op  %5.1f cpu-ms/op\n", b" (host, no limits)", $3/1e6, $5}'
  (cd "$tmp" && ./now.test -test.run '^$' -test.bench 'BenchmarkShadowTrueNet$' -test.benchtime "$benchtime") |
    awk '/^Benchmark/{n=$1; sub(/^BenchmarkShadowTrueNet\//, "", n); sub(/-[0-9]+$/, "", n); printf "%-26s %6.1f ms/op  %5.1f cpu-ms/op\n", n, $3/1e6, $5}'
done

echo "== 2. pasta's start per network namespace"
if ! command -v pasta >/dev/null || ! command -v unshare >/dev/null; then
  echo "pasta (Debian passt) not installed: skipped"
  exit 0
fi
: > "$tmp/pasta"
for i in $(seq 5); do
  unshare -rn sleep 5 &
  p=$!
  sleep 0.2
  s=$(date +%s%N)
  # As root pasta drops to nobody before opening the namespace and cannot
  # open another process's /proc/PID/ns files: keep root (--runas 0) and
  # go through a bind mount, as `ip netns` does.
  if [ "$(id -u)" = 0 ]; then
    touch "$tmp/ns$i"; mount --bind "/proc/$p/ns/net" "$tmp/ns$i"
    pasta --config-net -q -t none -u none -T none -U none --no-map-gw --runas 0:0 -P "$tmp/pid$i" --netns "$tmp/ns$i" 2>/dev/null || true
  else
    pasta --config-net -q -t none -u none -T none -U none --no-map-gw -P "$tmp/pid$i" "$p" 2>/dev/null || true
  fi
  e=$(date +%s%N)
  echo $(( (e - s) / 1000000 )) >> "$tmp/pasta"
  [ -f "$tmp/pid$i" ] && kill "$(cat "$tmp/pid$i")" 2>/dev/null || true
  [ "$(id -u)" = 0 ] && umount -l "$tmp/ns$i" 2>/dev/null || true
  kill "$p" 2>/dev/null || true
done
sort -n "$tmp/pasta" | awk '{v[NR]=$1} END{printf "pasta start: median %d ms (min %d, max %d, %d runs)\n", v[int((NR+1)/2)], v[1], v[NR], NR}'
