#!/usr/bin/env bash
# shadow against the ways people test several candidate edits by hand
# (docs/figures.md), on three real projects of three ecosystems:
#   go  google/go-cmp v0.7.0 (Go module proxy), `go test -count=1 ./cmp/...`
#   py  sortedcontainers 2.4.0 (Debian's source package, `apt-get source`),
#       pytest from python3-pytest: `python3 -m pytest -q -k 'not stress' tests`
#   js  zod 4.6.7 (its npm tarball ships src/ with its vitest tests), vitest
#       3.2.4 in node_modules from `npm install`, lockfile kept:
#       `vitest run` on three of src/v4/mini/tests (the whole directory
#       costs ~18 s CPU a run here, too long for rounds of 5 approaches)
# for 1 and for 4 hypotheses (each edits one source file with a comment
# line, so each must rebuild / re-import / re-transform it; of the 4, the
# first is the no-edit baseline), with five approaches:
#   overlay   shadow, default mode on this machine (overlayfs shadows)
#   copy      shadow --mode copy
#   loop      the loop shadow replaces: write the edit in the tree, run,
#             revert (git checkout), one hypothesis at a time
#   worktree  a git worktree per hypothesis plus the install it needs (js:
#             `npm ci --offline`; go shares the module and build caches;
#             py needs nothing), run, `git worktree remove`
#   cpcopy    a plain `cp -a` of the checkout per hypothesis, run, rm -rf
# shadow runs -j cores (its default); worktree and cpcopy run their
# hypotheses -j cores too (xargs -P), the loop cannot (one tree). Every
# approach's command runs in a session of its own (setsid), as shadow's do:
# with sched_autogroup_enabled, a session is a scheduling group, and on a
# machine others keep busy one that has its own group gets a larger share
# of the CPU (without it shadow's wall times came out 0.4-0.6x the loop's
# for one hypothesis at the same CPU time).
# Each round runs every approach once, in alternating order (forward, then
# reversed), so a noisy shared machine weighs on all alike; printed: wall
# time and CPU time (user+system of every child, /usr/bin/time), median and
# spread (interquartile range; min-max under 5 rounds), and the ratio to
# the loop taken per round.
# Fetching and installing the projects happens once, into
# ${SHADOW_BENCH_CACHE:-/var/tmp/shadow-bench}, untimed; each run times
# fresh git checkouts of them under /tmp, warmed once first (build cache,
# __pycache__) as a checkout someone works in is.
# usage: bench/ecosystems.sh [PAIRS1] [PAIRS4]   (rounds for 1 and for 4
#   hypotheses; defaults 15 and 5; 0 skips)
#   ECOS="go py js" picks the projects; APPROACHES="overlay copy loop
#   worktree cpcopy" picks the approaches (loop is needed for the ratios);
#   KEEP=DIR keeps the per-round figures for bench/ecosystems-report.sh.
#   SHORT=1: one round of 1 hypothesis, no warm-up of the approaches; an
#   ecosystem whose tools or sources are missing here is skipped, saying
#   why (its fetch from the network happens once, into the cache).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs1=${1:-15}
pairs4=${2:-5}
. bench/lib.sh  # short, skip
if short; then pairs1=1 pairs4=${2:-0}; fi
ECOS=${ECOS:-go py js}
APPROACHES=${APPROACHES:-overlay copy loop worktree cpcopy}
cache=${SHADOW_BENCH_CACHE:-/var/tmp/shadow-bench}
py=/usr/bin/python3 # Debian's, where python3-pytest is; not a pyenv shim

