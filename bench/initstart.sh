#!/usr/bin/env bash
# What starting the sandbox init costs, and how much of it is the size of
# the binary it is started from. Every overlay hypothesis re-executes
# shadow as its init (overlay/nsinit, docs/modes.md "overlay"); the init
# takes the process over from its package's init function, but the Go
# runtime's start (itabs, module data, page faults over a ~35 MB binary)
# and every package initialized before it are paid first. Side by side,
# alternating in every round, CPU (user + system, getrusage(2)) per start:
#   shadow    this tree's shadow started as the init, without the
#             descriptors it is handed: it fails at once after its
#             package init (as TestInitSkipsHeavyPackageInit starts it);
#   initonly  the same init code in a binary that links overlay/nsinit
#             and nothing else (a throw-away main package built here);
#   empty     a Go binary whose main does nothing: the runtime's floor;
#   true      /bin/true: the exec's own floor, subtracted from the others.
# usage: bench/initstart.sh [ROUNDS]   (default 5; SHORT=1: 1 round)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
[ "${SHORT:-0}" = 1 ] && rounds=1
n=${STARTS:-40}
tmp=$(mktemp -d "${BENCH_TMP:-/tmp}/shadow-initstart.XXXXXX")
# The init-only main must be a package of this module to import
# overlay/nsinit; a directory starting with _ is outside ./... patterns.
pkg=$(mktemp -d bench/_initonly.XXXXXX)
trap 'rm -rf "$tmp" "$pkg"' EXIT
. bench/lib.sh # median
mkdir -p "$pkg/init" "$pkg/empty"
printf 'package main\n\nimport _ "github.com/shadow-dev/shadow/overlay/nsinit"\n\nfunc main() {}\n' > "$pkg/init/main.go"
printf 'package main\n\nfunc main() {}\n' > "$pkg/empty/main.go"
CGO_ENABLED=0 go build -o "$tmp/shadow" .
CGO_ENABLED=0 go build -o "$tmp/initonly" "./$pkg/init"
CGO_ENABLED=0 go build -o "$tmp/empty" "./$pkg/empty"
rm -rf "$pkg"

# starts EXE ARG0: CPU ms per start of EXE as ARG0, over n starts.
starts() {
  python3 -c '
import resource, subprocess, sys
exe, arg0, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for _ in range(n):
    subprocess.run([arg0], executable=exe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % ((r.ru_utime + r.ru_stime) * 1000 / n))' "$1" "$2" "$n"
}
for f in shadow initonly empty; do printf '%s %s MB\n' "$f" "$(du -m "$tmp/$f" | cut -f1)"; done
echo "== CPU ms per start of the init, /bin/true's start subtracted ($rounds alternating rounds of $n starts)"
for i in $(seq "$rounds"); do
  t=$(starts /bin/true true)
  s=$(starts "$tmp/shadow" shadow-sandbox-init)
  o=$(starts "$tmp/initonly" shadow-sandbox-init)
  e=$(starts "$tmp/empty" empty)
  awk -v t="$t" -v s="$s" -v o="$o" -v e="$e" 'BEGIN{printf "%.2f %.2f %.2f %.2f\n", s-t, o-t, e-t, t}' | tee -a "$tmp/rounds"
done | awk '{printf "shadow %6.2f  initonly %6.2f  empty %6.2f  (true %.2f)\n", $1, $2, $3, $4}'
s=$(cut -d' ' -f1 "$tmp/rounds" | median); o=$(cut -d' ' -f2 "$tmp/rounds" | median); e=$(cut -d' ' -f3 "$tmp/rounds" | median)
awk -v s="$s" -v o="$o" -v e="$e" 'BEGIN{printf "median: shadow %.2f ms, initonly %.2f ms (%.2fx), empty Go %.2f ms: %.2f ms of each start is the big binary\n", s, o, o/s, e, s-o}'
