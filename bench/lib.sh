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
