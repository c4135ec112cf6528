#!/usr/bin/env bash
# The article's own fixture (/work/shared/reference: a one-function crate
# whose add subtracts, and three candidate fixes), run the two ways an
# agent can: the in-tree loop (write a candidate into the checkout, cargo
# test, revert; three times) against one shadow run of the three as
# hypotheses. Side by side in alternating pairs, warm target/; medians of
# the wall clock and of the CPU time (user + system of everything each
# side ran). The target: shadow at most the loop's CPU and below its
# wall.
# usage: bench/article.sh [PAIRS]   (default 7; SHORT=1: one pair)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-7}
. bench/lib.sh
if short; then pairs=1; fi
command -v cargo >/dev/null || skip "no cargo (https://rustup.rs)"
tmp=$(mktemp -d /tmp/shadow-bench-article.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state"
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"

ws="$tmp/fixture"
mkdir -p "$ws/src" "$tmp/hyp"
printf '[package]\nname = "shadow-fixture"\nversion = "0.1.0"\nedition = "2021"\n' > "$ws/Cargo.toml"
lib() { printf 'pub fn add(a: i32, b: i32) -> i32 {\n    %s\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() { assert_eq!(add(2, 3), 5); }\n    #[test]\n    fn adds_negative() { assert_eq!(add(-2, -3), -5); }\n}\n' "$1"; }
lib 'a - b' > "$ws/src/lib.rs"
lib 'a + b' > "$tmp/hyp/plus.rs"
lib 'a * b' > "$tmp/hyp/mul.rs"
lib '(a + b).clamp(i32::MIN, i32::MAX)' > "$tmp/hyp/clamp.rs"
(cd "$ws" && git init -q . && printf 'target/\n' > .gitignore && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)
printf '{"hypotheses":[{"name":"plus","edits":[{"path":"src/lib.rs","file":"%s"}]},{"name":"mul","edits":[{"path":"src/lib.rs","file":"%s"}]},{"name":"clamp","edits":[{"path":"src/lib.rs","file":"%s"}]}]}\n' \
  "$tmp/hyp/plus.rs" "$tmp/hyp/mul.rs" "$tmp/hyp/clamp.rs" > "$tmp/spec.json"

loop() {
  cd "$ws"
  for h in plus mul clamp; do
    cp "$tmp/hyp/$h.rs" src/lib.rs
    cargo test --offline -q >/dev/null 2>&1 || true
    git checkout -q src/lib.rs
  done
}
# shadow's run must find the winner (plus): under SHORT=1 a run that did
# not fails the bench (lib.sh checked).
run_shadow() { "$shadow" --headless --no-record -C "$ws" "$tmp/spec.json" -- cargo test --offline >/dev/null 2>&1; }
export -f loop run_shadow; export ws tmp shadow
cputime() { local rc=0; /usr/bin/time -f '%U %S' -o "$tmp/cpu.t" bash -c "$1" >/dev/null 2>&1 || rc=$?; checked "$rc" "$1"; awk '{printf "%.4f\n", $1+$2}' "$tmp/cpu.t"; }

(cd "$ws" && cargo test --offline -q >/dev/null 2>&1) || true  # warm target/ (the checkout fails: add subtracts)
run_shadow || checked $? run_shadow
echo "== the article's fixture: 3 candidates of cargo test, in-tree loop against shadow, $pairs alternating pairs"
: > "$tmp/lw"; : > "$tmp/sw"; : > "$tmp/lc"; : > "$tmp/sc"
for i in $(seq "$pairs"); do
  elapsed bash -c loop >> "$tmp/lw"
  elapsed bash -c run_shadow >> "$tmp/sw"
  cputime loop >> "$tmp/lc"
  cputime run_shadow >> "$tmp/sc"
done
ratio() { paste "$1" "$2" | awk '{print $2/$1}' | median; }
printf 'wall: loop %.3fs, shadow %.3fs; ratio shadow/loop median %.3fx (target < 1)\n' "$(median < "$tmp/lw")" "$(median < "$tmp/sw")" "$(ratio "$tmp/lw" "$tmp/sw")"
printf 'cpu:  loop %.3fs, shadow %.3fs; ratio shadow/loop median %.3fx (target <= 1)\n' "$(median < "$tmp/lc")" "$(median < "$tmp/sc")" "$(ratio "$tmp/lc" "$tmp/sc")"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
