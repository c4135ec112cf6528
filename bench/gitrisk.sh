#!/usr/bin/env bash
# The cost of the git-obeys check (docs/report.md, "What git would obey")
# on a real project: a hypothesis rewriting every file of k8s.io/client-go
# (from the module cache, or through the module proxy), the check and the
# diff the run computes for it anyway, alternating in each iteration
# (BenchmarkGitRisks): milliseconds of each and their ratio.
# usage: bench/gitrisk.sh [COUNT]   (default 5; SHORT=1: one iteration)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
count=${1:-5} benchtime=3x
if short; then count=1 benchtime=1x; fi
src=$(GOFLAGS=-mod=mod go mod download -json k8s.io/client-go@v0.37.2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
SHADOW_BENCH_TREE=$src go test -run '^$' -bench BenchmarkGitRisks -benchtime "$benchtime" -count "$count" ./engine | grep -E 'Benchmark|files'
