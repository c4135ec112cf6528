#!/usr/bin/env bash
# Where the time of a warm one-hypothesis overlay run goes (docs/figures.md),
# from shadow's own event stream and the sandbox init measured on its own,
# medians of ROUNDS runs:
#   startup   shadow's exec, Go runtime and package init, flags, spec,
#             workspace, probe cache: launch to the run_started event;
#   pre       run_started to hyp_started: recording the run, the source
#             scan for staleness (or its watch set-up);
#   hyp       hyp_started to hyp_finished: the sandbox (upper dir, re-exec
#             of the init into new namespaces, mounts, the command,
#             collecting, removing the upper dir) and parsing;
#     init    of which the init's re-exec alone: exec, Go runtime and
#             package init of the same binary, to its first syscall of
#             its own (measured by starting it without a configuration);
#     pkginit of which Go package init (GODEBUG=inittrace=1), and the
#             packages costing most;
#   post      hyp_finished to run_finished: second scan, diff, ranking,
#             the report;
#   exit      run_finished to the process's exit: printing, recording.
# Commands: `true` on a 1k-file checkout, and `go test -count=1 ./cmp/...`
# on google/go-cmp (module cache or proxy), each against the bare command.
# usage: bench/profile.sh [ROUNDS]   (default 9; SHORT=1: one round)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-9}
. bench/lib.sh
if short; then rounds=1; fi
tmp=$(mktemp -d /tmp/shadow-bench-profile.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
shadow_build "$tmp/shadow" CGO_ENABLED=0 # static, as the Makefile builds it (bench/overhead.sh says why)
shadow="$tmp/shadow"
echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json"

small="$tmp/small"
python3 - "$small" <<'EOF'
import os, sys
root = sys.argv[1]
for i in range(1000):
    d = os.path.join(root, "d%02d" % (i % 50))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%04d.txt" % i), "w").write("%d\n" % i)
EOF
(cd "$small" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
gocmp=""
if src=$(GOFLAGS=-mod=mod go mod download -json github.com/google/go-cmp@v0.7.0 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'); then
  gocmp="$tmp/go-cmp"
  cp -r "$src" "$gocmp" && chmod -R u+w "$gocmp"
  (cd "$gocmp" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
fi

# phases WS CMD...: one run's phases in ms: startup pre hyp post exit total
phases() {
  local ws=$1; shift
  python3 - "$shadow" "$ws" "$tmp/one.json" "$@" <<'EOF'
import json, subprocess, sys, time
from datetime import datetime
shadow, ws, spec, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
t0 = time.time()
p = subprocess.Popen([shadow, "--headless", "--events", "--no-record", "-C", ws, spec, "--"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
ev = {}
for line in p.stdout:
    e = json.loads(line)
    ev.setdefault(e["kind"], datetime.fromisoformat(e["time"].replace("Z", "+00:00")).timestamp())
p.wait()
t1 = time.time()
ms = lambda a, b: (b - a) * 1000
print("%.1f %.1f %.1f %.1f %.1f %.1f" % (ms(t0, ev["run_started"]), ms(ev["run_started"], ev["hyp_started"]), ms(ev["hyp_started"], ev["hyp_finished"]),
      ms(ev["hyp_finished"], ev["run_finished"]), ms(ev["run_finished"], t1), ms(t0, t1)))
EOF
}
bare() { # bare WS CMD...: ms
  local ws=$1; shift
  python3 -c 'import subprocess,sys,time; t=time.time(); subprocess.run(sys.argv[2:], cwd=sys.argv[1], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print("%.1f" % ((time.time()-t)*1000))' "$ws" "$@"
}
initexec() { # the init's re-exec to its first own step (no configuration: it exits at once)
  python3 -c 'import subprocess,sys,time; t=time.time(); subprocess.run(["bash","-c","exec -a shadow-sandbox-init "+sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print("%.1f" % ((time.time()-t)*1000))' "$shadow"
}
execbase() { # the same bash exec of a static no-op, to subtract
  python3 -c 'import subprocess,time; t=time.time(); subprocess.run(["bash","-c","exec true"]); print("%.1f" % ((time.time()-t)*1000))'
}
med() { sort -g | awk '{v[NR]=$1} END{m=(NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f", m}'; }
col() { awk -v c="$1" '{print $c}' "$2" | med; }

profile() { # profile TITLE WS CMD...
  local title=$1 ws=$2; shift 2
  phases "$ws" "$@" >/dev/null; bare "$ws" "$@" >/dev/null   # warm
  : > "$tmp/ph"; : > "$tmp/bare"; : > "$tmp/init"; : > "$tmp/eb"
  for i in $(seq "$rounds"); do
    bare "$ws" "$@" >> "$tmp/bare"
    phases "$ws" "$@" >> "$tmp/ph"
    initexec >> "$tmp/init"; execbase >> "$tmp/eb"
  done
  local b t
  b=$(med < "$tmp/bare"); t=$(col 6 "$tmp/ph")
  echo "== $title ($rounds rounds, medians in ms)"
  printf 'bare %s  shadow %s  overhead %.1f (%.3fx)\n' "$b" "$t" "$(awk -v a="$t" -v b="$b" 'BEGIN{print a-b}')" "$(awk -v a="$t" -v b="$b" 'BEGIN{print a/b}')"
  printf '  startup %s | pre %s | hyp %s (command alone ~%s) | post %s | exit %s\n' "$(col 1 "$tmp/ph")" "$(col 2 "$tmp/ph")" "$(col 3 "$tmp/ph")" "$b" "$(col 4 "$tmp/ph")" "$(col 5 "$tmp/ph")"
  printf '  init re-exec to its first step %s (a bash exec of true: %s)\n' "$(med < "$tmp/init")" "$(med < "$tmp/eb")"
}

pkginit() { awk '/^init /{s+=$5; if ($5 > 0.5) top = top sprintf(" %s %.1f;", $2, $5)} END{printf "%.1f ms;%s\n", s, top}'; }
echo "== Go package init: shadow itself $(GODEBUG=inittrace=1 "$shadow" version 2>&1 >/dev/null | pkginit)"
echo "   each sandbox init (overlay/nsinit takes over early) $(GODEBUG=inittrace=1 bash -c "exec -a shadow-sandbox-init $shadow" 2>&1 | pkginit)"
profile "true on a 1k-file checkout" "$small" true
[ -n "$gocmp" ] && { (cd "$gocmp" && "${gocmp_test[@]}" >/dev/null 2>&1) || true; profile "go test -count=1 ./cmp/... on go-cmp" "$gocmp" "${gocmp_test[@]}"; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
