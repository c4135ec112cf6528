#!/usr/bin/env bash
# Prints bench/ecosystems.sh's tables from the per-round figures it keeps
# (r-ECO-N-APPROACH files, one "wall cpu" line per round), counting only
# the rounds every approach finished: for a run stopped part-way (the
# machine too loaded to finish), or kept with KEEP=DIR.
# usage: bench/ecosystems-report.sh DIR
set -euo pipefail
dir=${1:?usage: bench/ecosystems-report.sh DIR}
# (with fewer than 5 figures the quartiles say little: min and max then)
stats() { sort -g | awk '{v[NR]=$1} END{m=(NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; if (NR<5) printf "%.3f %.3f %.3f\n", m, v[1], v[NR]; else printf "%.3f %.3f %.3f\n", m, v[int((NR+3)/4)], v[int((3*NR+1)/4)]}'; }
for set in $(ls "$dir" | sed -n 's/^r-\([a-z]*-[0-9]*\)-loop$/\1/p'); do
  approaches=$(ls "$dir" | sed -n "s/^r-$set-//p")
  rounds=$(for a in $approaches; do wc -l < "$dir/r-$set-$a"; done | sort -n | head -1)
  [ "$rounds" -gt 0 ] || { echo "== $set: no complete round"; continue; }
  printf '\n== %s hypotheses: %s complete rounds\n' "$set" "$rounds"
  printf '%-9s %-24s %-24s %-22s %-22s\n' approach 'wall s (spread)' 'cpu s (spread)' 'wall/loop (spread)' 'cpu/loop (spread)'
  for a in overlay copy loop worktree cpcopy; do
    f="$dir/r-$set-$a"; [ -f "$f" ] || continue
    l="$dir/r-$set-loop"
    read -r wm wq1 wq3 < <(head -n "$rounds" "$f" | cut -d' ' -f1 | stats)
    read -r cm cq1 cq3 < <(head -n "$rounds" "$f" | cut -d' ' -f2 | stats)
    read -r rw rw1 rw3 < <(paste -d' ' <(head -n "$rounds" "$l") <(head -n "$rounds" "$f") | awk '{printf "%.4f\n", $3/$1}' | stats)
    read -r rc rc1 rc3 < <(paste -d' ' <(head -n "$rounds" "$l") <(head -n "$rounds" "$f") | awk '{printf "%.4f\n", $4/$2}' | stats)
    printf '%-9s %-24s %-24s %-22s %-22s\n' "$a" "$wm ($wq1-$wq3)" "$cm ($cq1-$cq3)" "${rw}x ($rw1-$rw3)" "${rc}x ($rc1-$rc3)"
  done
done
