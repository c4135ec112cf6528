#!/usr/bin/env bash
# shadow's own CPU per output line (docs/figures.md): one hypothesis whose
# command prints LINES lines of ~60 bytes as fast as it can, run headless
# (text report, --json, --events) and in the TUI (a pty of COLSxROWS, q
# once the winner shows), against the same run printing no line.
#
# The CPU is the shadow process's own (utime + stime of /proc/PID/stat,
# read while it is a zombie, so exactly up to its exit): the sandbox init
# and the command are its children and are left out. Per line is
# (self with LINES - self with none) / LINES, so the fixed cost of a
# hypothesis cancels; each figure is the median of ROUNDS alternating runs.
#
# usage: bench/outputcpu.sh [ROUNDS] [LINES] [COLSxROWS]   (default 3, 1000000, 120x40)
# SHORT=1: one round of 20000 lines (that the bench still runs, not a figure).
# SHADOW_BIN=path measures that binary instead of building this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
lines=${2:-1000000}
if [ "${SHORT:-0}" = 1 ]; then rounds=1 lines=20000; fi
size=${3:-120x40}
tmp=$(mktemp -d /tmp/shadow-outputcpu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
if [ -n "${SHADOW_BIN:-}" ]; then
  shadow=$(realpath "$SHADOW_BIN")
else
  go build -o "$tmp/shadow" .
  shadow="$tmp/shadow"
fi
mkdir -p "$tmp/ws"
echo seed > "$tmp/ws/seed.txt"
echo '{"hypotheses":[{"name":"h1","edits":[{"path":"h1.txt","content":"1\n"}]}]}' > "$tmp/spec.json"
# In the workspace: /tmp is the hypothesis's own (docs/modes.md,
# "overlay"), so a script beside this bench's temporary directory would
# not be found there.
cat > "$tmp/ws/flood.awk" <<'AWK'
BEGIN {
  n = ENVIRON["FLOOD_LINES"] + 0
  for (i = 0; i < n; i++) printf "flood line %d: some test output, nothing to see, ok\n", i
  print "1 passed, 0 failed"
}
AWK

python3 - "$shadow" "$tmp" "$rounds" "$lines" "$size" <<'PY'
import fcntl, os, re, select, signal, statistics, struct, subprocess, sys, termios, time

shadow, tmp, rounds, lines, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cols, rows = (int(x) for x in size.split("x"))
tck = os.sysconf("SC_CLK_TCK")
args = ["-C", tmp + "/ws", tmp + "/spec.json", "--", "awk", "-f", "flood.awk"]

def self_cpu(pid):
    # Wait without reaping: the zombie's stat holds its final figures.
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    with open("/proc/%d/stat" % pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    own = (int(st[11]) + int(st[12])) / tck
    kids = (int(st[13]) + int(st[14])) / tck
    os.waitpid(pid, 0)
    return own, kids

def headless(flags, n):
    env = dict(os.environ, FLOOD_LINES=str(n))
    p = subprocess.Popen([shadow, "--headless"] + flags + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    r = self_cpu(p.pid)
    p.returncode = 0
    return r

ansi = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b.")

def tui(n):
    env = dict(os.environ, FLOOD_LINES=str(n), TERM="xterm-256color")
    env.pop("CI", None)
    m, s = os.openpty()
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    p = subprocess.Popen([shadow, "tui"] + args, stdin=s, stdout=s, stderr=s, env=env, start_new_session=True)
    os.close(s)
    seen, sent, deadline = b"", False, time.time() + 600
    while time.time() < deadline:
        r, _, _ = select.select([m], [], [], 0.2)
        if r:
            try:
                b = os.read(m, 1 << 16)
            except OSError:
                break
            if not b:
                break
            if not sent:
                seen = (seen + ansi.sub(b"", b))[-4096:]
                if b"winner" in seen:
                    os.write(m, b"q")
                    sent = True
        st = open("/proc/%d/stat" % p.pid).read().rsplit(")", 1)[1].split()
        if st[0] == "Z":
            break
    if not sent:
        os.kill(p.pid, signal.SIGTERM)
    r = self_cpu(p.pid)
    p.returncode = 0
    os.close(m)
    return r

sides = [("text", lambda n: headless([], n)), ("json", lambda n: headless(["--json"], n)),
         ("events", lambda n: headless(["--events"], n)), ("tui", tui)]
for _, f in sides:  # warm up: probe cache, page cache
    f(1000)
per = {k: [] for k, _ in sides}
kids = []
for i in range(rounds):
    row = []
    for k, f in sides:
        full, kid = f(lines)
        none, _ = f(0)
        v = (full - none) / lines * 1e6
        per[k].append(v)
        row.append("%s %.2f" % (k, v))
        if k == "text":
            kids.append(kid)
    print("round %d (us/line): %s" % (i + 1, " | ".join(row)), flush=True)
med = {k: statistics.median(v) for k, v in per.items()}
print("%d lines of ~60 bytes, one hypothesis, shadow's own CPU per line, median of %d:" % (lines, rounds))
for k, _ in sides:
    print("  %-6s %.2f us/line" % (k, med[k]))
print("  the command and the sandbox init (text run): %.2f us/line" % (statistics.median(kids) / lines * 1e6))
t = med["text"]
print("  tui/text = %.2fx (target <= 1.1x); goal <= 1 us/line headless" % (med["tui"] / t if t > 0 else 0))
PY
