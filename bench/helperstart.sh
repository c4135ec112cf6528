#!/usr/bin/env bash
# Start cost of the per-hypothesis hidden entry points (the process helper
# of copy and in-place modes, the overlay sandbox init): each binary is
# exec'd as the helper (argv[0] shadow-reaper) and as the sandbox init
# (argv[0] shadow-sandbox-init) without a configuration, so it fails at once
# (exit 125) right after dispatch; that time is what a hypothesis pays
# before its command starts. Given several binaries (e.g. before and after
# a change), the runs alternate so a noisy machine affects them alike.
# usage: bench/helperstart.sh [ROUNDS] [BINARY...]   (default 200, this tree's build;
#   SHORT=1: 5 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}; shift || true
. bench/lib.sh
if short; then rounds=5; fi
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  tmp=$(mktemp -d /tmp/shadow-bench.XXXXXX); trap 'rm -rf "$tmp"' EXIT
  shadow_build "$tmp/shadow" && bins=("$tmp/shadow")
fi
python3 - "$rounds" "${bins[@]}" <<'PY'
import os, subprocess, sys, time, statistics
rounds, bins = int(sys.argv[1]), sys.argv[2:]
for arg0 in ("shadow-reaper", "shadow-sandbox-init"):
    t = {b: [] for b in bins}
    for _ in range(rounds):
        for b in bins:
            s = time.perf_counter()
            subprocess.run([arg0], executable=b, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=())
            t[b].append((time.perf_counter() - s) * 1000)
    for b in bins:
        v = sorted(t[b])
        print(f"{arg0:20s} {b}: median {statistics.median(v):.2f} ms  p10 {v[len(v)//10]:.2f}  p90 {v[len(v)*9//10]:.2f}")
PY
