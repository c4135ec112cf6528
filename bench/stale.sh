#!/usr/bin/env bash
# The whole-run cost of shadow on a large git checkout against the `git
# status` a user runs there anyway (docs/figures.md), measured side by side
# in alternating pairs so a noisy shared machine affects both alike:
# one hypothesis running `true` on a 100k-file, 1k-directory git checkout.
# Also the cost of the staleness watch alone (stale.Start + Stop,
# engine/stale's benchmark), to show no scan of the files is left, and, as root,
# what one fanotify FAN_MARK_FILESYSTEM mark costs and how many events the
# rest of the machine makes on that filesystem.
# usage: bench/stale.sh [PAIRS] [FILES]   (defaults 15 and 100000; SHORT=1:
#   one pair on 2000 files, one iteration of the watch's benchmark)
#   REF=rev bench/stale.sh   also times the shadow built from git rev REF
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-15}
nfiles=${2:-100000}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
benchtime=10x
if short; then pairs=1 nfiles=${2:-2000} benchtime=1x; fi
tmp=$(mktemp -d /tmp/shadow-bench-stale.XXXXXX)
trap 'rm -rf "$tmp" 2>/dev/null || { sleep 1; rm -rf "$tmp"; }' EXIT
export XDG_STATE_HOME="$tmp/state"
shadow_build "$tmp/shadow"
if [ -n "${REF:-}" ]; then
  git worktree add -q --detach "$tmp/ref" "$REF"
  (cd "$tmp/ref" && go build -o "$tmp/shadow-ref" .)
  git worktree remove --force "$tmp/ref"
fi

# cputime CMD...: user+system seconds of CMD and all it waited for.
cputime() { local rc=0; /usr/bin/time -f '%U %S' -o "$tmp/cpu.t" "$@" >/dev/null 2>&1 || rc=$?; checked "$rc" "$@"; awk '{printf "%.4f\n", $1+$2}' "$tmp/cpu.t"; }
# stats FILE: median, and the spread as the 25th-75th percentile range.
stats() { sort -g "$1" | awk '{v[NR]=$1} END{m=(NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; q1=v[int((NR+3)/4)]; q3=v[int((3*NR+1)/4)]; printf "%.3f %.3f %.3f %.3f %.3f\n", m, q1, q3, v[1], v[NR]}'; }

ws="$tmp/ws"
mkdir -p "$ws"
python3 -c '
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("%d\n" % i)
' "$ws" "$nfiles"
printf 'target/\n' > "$ws/.gitignore"
# gc.auto 0: no background gc racing the measurements (or the clean-up)
(cd "$ws" && git init -q . && git config gc.auto 0 && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init && git status >/dev/null)
echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json"
# warm both: page cache, git's index stat data, the sandbox probe cache
for i in 1 2; do git -C "$ws" status >/dev/null; "$tmp/shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- true >/dev/null 2>&1 || true; done

echo "== whole run of one hypothesis (true) on a $nfiles-file git checkout against git status there, $pairs alternating pairs"
: > "$tmp/git"; : > "$tmp/shadow.t"; : > "$tmp/ratio"; : > "$tmp/ref.t"; : > "$tmp/cratio"
for i in $(seq "$pairs"); do
  g=$(elapsed git -C "$ws" status)
  s=$(elapsed "$tmp/shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- true)
  echo "$g" >> "$tmp/git"; echo "$s" >> "$tmp/shadow.t"
  awk -v g="$g" -v s="$s" 'BEGIN{printf "%.4f\n", s/g}' >> "$tmp/ratio"
  if [ -n "${REF:-}" ]; then elapsed "$tmp/shadow-ref" --headless --no-record -C "$ws" "$tmp/one.json" -- true >> "$tmp/ref.t"; fi
  gc=$(cputime git -C "$ws" status)
  sc=$(cputime "$tmp/shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- true)
  awk -v g="$gc" -v s="$sc" 'BEGIN{printf "%.4f\n", s/g}' >> "$tmp/cratio"
done
read -r gm gq1 gq3 _ _ < <(stats "$tmp/git")
read -r sm sq1 sq3 _ _ < <(stats "$tmp/shadow.t")
read -r rm rq1 rq3 rmin rmax < <(stats "$tmp/ratio")
printf 'git status   median %.3fs  (IQR %.3f-%.3f)\n' "$gm" "$gq1" "$gq3"
printf 'shadow run   median %.3fs  (IQR %.3f-%.3f)\n' "$sm" "$sq1" "$sq3"
if [ -n "${REF:-}" ]; then
  read -r fm fq1 fq3 _ _ < <(stats "$tmp/ref.t")
  printf 'shadow @%s median %.3fs  (IQR %.3f-%.3f)\n' "$REF" "$fm" "$fq1" "$fq3"
fi
printf 'ratio shadow/git status: median %.2fx  (IQR %.2f-%.2f, min %.2f, max %.2f) target <= 1.0\n' "$rm" "$rq1" "$rq3" "$rmin" "$rmax"
read -r rm rq1 rq3 rmin rmax < <(stats "$tmp/cratio")
printf 'cpu time ratio shadow/git status: median %.2fx  (IQR %.2f-%.2f, min %.2f, max %.2f)\n' "$rm" "$rq1" "$rq3" "$rmin" "$rmax"

echo "== the staleness watch alone (set every watch, stop, no change): go test -bench StaleWatch ./engine/stale"
SHADOW_BENCH_WS="$ws" go test -run '^$' -bench 'Stale(Watch|Scan)|Fanotify' -benchtime "$benchtime" ./engine/stale | grep -E '^Benchmark'