die() { echo "ecosystems.sh: $*" >&2; exit 1; }
# lack WHY: what an ecosystem needs is not here: the bench stops, or under
# SHORT=1 that ecosystem is skipped (its check returns 1).
lack() { if short; then [ "$e" = all ] && skip "$*"; echo "skipped $e: $*"; return 1; fi; die "$*"; }
need() { command -v "$1" >/dev/null 2>&1 || lack "$1 not found: $2"; }
e=all
need go "install Go (see README)"
need git "apt-get install git"
need setsid "apt-get install util-linux"
need /usr/bin/time "apt-get install time (bash's time cannot write the CPU of children to a file)"
have() { # have ECO: the ecosystem's tools and sources are here
  local e=$1
  case $e in
  go) ;;
  py)
    [ -x "$py" ] || { lack "$py not found: apt-get install python3"; return; }
    "$py" -c 'import pytest' 2>/dev/null || { lack "pytest missing for $py: apt-get install python3-pytest"; return; }
    need dpkg-source "apt-get install dpkg-dev" && need apt-get "the Python project is Debian's source package sortedcontainers" || return
    [ -f "$cache/sortedcontainers-2.4.0/setup.py" ] || apt-cache showsrc sortedcontainers 2>/dev/null | grep -q '^Package: sortedcontainers' ||
      lack "no Debian source for sortedcontainers: add a deb-src line for your suite (e.g. /etc/apt/sources.list.d/debian-src.sources with 'Types: deb-src', the URIs/Suites/Components of your deb line), then apt-get update"
    ;;
  js)
    need node "apt-get install nodejs (node >= 18 for vitest 3)" && need npm "apt-get install npm"
    ;;
  *) die "unknown ecosystem $e in ECOS (go py js)" ;;
  esac
}
ecos=
for e in $ECOS; do if have "$e"; then ecos="$ecos $e"; fi; done
ECOS=$ecos
[ -n "$ECOS" ] || skip "no ecosystem can run here"
case " $APPROACHES " in *" loop "*) ;; *) die "APPROACHES must include loop: the ratios are against it" ;; esac

tmp=$(mktemp -d /tmp/shadow-bench-eco.XXXXXX)
cleanup() {
  # KEEP=DIR keeps the per-round figures (bench/ecosystems-report.sh DIR
  # prints them again, also those of a run stopped part-way)
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$tmp"/r-* "$KEEP"/ 2>/dev/null; fi
  for w in "$tmp"/ws-*; do [ -d "$w/.git" ] && git -C "$w" worktree prune 2>/dev/null; done
  chmod -R u+w "$tmp" 2>/dev/null
  rm -rf "$tmp" 2>/dev/null || { sleep 1; rm -rf "$tmp"; }
}
trap cleanup EXIT
export XDG_STATE_HOME="$tmp/state"
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"
jobs=$(nproc)
mkdir -p "$cache"

