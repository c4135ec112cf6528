# Helpers the bench scripts share. Each script cds to the repository root
# first, then sources it: . bench/lib.sh
# Figures are medians of runs taken side by side, so a noisy shared
# machine affects both sides of a comparison alike.

# now: the wall clock in seconds, with nanoseconds.
now() { date +%s.%N; }

# elapsed CMD...: run CMD (output discarded, failure ignored) and print
# how long it took, in seconds.
elapsed() {
  local s
  s=$(now)
  "$@" >/dev/null 2>&1 || true
  awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.4f\n", b-a}'
}

# median: the median of the numbers on stdin, one per line.
median() { sort -g | awk '{v[NR]=$1} END{print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# cpu CMD...: run CMD (output discarded, failure ignored) and print the
# CPU seconds (user + system, microseconds' precision: getrusage(2)) of
# it and everything it waited for.
cpu() {
  python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.6f" % (r.ru_utime + r.ru_stime))' "$@"
}
