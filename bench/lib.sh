# Helpers the bench scripts share. Each script cds to the repository root
# first, then sources it: . bench/lib.sh
# Figures are medians of runs taken side by side, so a noisy shared
# machine affects both sides of a comparison alike.

# now: the wall clock in seconds, with nanoseconds.
now() { date +%s.%N; }

# SHORT=1 (.ci/run runs every bench so): one round of the smallest
# workload that still goes through every part of the bench, so one that
# no longer runs as written fails CI. Its figures mean nothing. A build
# the bench compares against (an older commit) is this tree's then.
short() { [ "${SHORT:-0}" = 1 ]; }

# skip REASON: the bench cannot run here (a tool is missing): it says why
# and succeeds, so CI goes on.
skip() { echo "skipped: $*"; exit 0; }

# shadow_build DEST [VAR=VALUE...]: this tree's shadow at DEST, built with
# the given environment; $SHADOW_BIN (a binary CI built once, static) is
# copied instead when set.
shadow_build() {
  local dest=$1; shift
  if [ -n "${SHADOW_BIN:-}" ]; then cp "$SHADOW_BIN" "$dest"; else env "$@" go build -o "$dest" .; fi
}

# checked RC CMD...: under SHORT=1 a command that failed (RC not 0) ends
# the bench with its output's tail (in $BENCH_LAST): a figure of a run
# that failed means nothing, and a failure ignored is how a bench rots.
# BENCH_OK="0 1" allows more exit codes (a bare run of tests that fail on
# purpose).
checked() {
  local rc=$1; shift
  if [[ " ${BENCH_OK:-0} " != *" $rc "* ]] && short; then
    echo "bench: exit $rc from: $*" >&2
    [ -n "${BENCH_LAST:-}" ] && tail -20 "$BENCH_LAST" >&2
    exit 1
  fi
  return 0
}

# elapsed CMD...: run CMD (output discarded, failure ignored but under
# SHORT=1) and print how long it took, in seconds.
elapsed() {
  local s rc=0 BENCH_LAST
  BENCH_LAST=$(mktemp)
  s=$(now)
  "$@" >"$BENCH_LAST" 2>&1 || rc=$?
  awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.4f\n", b-a}'
  checked "$rc" "$@"
  rm -f "$BENCH_LAST"
}

# median: the median of the numbers on stdin, one per line.
median() { sort -g | awk '{v[NR]=$1} END{print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# cpu CMD...: run CMD (output discarded, failure ignored but under
# SHORT=1) and print the CPU seconds (user + system, microseconds'
# precision: getrusage(2)) of it and everything it waited for.
cpu() {
  local rc=0 BENCH_LAST
  BENCH_LAST=$(mktemp)
  python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.6f" % (r.ru_utime + r.ru_stime))
sys.exit(rc & 255)' "$BENCH_LAST" "$@" || rc=$?
  checked "$rc" "$@"
  rm -f "$BENCH_LAST"
}

# go-cmp's tests as the benches run them (go-cmp v0.7.0, `go test ./cmp/...`).
# TestDiff/Reporter/LargeMapKey is left out: its two maps are keyed by
# pointers to fresh 1 MiB allocations, and the report sorts the keys by
# address, so whether its "-" or "+" line comes first depends on where the
# runtime placed them, not on the code (it failed so under shadow in a
# loaded CI run and passes on a rerun). One subtest of ~500, a few ms.
gocmp_test=(go test -count=1 -skip 'TestDiff/Reporter/LargeMapKey' ./cmp/...)
