#!/usr/bin/env bash
# Counts what `go test ./...` runs: every Test, Benchmark, Example and Fuzz
# name `go test -list .` prints (go help testflag: -list runs no test, only
# names them), per package, for this tree or for a commit. A move between
# packages keeps a test's name, so two trees are compared by name: a name
# the first runs that the second does not is a test the move lost.
# usage: bench/testcount.sh [COMMIT]           count COMMIT's (default: this tree)
#        bench/testcount.sh COMMIT1 COMMIT2    both counts, and what COMMIT2 lost
#        (a COMMIT of "." is this tree, uncommitted changes included)
# Writes "PACKAGE NAME" lines of each tree to $TESTCOUNT_OUT/<commit>.txt
# when TESTCOUNT_OUT is set. Compiles every test binary: minutes, cold.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/shadow-testcount.XXXXXX)
trap 'for w in "$tmp"/tree-*; do [ -d "$w" ] && git worktree remove --force "$w" >/dev/null 2>&1; done; rm -rf "$tmp"' EXIT

# names COMMIT > file: "PACKAGE NAME" for every test of COMMIT's tree.
names() {
  local dir=.
  if [ "$1" != . ]; then
    dir="$tmp/tree-$1"
    git worktree add -q --detach "$dir" "$1" >/dev/null
  fi
  # go test prints each package's names together, then its "ok" line; a
  # package that fails to build or list has a FAIL line: the count would
  # be short, so it is an error.
  (cd "$dir" && go test -count=1 -list . ./... 2>&1) | awk '
    /^ok / { for (i = 0; i < n; i++) print $2, pending[i]; n = 0; next }
    /^\?/ { n = 0; next }
    /^(FAIL|---|panic:)/ || /\[build failed\]/ { print "testcount: " $0 > "/dev/stderr"; bad = 1; next }
    /^(Test|Benchmark|Example|Fuzz)/ { pending[n++] = $1; next }
    END { exit bad }'
}

kinds() { # kinds FILE: the total and the count per kind
  awk '{ if ($2 ~ /^Test/) k = "Test"; else if ($2 ~ /^Benchmark/) k = "Benchmark"; else if ($2 ~ /^Example/) k = "Example"; else if ($2 ~ /^Fuzz/) k = "Fuzz"; c[k]++; t++ }
    END { printf "%d (", t; s = ""; for (k in c) { printf "%s%s %d", s, k, c[k]; s = ", " } print ")" }' "$1"
}

a=${1:-.}
names "$a" > "$tmp/a"
[ -n "${TESTCOUNT_OUT:-}" ] && cp "$tmp/a" "$TESTCOUNT_OUT/$(basename "$a").txt"
echo "$a: $(kinds "$tmp/a")"
[ $# -lt 2 ] && exit 0
b=$2
names "$b" > "$tmp/b"
[ -n "${TESTCOUNT_OUT:-}" ] && cp "$tmp/b" "$TESTCOUNT_OUT/$(basename "$b").txt"
echo "$b: $(kinds "$tmp/b")"
# By name, counted (a name can be in more than one package).
awk '{ print $2 }' "$tmp/a" | sort > "$tmp/an"
awk '{ print $2 }' "$tmp/b" | sort > "$tmp/bn"
lost=$(comm -23 "$tmp/an" "$tmp/bn")
added=$(comm -13 "$tmp/an" "$tmp/bn")
echo "in $a, not in $b: $(printf '%s' "$lost" | grep -c . || true)"
[ -n "$lost" ] && printf '  %s\n' $lost
echo "in $b, not in $a: $(printf '%s' "$added" | grep -c . || true)"
[ -n "$added" ] && printf '  %s\n' $added
exit 0
