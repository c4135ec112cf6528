#!/usr/bin/env bash
# shadow's overhead on a real Go module (docs/figures.md), measured
# side by side in alternating pairs so a noisy shared machine affects both
# alike; median and spread (interquartile range) printed:
#   1. one shadow of `go test -count=1 ./cmp/...` on google/go-cmp against
#      the bare command, warm build cache: wall clock, and CPU time (user +
#      system of everything each side ran), the steadier figure when the
#      machine is shared;
#   2. four hypotheses of it with -j = cores against -j = cores/2 (the
#      default -j is the number of cores).
# go-cmp comes from the module cache, or through the module proxy
# (`go mod download github.com/google/go-cmp@v0.7.0`).
# usage: bench/gocmp.sh [PAIRS] [JPAIRS]   (defaults 15 and 5; JPAIRS 0 skips 2.;
#   SHORT=1: one pair of each)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-15}
jpairs=${2:-5}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
if short; then pairs=1 jpairs=1; fi
tmp=$(mktemp -d /tmp/shadow-bench-gocmp.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"

src=$(GOFLAGS=-mod=mod go mod download -json github.com/google/go-cmp@v0.7.0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
ws="$tmp/go-cmp"
cp -r "$src" "$ws" && chmod -R u+w "$ws"
(cd "$ws" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
cmd=("${gocmp_test[@]}")

# cputime CMD...: user+system seconds of CMD and everything it waited for
# (the sandbox init reaps the command's processes), steadier than the
# wall clock on a machine others keep busy.
cputime() { local rc=0; /usr/bin/time -f '%U %S' -o "$tmp/cpu.t" "$@" >/dev/null 2>&1 || rc=$?; checked "$rc" "$@"; awk '{printf "%.4f\n", $1+$2}' "$tmp/cpu.t"; }
stats() { sort -g "$1" | awk '{v[NR]=$1} END{m=(NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; q1=v[int((NR+3)/4)]; q3=v[int((3*NR+1)/4)]; printf "%.3f %.3f %.3f %.3f %.3f\n", m, q1, q3, v[1], v[NR]}'; }
ratios() { paste "$1" "$2" | awk '{printf "%.4f\n", $2/$1}'; }

echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json"
printf '{"hypotheses":[' > "$tmp/four.json"
for i in 1 2 3 4; do [ "$i" -gt 1 ] && printf ',' >> "$tmp/four.json"; printf '{"name":"h%d","edits":[{"path":"NOTES-%d.txt","content":"x\\n"}]}' "$i" "$i" >> "$tmp/four.json"; done
printf ']}\n' >> "$tmp/four.json"

(cd "$ws" && "${cmd[@]}" >/dev/null 2>&1) || true   # warm the build cache
"$shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- "${cmd[@]}" >/dev/null 2>&1 || true

echo "== 1. one shadow over the bare command (${cmd[*]} on go-cmp, warm), $pairs alternating pairs"
: > "$tmp/bare"; : > "$tmp/shad"; : > "$tmp/barec"; : > "$tmp/shadc"
for i in $(seq "$pairs"); do
  (cd "$ws" && elapsed "${cmd[@]}") >> "$tmp/bare"
  elapsed "$shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- "${cmd[@]}" >> "$tmp/shad"
  (cd "$ws" && cputime "${cmd[@]}") >> "$tmp/barec"
  cputime "$shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- "${cmd[@]}" >> "$tmp/shadc"
done
ratios "$tmp/bare" "$tmp/shad" > "$tmp/r1"
read -r bm bq1 bq3 _ _ < <(stats "$tmp/bare")
read -r sm sq1 sq3 _ _ < <(stats "$tmp/shad")
read -r rm rq1 rq3 rmin rmax < <(stats "$tmp/r1")
printf 'bare %.3fs (IQR %.3f-%.3f)  shadow %.3fs (IQR %.3f-%.3f)\n' "$bm" "$bq1" "$bq3" "$sm" "$sq1" "$sq3"
printf 'wall ratio shadow/bare: median %.3fx (IQR %.3f-%.3f, min %.3f, max %.3f) target <= 1.05\n' "$rm" "$rq1" "$rq3" "$rmin" "$rmax"
ratios "$tmp/barec" "$tmp/shadc" > "$tmp/r1c"
read -r bm _ _ _ _ < <(stats "$tmp/barec")
read -r sm _ _ _ _ < <(stats "$tmp/shadc")
read -r rm rq1 rq3 rmin rmax < <(stats "$tmp/r1c")
printf 'cpu  ratio shadow/bare: median %.3fx (IQR %.3f-%.3f, min %.3f, max %.3f); cpu %.3fs bare, %.3fs shadow\n' "$rm" "$rq1" "$rq3" "$rmin" "$rmax" "$bm" "$sm"

[ "$jpairs" -gt 0 ] || exit 0
cores=$(nproc)
half=$(( cores / 2 > 0 ? cores / 2 : 1 ))
echo "== 2. four hypotheses of it, -j $cores (cores) against -j $half (cores/2), $jpairs alternating pairs"
: > "$tmp/jc"; : > "$tmp/jh"
for i in $(seq "$jpairs"); do
  elapsed "$shadow" --headless --no-record -j "$cores" -C "$ws" "$tmp/four.json" -- "${cmd[@]}" >> "$tmp/jc"
  elapsed "$shadow" --headless --no-record -j "$half" -C "$ws" "$tmp/four.json" -- "${cmd[@]}" >> "$tmp/jh"
done
ratios "$tmp/jh" "$tmp/jc" > "$tmp/r2"
read -r cm cq1 cq3 _ _ < <(stats "$tmp/jc")
read -r hm hq1 hq3 _ _ < <(stats "$tmp/jh")
read -r rm rq1 rq3 rmin rmax < <(stats "$tmp/r2")
printf -- '-j %d %.3fs (IQR %.3f-%.3f)  -j %d %.3fs (IQR %.3f-%.3f)\n' "$cores" "$cm" "$cq1" "$cq3" "$half" "$hm" "$hq1" "$hq3"
printf 'ratio (-j %d)/(-j %d): median %.3fx (IQR %.3f-%.3f, min %.3f, max %.3f); below 1 means -j = cores is faster\n' "$cores" "$half" "$rm" "$rq1" "$rq3" "$rmin" "$rmax"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