# ---- fetch / install once into the cache (untimed) ----
fetch_go() {
  local d="$cache/go-cmp-0.7.0" src
  [ -f "$d/go.mod" ] && return
  src=$(GOFLAGS=-mod=mod go mod download -json github.com/google/go-cmp@v0.7.0 |
    "$py" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') ||
    die "go mod download github.com/google/go-cmp@v0.7.0 failed (Go module proxy unreachable?)"
  rm -rf "$d.part" && cp -r "$src" "$d.part" && chmod -R u+w "$d.part" && mv "$d.part" "$d"
}
fetch_py() {
  local d="$cache/sortedcontainers-2.4.0"
  [ -f "$d/setup.py" ] && return
  apt-cache showsrc sortedcontainers 2>/dev/null | grep -q '^Package: sortedcontainers' ||
    die "no Debian source for sortedcontainers: add a deb-src line for your suite (e.g. /etc/apt/sources.list.d/debian-src.sources with 'Types: deb-src', the URIs/Suites/Components of your deb line), then apt-get update"
  rm -rf "$cache/py-src" && mkdir -p "$cache/py-src"
  (cd "$cache/py-src" && apt-get source --download-only sortedcontainers=2.4.0-2 >/dev/null) ||
    die "apt-get source sortedcontainers=2.4.0-2 failed (see the output above)"
  (cd "$cache/py-src" && dpkg-source -q -x sortedcontainers_2.4.0-2.dsc src >/dev/null) || die "dpkg-source -x failed in $cache/py-src"
  rm -rf "$cache/py-src/src/debian" "$cache/py-src/src/.pc"
  mv "$cache/py-src/src" "$d"
}
fetch_js() {
  local d="$cache/zod-4.6.7" tgz
  [ -f "$d/node_modules/vitest/package.json" ] && [ -f "$d/package-lock.json" ] && return
  rm -rf "$d.part" "$cache/js-src" && mkdir -p "$d.part" "$cache/js-src"
  tgz=$(cd "$cache/js-src" && npm pack --silent zod@4.6.7) || die "npm pack zod@4.6.7 failed (npm registry unreachable?)"
  tar xzf "$cache/js-src/$tgz" -C "$d.part" --strip-components=1
  # zod's package.json has no devDependencies (they live in its monorepo):
  # give it vitest and a config that resolves "zod/v4" to src/ through the
  # "@zod/source" export condition, as zod's own repository does.
  "$py" - "$d.part/package.json" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["devDependencies"] = {"vitest": "3.2.4"}
d["scripts"] = {"test": "vitest run"}
json.dump(d, open(p, "w"), indent=2)
EOF
  cat > "$d.part/vitest.config.mjs" <<'EOF'
// bench fixture: resolve zod's self-imports ("zod/v4", "zod/mini") to src/
import { defineConfig } from "vitest/config";
export default defineConfig({
  resolve: { conditions: ["@zod/source"] },
  ssr: { resolve: { conditions: ["@zod/source"] } },
  test: { include: ["src/**/tests/**/*.test.ts"] },
});
EOF
  (cd "$d.part" && npm install --no-audit --no-fund --loglevel=error >/dev/null) || die "npm install in $d.part failed"
  mv "$d.part" "$d"
}

# ---- per ecosystem: checkout, command, edited files ----
# setup_ECO: sets ws, cmd (array), files (edited source files, relative),
# cmt (the comment prefix) and inst (the worktree's install, or empty).
setup_go() {
  ws="$tmp/ws-go"; cp -r "$cache/go-cmp-0.7.0" "$ws"
  cmd=("${gocmp_test[@]}")
  files=(cmp/compare.go cmp/options.go cmp/path.go)
  cmt='//'; inst=''
}
setup_py() {
  ws="$tmp/ws-py"; cp -r "$cache/sortedcontainers-2.4.0" "$ws"
  printf '__pycache__/\n.pytest_cache/\n' > "$ws/.gitignore"
  cmd=("$py" -m pytest -q -k 'not stress' tests)
  files=(sortedcontainers/sortedlist.py sortedcontainers/sorteddict.py sortedcontainers/sortedset.py)
  cmt='#'; inst=''
}
setup_js() {
  ws="$tmp/ws-js"; cp -a "$cache/zod-4.6.7" "$ws"
  printf 'node_modules/\n' > "$ws/.gitignore"
  cmd=(node_modules/.bin/vitest run src/v4/mini/tests/object.test.ts src/v4/mini/tests/string.test.ts src/v4/mini/tests/number.test.ts)
  files=(src/v4/mini/schemas.ts src/v4/core/schemas.ts src/v4/core/checks.ts)
  cmt='//'; inst='npm ci --offline --no-audit --no-fund --loglevel=error'
}

# mkhyps N: writes $tmp/$eco-N.list (one line per hypothesis: the edited
# path and the file holding its new content, or "- -" for the baseline)
# and the spec $tmp/$eco-N.json with the same edits.
mkhyps() {
  local n=$1 list="$tmp/$eco-$1.list" k f c
  : > "$list"
  mkdir -p "$tmp/edits"
  for k in $(seq "$n"); do
    if [ "$n" -gt 1 ] && [ "$k" -eq 1 ]; then echo "- -" >> "$list"; continue; fi
    f=${files[$(( (k - 1) % ${#files[@]} ))]}
    c="$tmp/edits/$eco-$n-$k"
    { cat "$ws/$f"; printf '\n%s shadow bench: hypothesis %d\n' "$cmt" "$k"; } > "$c"
    echo "$f $c" >> "$list"
  done
  "$py" - "$list" > "$tmp/$eco-$n.json" <<'EOF'
import json, sys
hyps = []
for i, line in enumerate(open(sys.argv[1])):
    path, content = line.split()
    h = {"name": "baseline" if path == "-" else "h%d" % (i + 1)}
    if path != "-":
        h["edits"] = [{"path": path, "content": open(content).read()}]
    hyps.append(h)
print(json.dumps({"hypotheses": hyps}))
EOF
}

# ---- the approaches; each runs all hypotheses of a list once ----
# Run under /usr/bin/time as `bash -c 'approach_X LIST'` with the
# ecosystem's variables exported; output goes to $tmp/last.out.
getcmd() { eval "cmd=($cmd_s)"; }
run_overlay() { getcmd; "$shadow" --headless --no-record -C "$ws" "$tmp/$eco-$1.json" -- "${cmd[@]}"; }
run_copy() { getcmd; "$shadow" --headless --no-record --mode copy -C "$ws" "$tmp/$eco-$1.json" -- "${cmd[@]}"; }
run_loop() {
  local rc=0 f c
  getcmd
  while read -r f c; do
    [ "$f" = - ] || cp "$c" "$ws/$f"
    (cd "$ws" && setsid -w "${cmd[@]}") || rc=1
    [ "$f" = - ] || git -C "$ws" checkout -q -- "$f"
  done < "$tmp/$eco-$1.list"
  return $rc
}
# one_worktree K F C / one_cpcopy K F C: one hypothesis in its own tree.
one_worktree() {
  local d="$tmp/wt/$eco-$1" rc=0
  getcmd
  git -C "$ws" worktree add -q --detach "$d" HEAD || return 1
  [ "$2" = - ] || cp "$3" "$d/$2"
  if [ -n "$inst" ]; then (cd "$d" && $inst) || rc=1; fi
  [ $rc -ne 0 ] || (cd "$d" && setsid -w "${cmd[@]}") || rc=1
  git -C "$ws" worktree remove --force "$d" || rc=1
  return $rc
}
one_cpcopy() {
  local d="$tmp/cp/$eco-$1" rc=0
  getcmd
  cp -a "$ws" "$d" || return 1
  [ "$2" = - ] || cp "$3" "$d/$2"
  (cd "$d" && setsid -w "${cmd[@]}") || rc=1
  rm -rf "$d"
  return $rc
}
run_parallel() { # run_parallel one_X N
  local k=0 f c
  mkdir -p "$tmp/wt" "$tmp/cp"
  while read -r f c; do k=$((k + 1)); printf '%s %s %s\n' "$k" "$f" "$c"; done < "$tmp/$eco-$2.list" |
    xargs -P "$jobs" -L 1 bash -c "$1"' "$@"' _
}
run_worktree() { run_parallel one_worktree "$1"; }
run_cpcopy() { run_parallel one_cpcopy "$1"; }
export -f getcmd run_overlay run_copy run_loop one_worktree one_cpcopy run_parallel run_worktree run_cpcopy
export tmp shadow jobs

# measure APPROACH N: appends "wall cpu" to $tmp/r-$eco-N-APPROACH; a
# failing run (a test failed, a tool broke) stops the bench, since its
# time would mean nothing.
measure() {
  local a=$1 n=$2 out="$tmp/last.out"
  if ! /usr/bin/time -f '%e %U %S' -o "$tmp/t" bash -c "run_$a $n" > "$out" 2>&1; then
    tail -20 "$out" >&2
    die "$eco, $n hypotheses, $a: a run failed (output above; the test command: ${cmd[*]} in $ws)"
  fi
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$tmp/t" >> "$tmp/r-$eco-$n-$a"
}
# stats: median, 25th and 75th percentile of the numbers on stdin.
# (with fewer than 5 figures the quartiles say little: min and max then)
stats() { sort -g | awk '{v[NR]=$1} END{m=(NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; if (NR<5) printf "%.3f %.3f %.3f\n", m, v[1], v[NR]; else printf "%.3f %.3f %.3f\n", m, v[int((NR+3)/4)], v[int((3*NR+1)/4)]}'; }

report() { # report N ROUNDS
  local n=$1 a col
  printf '\n== %s, %d hypothes%s, %d rounds (load %s)\n' "$eco" "$n" "$([ "$n" -eq 1 ] && echo is || echo es)" "$2" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-9s %-24s %-24s %-22s %-22s\n' approach 'wall s (spread)' 'cpu s (spread)' 'wall/loop (spread)' 'cpu/loop (spread)'
  for a in $APPROACHES; do
    read -r wm wq1 wq3 < <(cut -d' ' -f1 "$tmp/r-$eco-$n-$a" | stats)
    read -r cm cq1 cq3 < <(cut -d' ' -f2 "$tmp/r-$eco-$n-$a" | stats)
    read -r rw rw1 rw3 < <(paste -d' ' "$tmp/r-$eco-$n-loop" "$tmp/r-$eco-$n-$a" | awk '{printf "%.4f\n", $3/$1}' | stats)
    read -r rc rc1 rc3 < <(paste -d' ' "$tmp/r-$eco-$n-loop" "$tmp/r-$eco-$n-$a" | awk '{printf "%.4f\n", $4/$2}' | stats)
    printf '%-9s %-24s %-24s %-22s %-22s\n' "$a" "$wm ($wq1-$wq3)" "$cm ($cq1-$cq3)" "${rw}x ($rw1-$rw3)" "${rc}x ($rc1-$rc3)"
  done
}

echo "shadow $(git describe --always --dirty 2>/dev/null), $(nproc) cores, go $(go env GOVERSION), cache $cache"
for eco in $ECOS; do
  "fetch_$eco"
  "setup_$eco"
  (cd "$ws" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
  export eco ws inst cmd_s
  # bash cannot export arrays: the approaches rebuild cmd from this.
  cmd_s=$(printf '%q ' "${cmd[@]}")
  for n in 1 4; do
    rounds=$pairs1; [ "$n" -eq 4 ] && rounds=$pairs4
    [ "$rounds" -gt 0 ] || continue
    mkhyps "$n"
    # warm-up, untimed: the checkout's build cache / __pycache__, and a
    # first check that the command passes in the checkout
    (cd "$ws" && eval "${cmd_s}") > "$tmp/last.out" 2>&1 || { tail -20 "$tmp/last.out"; die "$eco: ${cmd[*]} fails in the fresh checkout $ws"; }
    # then every approach once, untimed: the page cache, shadow's probe
    # cache, and the first build of each edited file's content, which Go's
    # content-keyed cache would otherwise charge to whichever approach
    # runs first in round 1 (seen: 1.85x for overlay, 1.05x after); a
    # failing approach stops the bench here
    if ! short; then for a in $APPROACHES; do measure "$a" "$n"; done; fi
    for a in $APPROACHES; do : > "$tmp/r-$eco-$n-$a"; done
    order=($APPROACHES)
    for i in $(seq "$rounds"); do
      if [ $((i % 2)) -eq 1 ]; then seq_=("${order[@]}"); else seq_=(); for ((j=${#order[@]}-1; j>=0; j--)); do seq_+=("${order[j]}"); done; fi
      for a in "${seq_[@]}"; do measure "$a" "$n"; done
    done
    report "$n" "$rounds"
  done
done
