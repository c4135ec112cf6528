#!/usr/bin/env bash
# An agent's loop on a real Go module and a real npm project (docs/
# figures.md, "An agent's loop").
#
# go: three rounds of four candidates on google/go-cmp, the winner
# applied each round (`--apply`), against the same loop run bare in a
# checkout (each candidate edited in, `go test` run, edit reverted; the
# winner then applied). Each candidate touches a different package, so a
# round's candidates compile only their own package and what the applied
# winners changed, once the home layer has the baseline's build (docs/
# modes.md "The home layer"). Printed per round: CPU seconds (user +
# system of everything each side ran) and wall, shadow against bare, and
# shadow's ratio; both sides share one $HOME whose Go cache is warm for
# the initial code (the user has built it before), each in a checkout of
# its own. ROUNDS (default 3) rounds, taken alternately, bare first.
# go-cmp comes from the module cache or the module proxy.
#
# npm: the same loop on minimist 1.2.8 (its npm tarball ships its tape
# tests; tape 5.6.3 installed by npm from the registry, once, into
# ${SHADOW_BENCH_CACHE:-/var/tmp/shadow-bench}): `tape test/*.js`, each
# round a reproduction test/agentloop_rR.js and four candidates appending
# an export to index.js, only the first right. Nothing is compiled there:
# the figure is what shadow's sandboxes cost against the bare loop.
#
# usage: bench/agentloop.sh [ROUNDS]   (SHORT=1: one round, the go side on
#   the caller's own, warm, Go build cache instead of a $HOME's)
#   AGENTLOOP="go npm" picks the projects.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
. bench/lib.sh
if short; then rounds=1; fi
tmp=$(mktemp -d /tmp/shadow-bench-agentloop.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
shadow_build "$tmp/bin-shadow"
shadow="$tmp/bin-shadow"
ecos=${AGENTLOOP:-go npm}
cache=${SHADOW_BENCH_CACHE:-/var/tmp/shadow-bench}
# nocache: how a command's environment loses the caller's Go build cache
# (GOCACHE then defaults to $home's); SHORT=1 keeps it, so that a round
# costs a warm build and not the standard library's.
nocache="-u GOCACHE"
if short; then nocache="GOCACHE=$(go env GOCACHE)"; fi
export nocache tmp home
home=$tmp/home
mkdir -p "$home"
inhome() { env -u GOMODCACHE -u GOPATH -u XDG_CACHE_HOME -u XDG_STATE_HOME -u GOFLAGS $nocache HOME="$home" GOTOOLCHAIN=local GOPROXY=off "$@"; }
# cpuwall CMD...: "CPU WALL" seconds of CMD (in $home) and all it waited for.
cpuwall() {
  local rc=0
  /usr/bin/time -f '%U %S %e' -o "$tmp/t" env -u GOMODCACHE -u GOPATH -u XDG_CACHE_HOME -u XDG_STATE_HOME -u GOFLAGS $nocache \
    HOME="$home" GOTOOLCHAIN=local GOPROXY=off "$@" >"$tmp/out" 2>&1 || rc=$?
  BENCH_LAST=$tmp/out checked "$rc" "$@"
  awk '{printf "%.3f %.3f\n", $1+$2, $3}' "$tmp/t"
}
if [[ " $ecos " == *" go "* ]]; then
echo "== go: google/go-cmp v0.7.0, go test -count=1 ./cmp/..."
src=$(GOFLAGS=-mod=mod go mod download -json github.com/google/go-cmp@v0.7.0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
for side in bare shadow; do
  cp -r "$src" "$tmp/$side" && chmod -R u+w "$tmp/$side"
  (cd "$tmp/$side" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
done
cmd=("${gocmp_test[@]}")
# The user has built the initial code once: the shared cache is warm for it.
(cd "$tmp/bare" && inhome go mod download >/dev/null 2>&1 || true; cd "$tmp/bare" && inhome "${cmd[@]}" >/dev/null 2>&1)

# Each round the agent first writes a reproduction into the checkout
# (cmp/agentloop_rR_test.go, calling agentLoopRRK1, which does not exist
# yet: every hypothesis without it fails to compile package cmp's
# tests); then candidate K appends a function agentLoopRRK<K> to one file
# of package K: only candidate 1 fixes the round, and wins.
export FILES="cmp/options.go cmp/internal/value/name.go cmp/cmpopts/equate.go cmp/internal/function/func.go"
files=($FILES)
# candidate WS R K: the content of candidate K's file in round R.
candidate() {
  python3 - "$@" $FILES <<'PY'
import sys
ws, r, k, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
src = open(ws + "/" + files[k - 1]).read()
body = "".join("\t_ = %d\n" % l for l in range(1, k))
sys.stdout.write(src + "\nfunc agentLoopR%dK%d() int {\n%s\treturn %d\n}\n" % (r, k, body, r))
PY
}
# spec WS R: the round's spec, a baseline and the four candidates.
spec() {
  local ws=$1 r=$2 k
  {
    printf '{"hypotheses":[{"name":"baseline"}'
    for k in 1 2 3 4; do
      printf ',{"name":"c%d","edits":[{"path":"%s","content":%s}]}' "$k" "${files[k-1]}" "$(candidate "$ws" "$r" "$k" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')"
    done
    printf ']}\n'
  } > "$tmp/spec-$r.json"
  echo "$tmp/spec-$r.json"
}
# bareround R: the loop without shadow, in the bare checkout.
bareround() {
  local r=$1 k f files=($FILES) cmd=("${gocmp_test[@]}")
  cd "$tmp/bare"
  for k in 1 2 3 4; do
    f=${files[k-1]}
    cp "$f" "$tmp/orig"
    candidate "$tmp/bare" "$r" "$k" > "$tmp/new" && cp "$tmp/new" "$f"
    inhome "${cmd[@]}" >/dev/null 2>&1 || true
    cp "$tmp/orig" "$f"
  done
  candidate "$tmp/bare" "$r" 1 > "$tmp/new" && cp "$tmp/new" "${files[0]}" # the winner
  cd - >/dev/null
}

export tmp home
export -f bareround candidate inhome
# repro R: the round's reproduction, in both checkouts.
repro() {
  local side
  for side in bare shadow; do
    printf 'package cmp\n\nimport "testing"\n\nfunc TestAgentLoopR%d(t *testing.T) {\n\tif agentLoopR%dK1() != %d {\n\t\tt.Fatal("round %d")\n\t}\n}\n' "$1" "$1" "$1" "$1" > "$tmp/$side/cmp/agentloop_r$1_test.go"
  done
}

printf '%-6s %10s %10s %10s %10s %8s\n' round bare_cpu shadow_cpu bare_wall shadow_wall cpu_x
for r in $(seq "$rounds"); do
  repro "$r"
  b=$(cpuwall bash -c "bareround $r")
  sp=$(spec "$tmp/shadow" "$r")
  s=$(cd "$tmp/shadow" && cpuwall "$shadow" --headless --apply -j 2 "$sp" -- "${cmd[@]}")
  if ! grep -q '^winner: c1' "$tmp/out"; then echo "round $r: shadow's winner is not c1:"; cat "$tmp/out"; exit 1; fi
  read -r bc bw <<<"$b"; read -r sc sw <<<"$s"
  export tmp home
export -f bareround candidate inhome
printf '%-6s %10s %10s %10s %10s %8.2f\n' "$r" "$bc" "$sc" "$bw" "$sw" "$(awk -v a="$bc" -v b="$sc" 'BEGIN{print b/a}')"
done
# Both checkouts hold the same code at the end: the loops did the same work.
if ! diff -r -q -x .git "$tmp/bare" "$tmp/shadow" >/dev/null; then echo "the two checkouts differ at the end:"; diff -r -q -x .git "$tmp/bare" "$tmp/shadow" | head; exit 1; fi
fi

if [[ " $ecos " == *" npm "* ]]; then
echo "== npm: minimist 1.2.8, tape test/*.js"
for t in node npm; do command -v "$t" >/dev/null || skip "npm side: no $t (apt-get install nodejs npm)"; done
fix="$cache/minimist-1.2.8"
if [ ! -x "$fix/node_modules/.bin/tape" ]; then
  rm -rf "$fix.part" && mkdir -p "$fix.part" "$cache/npm-src"
  tgz=$(cd "$cache/npm-src" && npm pack --silent minimist@1.2.8) || { echo "npm pack minimist@1.2.8 failed (npm registry unreachable?)" >&2; exit 1; }
  tar xzf "$cache/npm-src/$tgz" -C "$fix.part" --strip-components=1
  # Its devDependencies are its maintainer's tooling (lint, coverage,
  # release): the tests need tape alone.
  python3 - "$fix.part/package.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["devDependencies"] = {"tape": "5.6.3"}
d["scripts"] = {"test": "tape test/*.js"}
json.dump(d, open(p, "w"), indent=2)
PY
  (cd "$fix.part" && npm install --no-audit --no-fund --loglevel=error >/dev/null) || { echo "npm install in $fix.part failed" >&2; exit 1; }
  mv "$fix.part" "$fix"
fi
for side in bare shadow; do
  cp -a "$fix" "$tmp/npm-$side"
  printf 'node_modules/\n' > "$tmp/npm-$side/.gitignore"
  (cd "$tmp/npm-$side" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
done
ncmd=(node_modules/.bin/tape 'test/*.js')
# ncandidate WS R K: index.js with candidate K's export for round R.
ncandidate() {
  cat "$1/index.js"
  printf '\nmodule.exports.agentLoopR%d = function () { return %d; };\n' "$2" "$(( $3 == 1 ? $2 : $2 + $3 ))"
}
nspec() { # nspec WS R: the round's spec, a baseline and the four candidates
  local k
  {
    printf '{"hypotheses":[{"name":"baseline"}'
    for k in 1 2 3 4; do
      printf ',{"name":"c%d","edits":[{"path":"index.js","content":%s}]}' "$k" "$(ncandidate "$1" "$2" "$k" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')"
    done
    printf ']}\n'
  } > "$tmp/nspec-$2.json"
  echo "$tmp/nspec-$2.json"
}
nbareround() { # nbareround R: the loop without shadow, in the bare checkout
  local k
  cd "$tmp/npm-bare" || exit 1
  cp index.js "$tmp/norig"
  for k in 1 2 3 4; do
    ncandidate . "$1" "$k" > "$tmp/nnew" && cp "$tmp/nnew" index.js
    node_modules/.bin/tape 'test/*.js' >/dev/null 2>&1 || [ $? = 1 ] || exit 1 # 1: the tests failed
    cp "$tmp/norig" index.js
  done
  ncandidate . "$1" 1 > "$tmp/nnew" && cp "$tmp/nnew" index.js # the winner
}
export -f ncandidate nbareround
printf '%-6s %10s %10s %10s %10s %8s\n' round bare_cpu shadow_cpu bare_wall shadow_wall cpu_x
for r in $(seq "$rounds"); do
  for side in bare shadow; do
    printf "var test = require('tape');\nvar parse = require('../');\n\ntest('agent loop round %d', function (t) {\n\tt.equal(parse.agentLoopR%d(), %d);\n\tt.end();\n});\n" "$r" "$r" "$r" > "$tmp/npm-$side/test/agentloop_r$r.js"
  done
  b=$(cpuwall bash -c "nbareround $r")
  sp=$(nspec "$tmp/npm-shadow" "$r")
  s=$(cd "$tmp/npm-shadow" && cpuwall "$shadow" --headless --apply -j 2 "$sp" -- "${ncmd[@]}")
  if ! grep -q '^winner: c1' "$tmp/out"; then echo "npm round $r: shadow's winner is not c1:"; cat "$tmp/out"; exit 1; fi
  read -r bc bw <<<"$b"; read -r sc sw <<<"$s"
  printf '%-6s %10s %10s %10s %10s %8.2f\n' "$r" "$bc" "$sc" "$bw" "$sw" "$(awk -v a="$bc" -v b="$sc" 'BEGIN{print b/a}')"
done
if ! diff -r -q -x .git -x node_modules "$tmp/npm-bare" "$tmp/npm-shadow" >/dev/null; then echo "the two npm checkouts differ at the end:"; diff -r -q -x .git -x node_modules "$tmp/npm-bare" "$tmp/npm-shadow" | head; exit 1; fi
fi
