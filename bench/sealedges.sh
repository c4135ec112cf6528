#!/usr/bin/env bash
# The seal's edges (terminals, sockets decided at connect, IPC and keys,
# tmpfs caps; copy mode's read and metadata rules): their fixed cost per
# hypothesis, command `true`, this build against the build before them
# (SEAL_EDGES_BASE, default 76d04be: the parent of 5585675 "seal (copy,
# in-place)", which d2c87d9 "overlay: the seal's edges" follows; or
# SEAL_EDGES_NEW, a commit, in place of this tree: d2c87d9 isolates the
# two from what came after), measured side by side, alternating rounds. The figure is CPU time per hypothesis:
# the CPU of the whole process tree (shadow's own side, the sandbox init,
# the command; getrusage(2) RUSAGE_CHILDREN of a wrapper) for a long batch
# minus a short one, over the hypotheses between (what a process start, a
# probe and a run's set-up cost falls out). Wall time is printed beside it,
# but on a shared 2-core machine it is noise of the same order.
#   1. overlay mode as root: overlay's BenchmarkShadowTrue (50x minus 10x;
#      cpu-ms/op, the benchmark's own, counts the init and the command only);
#   2. overlay mode as an unprivileged user (SEAL_EDGES_USER, default
#      shadowci when it exists and this runs as root): the same binaries;
#   3. copy mode, sealed (--require-seal), -j 1: 40 hypotheses minus 8, and
#      the median of the 40's hyp_started to hyp_finished (bench/landlock.sh
#      part 1). As root the workspace and the copies are on a tmpfs mounted
#      in the bench's dir: on ext4 the copy's inode allocation (ext4's
#      recently_deleted scan, which grows with what the machine deleted
#      lately) is most of a hypothesis's CPU and swings it by tens of ms,
#      burying the seal's share; the walk the seal's read rules make (/,
#      then the bench's dir under /tmp) stays the same.
# Measured (docs/figures.md, "the seal's edges' share"): d2c87d9 against
# 76d04be, 7 rounds at load 30-41 on 2 cores: overlay as root +0.8 ms CPU
# per hypothesis (paired +1.2), as shadowci +1.9 (paired +1.2), copy
# sealed +0.4 (paired -0.1); target +2.
# usage: bench/sealedges.sh [ROUNDS]   (default 5; SHORT=1: one round of
#   short batches, this tree's build on both sides)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
base=${SEAL_EDGES_BASE:-76d04be}
user=${SEAL_EDGES_USER-}
if [ -z "$user" ] && [ "$(id -u)" = 0 ] && id shadowci >/dev/null 2>&1; then user=shadowci; fi
tmp=$(mktemp -d "${BENCH_TMP:-/tmp}/shadow-sealedges.XXXXXX")
chmod 755 "$tmp"
trap 'umount "$tmp/fs" 2>/dev/null || true; git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; git worktree remove --force "$tmp/newtree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
. bench/lib.sh  # now, elapsed, median (from the repository root)
# Batches: the overlay benchmark's short and long -benchtime, copy mode's
# short and long specs.
os=10 ol=50 cs=8 cl=40
if short; then rounds=1 os=2 ol=4 cs=2 cl=4; fi
# Both static, as the Makefile and the releases build shadow (with cgo the
# init, re-executed in every hypothesis, starts through the dynamic loader).
export CGO_ENABLED=0
new=.
if [ -n "${SEAL_EDGES_NEW-}" ]; then git worktree add -q --detach "$tmp/newtree" "$SEAL_EDGES_NEW"; new=$tmp/newtree; fi
(cd "$new" && go build -o "$tmp/new-shadow" . && go test -c -o "$tmp/new-overlay.test" ./overlay)
if short; then
  cp "$tmp/new-shadow" "$tmp/old-shadow"; cp "$tmp/new-overlay.test" "$tmp/old-overlay.test"
else
  git worktree add -q --detach "$tmp/old" "$base"
  (cd "$tmp/old" && go build -o "$tmp/old-shadow" . && go test -c -o "$tmp/old-overlay.test" ./overlay)
fi
echo "old: $base ($(git log -1 --format=%s "$base" | cut -c1-60)); new: ${SEAL_EDGES_NEW:-this tree, $(git log -1 --format=%h HEAD)}; load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
# cpu_ms CMD...: the CPU milliseconds (user + system) of CMD and every process
# under it that was reaped, its output to $tmp/last.out.
cat > "$tmp/cpu.py" <<'EOF'
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.1f" % ((r.ru_utime + r.ru_stime) * 1000))
EOF
cpu_ms() { python3 "$tmp/cpu.py" "$tmp/last.out" "$@"; }
# argv WHO LINE: sets cmd to the argv that runs the shell line LINE as
# WHO (root: as is) from $tmp.
argv() {
  if [ "$1" = root ]; then cmd=(bash -c "cd '$tmp' && $2"); else
    cmd=(su "$1" -s /bin/bash -c "cd '$tmp' && PATH='/usr/local/go/bin:/usr/bin:/bin' HOME='$(getent passwd "$1" | cut -d: -f6)' TMPDIR=/tmp $2"); fi
}
# summary FILE LABEL: FILE holds "old|new CPU WALL" lines.
# The paired figure is the median of each round's new minus its old (the
# two sides of a round ran back to back, under the same load).
summary() {
  local o n ow nw p
  o=$(awk '$1=="old"{print $2}' "$1" | median); n=$(awk '$1=="new"{print $2}' "$1" | median)
  ow=$(awk '$1=="old"{print $3}' "$1" | median); nw=$(awk '$1=="new"{print $3}' "$1" | median)
  p=$(awk '$1=="old"{o=$2} $1=="new"{print $2-o}' "$1" | median)
  awk -v l="$2" -v o="$o" -v n="$n" -v p="$p" -v ow="$ow" -v nw="$nw" 'BEGIN{printf "%s median: old %.2f, new %.2f cpu-ms per hypothesis: %+.2f ms, paired rounds %+.2f ms (target +2); wall old %.1f, new %.1f ms\n", l, o, n, n-o, p, ow, nw}'
}

