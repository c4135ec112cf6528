#!/usr/bin/env bash
# Checked downloads (docs/modes.md, "Checked downloads"): what checking a
# run's downloads against the checkout's go.sum and keeping them in the
# home layer costs, beside the run, and what it saves the next run.
# A module requiring six modules from this machine's module cache (served
# through GOPROXY=file://, no network: cobra, chroma, x/sys, x/mod,
# jsonschema-go, toml; about 5 MB of zips), a baseline that downloads
# nothing and four candidates that each run `go mod download`, on a fresh
# $HOME each round, side by side:
#   on:  the run as it is (the candidates' downloads checked and kept):
#        the report's warm.home.downloads_ms beside duration_ms, and the
#        run's CPU;
#   off: the same run with --no-warm (nothing checked or kept), its CPU;
#   next: a baseline's `go mod download` in the run after `on`: what the
#        layer saves it (it finds every module there).
# CPU is user + system of everything each run ran (steadier than the wall
# on a shared machine); ratios are medians of PAIRS alternating rounds.
# usage: bench/downloads.sh [PAIRS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}
tmp=$(mktemp -d /tmp/shadow-bench-downloads.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/shadow" . # static, as the Makefile builds it (bench/overhead.sh says why)
shadow="$tmp/shadow"
. bench/lib.sh # median
proxy=$(go env GOMODCACHE)/cache/download
# The modules, at this repository's versions, so the machine's module
# cache has them (go build . fetched them).
ws="$tmp/ws"
mkdir -p "$ws"
{
  printf 'module fixture\n\ngo 1.21\n\nrequire (\n'
  for m in github.com/spf13/cobra github.com/alecthomas/chroma/v2 golang.org/x/sys golang.org/x/mod github.com/google/jsonschema-go github.com/BurntSushi/toml; do
    printf '\t%s %s\n' "$m" "$(go list -m -f '{{.Version}}' "$m")"
  done
  printf ')\n'
} > "$ws/go.mod"
(cd "$ws" && GOFLAGS=-mod=mod GOPROXY=file://$proxy GOSUMDB=off GOMODCACHE="$tmp/seed" go mod download)
# go.sum as go mod tidy leaves it for code importing the six: each one's
# zip hash (the .ziphash cmd/go wrote once it checked the zip; go mod
# download in a module with no packages records only go.mod hashes) and
# the go.mod hash of every module of the graph, h1 as cmd/go computes it
# (dirhash.Hash1 over the one file "go.mod").
python3 - "$tmp/seed/cache/download" "$ws/go.sum" <<'PY'
import base64, hashlib, os, re, sys
top, out = sys.argv[1], sys.argv[2]
have = open(out).read()
def unesc(s): return re.sub(r'!([a-z])', lambda m: m.group(1).upper(), s)
with open(out, 'a') as f:
    for d, _, files in os.walk(top):
        if os.path.basename(d) != '@v': continue
        mod = unesc(os.path.relpath(os.path.dirname(d), top))
        for n in files:
            if n.endswith('.ziphash'):
                key = '%s %s ' % (mod, unesc(n[:-8]))
                if key not in have: f.write(key + open(os.path.join(d, n)).read().strip() + '\n')
            if not n.endswith('.mod'): continue
            ver = unesc(n[:-4])
            line = '%s  go.mod\n' % hashlib.sha256(open(os.path.join(d, n), 'rb').read()).hexdigest()
            h = 'h1:' + base64.b64encode(hashlib.sha256(line.encode()).digest()).decode()
            key = '%s %s/go.mod ' % (mod, ver)
            if key not in have: f.write(key + h + '\n')
PY
chmod -R u+w "$tmp/seed" && rm -rf "$tmp/seed"
printf '#!/bin/sh\nif [ "$FETCH" = 1 ]; then go mod download || exit 1; fi\necho "1 passed"\n' > "$ws/run.sh"
(cd "$ws" && git init -q . && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
printf '{"hypotheses":[{"name":"baseline"}' > "$tmp/spec.json"
for i in 1 2 3 4; do printf ',{"name":"h%d","edits":[{"path":"run.sh","content":"FETCH=1 . ./run.sh.real\\n"}]}' "$i" >> "$tmp/spec.json"; done
printf ']}\n' >> "$tmp/spec.json"
cp "$ws/run.sh" "$ws/run.sh.real"
(cd "$ws" && git add -A && git -c user.email=b@b -c user.name=b commit -qm real)
printf '{"hypotheses":[{"name":"baseline"},{"name":"h1","edits":[{"path":"x.txt","content":"x\\n"}]}]}\n' > "$tmp/next.json"

# run HOME JSONOUT ARGS...: shadow in HOME with Go's caches at their
# defaults; prints "CPU WALL" seconds.
run() {
  local h=$1 out=$2; shift 2
  /usr/bin/time -f '%U %S %e' -o "$tmp/t" env -u GOCACHE -u GOMODCACHE -u GOPATH -u XDG_CACHE_HOME -u XDG_STATE_HOME -u GOFLAGS \
    HOME="$h" GOTOOLCHAIN=local GOPROXY="file://$proxy" GOSUMDB=off "$shadow" --headless --json --no-record -C "$ws" "$@" >"$out" 2>/dev/null || true
  awk '{printf "%.3f %.3f\n", $1+$2, $3}' "$tmp/t"
}
fresh() { chmod -R u+w "$tmp/$1" 2>/dev/null || true; rm -rf "$tmp/$1"; mkdir -p "$tmp/$1"; echo "$tmp/$1"; }
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); h=(r.get("warm") or {}).get("home") or {}; print(*[h.get(k,0) for k in sys.argv[2:]] if sys.argv[2]!="duration_ms" else [r["duration_ms"]])' "$@"; }

: > "$tmp/rows"
for i in $(seq "$pairs"); do
  h=$(fresh on); on=$(run "$h" "$tmp/on.json" "$tmp/spec.json" -- sh run.sh)
  h2=$(fresh off); off=$(run "$h2" "$tmp/off.json" --no-warm "$tmp/spec.json" -- sh run.sh)
  # The next run's baseline downloads what the candidates did: from the
  # layer now (FETCH=1 for every hypothesis of it).
  next=$(FETCH=1 run "$h" "$tmp/next.out" "$tmp/next.json" -- sh run.sh.real)
  nextoff=$(FETCH=1 run "$h2" "$tmp/nextoff.out" --no-warm "$tmp/next.json" -- sh run.sh.real)
  echo "$on $off $next $nextoff $(field "$tmp/on.json" downloads downloads_refused downloads_ms promote_ms) $(field "$tmp/on.json" duration_ms)" >> "$tmp/rows"
done
# rows: onCPU onWall offCPU offWall nextCPU nextWall nextoffCPU nextoffWall downloads refused dl_ms promote_ms duration_ms
col() { awk -v c="$1" '{print $c}' "$tmp/rows" | median; }
printf 'checked downloads kept: %s files (%s refused); checking and keeping them: median %s ms of a %s ms run (promote_ms of the baseline %s)\n' \
  "$(col 9)" "$(col 10)" "$(col 11)" "$(col 13)" "$(col 12)"
printf 'run CPU with them %.2fs, with --no-warm %.2fs: ratio %.3fx (wall %.3fx)\n' "$(col 1)" "$(col 3)" \
  "$(awk '{print $1/$3}' "$tmp/rows" | median)" "$(awk '{print $2/$4}' "$tmp/rows" | median)"
printf 'the next run (2 hypotheses of go mod download): CPU %.2fs from the layer, %.2fs with --no-warm: ratio %.3fx\n' "$(col 5)" "$(col 7)" \
  "$(awk '{print $5/$7}' "$tmp/rows" | median)"
