#!/usr/bin/env bash
# Measures the CPU the full-screen TUI costs against --headless for the same
# run (docs/figures.md): 8 hypotheses, each a command printing ~10k lines/s
# for ~5 s, all at once (-j 8). The TUI runs in a detached tmux pane of a
# fixed size.
#
# Two figures per side, each the median of ROUNDS alternating runs:
#   self   CPU (user+sys) of the shadow process alone, read from
#          /proc/PID/stat just before it exits (the TUI: once the winner
#          shows, before q), so the commands' own CPU is left out;
#   total  user+sys of shadow and everything it waited for (the commands
#          too), from bash's `time`.
# The target is TUI self / headless self <= 1.3.
#
# usage: bench/tui_cpu.sh [ROUNDS] [COLSxROWS]   (default 3, 120x40); needs tmux.
# SHORT=1: one round of ~0.5 s floods (that the bench still runs, not a figure).
# SHADOW_BIN=path measures that binary instead of building this checkout
# (to compare two builds on the same machine at the same time).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bursts=50
size=${2:-120x40}
. bench/lib.sh  # now, elapsed, median, short, skip (from the repository root)
cols=${size%x*} rows=${size#*x}
if short; then rounds=1 bursts=5; fi
command -v tmux >/dev/null || skip "tui_cpu: tmux is missing (apt-get install tmux)"
tmp=$(mktemp -d /tmp/shadow-tuicpu.XXXXXX)
sock="shadow-tuicpu-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
if [ -n "${SHADOW_BIN:-}" ]; then
  shadow=$(realpath "$SHADOW_BIN")
else
  shadow_build "$tmp/shadow"
  shadow="$tmp/shadow"
fi
tck=$(getconf CLK_TCK)

mkdir -p "$tmp/ws"
echo seed > "$tmp/ws/seed.txt"
{
  printf '{"hypotheses":['
  for i in 1 2 3 4 5 6 7 8; do
    [ "$i" = 1 ] || printf ','
    printf '{"name":"h%d","edits":[{"path":"h%d.txt","content":"%d\\n"}]}' "$i" "$i" "$i"
  done
  printf ']}\n'
} > "$tmp/spec.json"
# 50 bursts of 1000 lines, 0.1 s apart: ~10k lines/s for ~5 s. In the
# workspace, which each hypothesis sees at its own path: /tmp is the
# hypothesis's own (docs/modes.md, "overlay"), so a script in this bench's
# temporary directory beside it would not be found there.
cat > "$tmp/ws/flood.awk" <<AWK
BEGIN {
  for (s = 0; s < $bursts; s++) {
    for (j = 0; j < 1000; j++) printf "burst %d line %d: some test output, ok\n", s, j
    fflush(); system("sleep 0.1")
  }
  print "1 passed, 0 failed"
}
AWK
args=(-C "$tmp/ws" -j 8 "$tmp/spec.json" -- awk -f flood.awk)

# self_cpu PID: poll /proc/PID/stat until the process exits or STOPFILE
# appears; print the last user+sys in seconds.
self_cpu() {
  local pid=$1 stop=$2 last=0 v
  while [ -r "/proc/$pid/stat" ]; do
    v=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null) || break
    [ -n "$v" ] && last=$v
    [ -e "$stop" ] && break
    sleep 0.05
  done
  awk -v t="$last" -v h="$tck" 'BEGIN { printf "%.2f\n", t / h }'
}

headless() {
  local n=$1
  rm -f "$tmp/pid"
  ( TIMEFORMAT='%U %S'; { time sh -c 'echo $$ > "$0"; exec "$@"' "$tmp/pid" "$shadow" --headless "${args[@]}" >/dev/null 2>&1; } 2> "$tmp/h$n.time" ) &
  local bg=$!
  while [ ! -s "$tmp/pid" ]; do sleep 0.01; done
  self_cpu "$(cat "$tmp/pid")" /nonexistent > "$tmp/h$n.self"
  wait "$bg"
}

tui() {
  local n=$1
  rm -f "$tmp/pid" "$tmp/stop"
  {
    echo 'TIMEFORMAT="%U %S"'
    printf '{ time sh -c %q %q %q tui' 'echo $$ > "$0"; exec "$@"' "$tmp/pid" "$shadow"
    printf ' %q' "${args[@]}"
    printf ' 2>/dev/null; } 2> %q\n' "$tmp/t$n.time"
    printf 'touch %q\nsleep 600\n' "$tmp/t$n.done"
  } > "$tmp/tui$n.sh"
  tmux -L "$sock" -f /dev/null new-session -d -s "t$n" -x "$cols" -y "$rows" "TERM=xterm-256color bash $tmp/tui$n.sh"
  while [ ! -s "$tmp/pid" ]; do sleep 0.01; done
  local pid; pid=$(cat "$tmp/pid")
  ( until tmux -L "$sock" capture-pane -p -t "t$n" | grep -q 'winner'; do sleep 0.1; done; touch "$tmp/stop" ) &
  local watcher=$!
  self_cpu "$pid" "$tmp/stop" > "$tmp/t$n.self"
  wait "$watcher"
  tmux -L "$sock" send-keys -t "t$n" q
  until [ -e "$tmp/t$n.done" ]; do sleep 0.05; done
  tmux -L "$sock" kill-session -t "t$n"
}

sum() { awk '{ printf "%.2f\n", $1 + $2 }' "$1"; }

# Warm up (probe cache, page cache), and check that every hypothesis ran
# the flood to its end: a figure of commands that failed at once says
# nothing.
"$shadow" --headless --json --no-record "${args[@]}" 2>/dev/null > "$tmp/warm.json" || true
python3 - "$tmp/warm.json" <<'PY' || exit 1
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit("tui_cpu: the warm-up run wrote no report")
bad = [h["name"] + ": " + h["status"] for h in r["hypotheses"] if h["status"] != "passed"]
if bad:
    sys.exit("tui_cpu: the flood did not run in every hypothesis (" + ", ".join(bad) + ")")
PY
for i in $(seq "$rounds"); do
  headless "$i"
  tui "$i"
  printf 'round %d: headless self %ss total %ss | tui self %ss total %ss\n' "$i" \
    "$(cat "$tmp/h$i.self")" "$(sum "$tmp/h$i.time")" "$(cat "$tmp/t$i.self")" "$(sum "$tmp/t$i.time")"
done
hs=$(cat "$tmp"/h*.self | median); ts=$(cat "$tmp"/t*.self | median)
ht=$(for f in "$tmp"/h*.time; do sum "$f"; done | median); tt=$(for f in "$tmp"/t*.time; do sum "$f"; done | median)
echo "8 hypotheses x ~10k lines/s x ~5 s, TUI in a ${cols}x${rows} tmux pane, median of $rounds:"
awk -v hs="$hs" -v ts="$ts" -v ht="$ht" -v tt="$tt" 'BEGIN {
  printf "  shadow process alone: headless %.2fs, tui %.2fs  -> tui/headless = %.2fx (target <= 1.3x)\n", hs, ts, (hs > 0 ? ts / hs : 0)
  printf "  with the commands:    headless %.2fs, tui %.2fs  -> tui/headless = %.2fx\n", ht, tt, (ht > 0 ? tt / ht : 0)
}'