overlay() { # overlay WHO LABEL
  local who=$1 label=$2 f="$tmp/ov-$1"
  echo "== $label: BenchmarkShadowTrue (command true), CPU per hypothesis of 50x minus 10x, $rounds alternating rounds"
  : > "$f"
  for i in $(seq "$rounds"); do
    for v in old new; do
      local bench="./$v-overlay.test -test.run '^\$' -test.bench 'BenchmarkShadowTrue\$' -test.benchtime" short long
      argv "$who" "$bench ${os}x"; short=$(cpu_ms "${cmd[@]}" </dev/null)
      argv "$who" "$bench ${ol}x"; long=$(cpu_ms "${cmd[@]}" </dev/null)
      grep -q '^BenchmarkShadowTrue' "$tmp/last.out" || { cat "$tmp/last.out"; exit 1; }
      awk -v v="$v" -v s="$short" -v l="$long" '/^BenchmarkShadowTrue/{printf "%s %.2f %.1f %.2f\n", v, (l-s)/'"$((ol - os))"', $3/1e6, $5}' "$tmp/last.out" |
        tee -a "$f" | awk '{printf "%s %6.2f cpu-ms per hypothesis  %6.1f ms/op  %5.2f cpu-ms/op (init and command)\n", $1, $2, $3, $4}'
    done
  done
  summary "$f" "$label"
  awk '$1=="old"{print $4}' "$f" | median | awk '{printf "  cpu-ms/op (init and command alone): old %.2f", $1}'
  awk '$1=="new"{print $4}' "$f" | median | awk '{printf ", new %.2f\n", $1}'
}

overlay root "1. overlay as root"
if [ -n "$user" ]; then
  overlay "$user" "2. overlay as $user"
else
  echo "== 2. overlay as an unprivileged user: not run (run as root with a user shadowci, or set SEAL_EDGES_USER)"
fi

echo "== 3. copy mode, sealed: CPU per hypothesis of 40 minus 8 (command true, -j 1), $rounds alternating rounds"
fs=$tmp
if [ "$(id -u)" = 0 ]; then mkdir "$tmp/fs" && mount -t tmpfs -o size=1g shadow-sealedges "$tmp/fs" && fs=$tmp/fs; fi
ws="$fs/ws"; mkdir -p "$ws"
for i in $(seq 200); do echo "$i" > "$ws/f$i.txt"; done
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
spec_n() { # spec_n N > file
  printf '{"hypotheses":['; for i in $(seq "$1"); do [ "$i" -gt 1 ] && printf ','; printf '{"name":"h%d","edits":[{"path":"f1.txt","content":"x\\n"}]}' "$i"; done; printf ']}\n'
}
spec_n "$cs" > "$tmp/n8.json"; spec_n "$cl" > "$tmp/n40.json"
per_hyp() { python3 -c '
import sys, json, statistics
from datetime import datetime
t = {}
for line in sys.stdin:
    e = json.loads(line)
    if e["kind"] in ("hyp_started", "hyp_finished"):
        t.setdefault(e["hyp"], {})[e["kind"]] = datetime.fromisoformat(e["time"].replace("Z", "+00:00"))
d = [(v["hyp_finished"] - v["hyp_started"]).total_seconds() * 1000 for v in t.values()]
print("%.1f" % statistics.median(d))' < "$1"; }
f="$tmp/cp"; : > "$f"
for i in $(seq "$rounds"); do
  for v in old new; do
    run=(env XDG_STATE_HOME="$fs/state-$v" "$tmp/$v-shadow" --mode copy --require-seal --headless --events --no-record -j 1 -C "$ws")
    short=$(cpu_ms "${run[@]}" "$tmp/n8.json" -- true)
    long=$(cpu_ms "${run[@]}" "$tmp/n40.json" -- true)
    wall=$(per_hyp "$tmp/last.out")
    awk -v v="$v" -v s="$short" -v l="$long" -v w="$wall" 'BEGIN{printf "%s %.2f %.1f\n", v, (l-s)/'"$((cl - cs))"', w}' |
      tee -a "$f" | awk '{printf "%s %6.2f cpu-ms per hypothesis  %6.1f ms hyp_started to hyp_finished (median of 40)\n", $1, $2, $3}'
  done
done
summary "$f" "3. copy, sealed"
