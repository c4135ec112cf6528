#!/usr/bin/env bash
# Where upper dirs live (--upper disk|ram; docs/figures.md), measured side
# by side in alternating rounds on a build-output-heavy hypothesis, median
# and interquartile range printed:
#   disk  the default: upper dirs under the state dir (here ext4 or
#         whatever holds $XDG_STATE_HOME), mounted volatile;
#   ram   --upper ram: a size-capped tmpfs per hypothesis, mounted inside
#         the sandbox's namespaces;
#   shm   the alternative considered: the state dir (and so the upper
#         dirs) on /dev/shm, one uncapped tmpfs shared with the machine;
#   bare  the command itself in the checkout, outputs removed afterwards.
# Workloads: 1. WRITE_MB of build outputs in 1 MiB files (default 500);
#            2. `cargo build` of a two-crate workspace from clean (a real
#               compiler's outputs: target/ of a few MB, many small files).
# usage: bench/upper.sh [ROUNDS] [WRITE_MB]   (defaults 7 and 500; SHORT=1:
#   one round of 100 MiB)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
mb=${2:-500}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
if short; then rounds=1 mb=${2:-100}; fi
tmp=$(mktemp -d /tmp/shadow-bench-upper.XXXXXX)
shm=$(mktemp -d /dev/shm/shadow-bench-upper.XXXXXX)
trap 'chmod -R u+w "$tmp" "$shm" 2>/dev/null; rm -rf "$tmp" "$shm"' EXIT
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"
stats() { sort -g "$1" | awk '{v[NR]=$1} END{m=(NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; q1=v[int((NR+3)/4)]; q3=v[int((3*NR+1)/4)]; printf "%.3f %.3f %.3f\n", m, q1, q3}'; }

ws="$tmp/ws"
mkdir -p "$ws/core/src" "$ws/app/src"
cat > "$ws/Cargo.toml" <<'EOF'
[workspace]
members = ["core", "app"]
resolver = "2"
EOF
cat > "$ws/core/Cargo.toml" <<'EOF'
[package]
name = "core"
version = "0.1.0"
edition = "2021"
EOF
cat > "$ws/app/Cargo.toml" <<'EOF'
[package]
name = "app"
version = "0.1.0"
edition = "2021"
[dependencies]
core = { path = "../core" }
EOF
python3 - "$ws/core/src/lib.rs" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(400):
        f.write("pub fn f%d(x: u64) -> u64 { x.wrapping_mul(%d).rotate_left(%d) ^ %d }\n" % (i, i + 3, i % 63, i))
    f.write("#[cfg(test)]\nmod tests { #[test] fn t() { assert_eq!(super::f1(0), 1); } }\n")
EOF
echo 'fn main() { println!("{}", core::f7(3)); }' > "$ws/app/src/main.rs"
printf 'target/\nbuild/\n' > "$ws/.gitignore"
(cd "$ws" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
echo '{"hypotheses":[{"name":"baseline"}]}' > "$tmp/one.json"

write=(sh -c "mkdir -p build && i=0; while [ \$i -lt $mb ]; do head -c 1048576 /dev/zero > build/o\$i.bin || exit 1; i=\$((i+1)); done")
cargo_build=(sh -c 'CARGO_TARGET_DIR=target cargo build -q --offline --workspace --tests && cargo build -q --offline --release')

side() { # side NAME CMD...: one measurement of NAME
  local name=$1; shift
  case $name in
  bare) (cd "$ws" && elapsed "$@"); rm -rf "$ws/build" "$ws/target" ;;
  disk) XDG_STATE_HOME="$tmp/state" elapsed "$shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- "$@" ;;
  ram)  XDG_STATE_HOME="$tmp/state" elapsed "$shadow" --headless --no-record --upper ram -C "$ws" "$tmp/one.json" -- "$@" ;;
  shm)  XDG_STATE_HOME="$shm/state" TMPDIR="$shm" elapsed "$shadow" --headless --no-record -C "$ws" "$tmp/one.json" -- "$@" ;;
  esac
}

bench() { # bench TITLE CMD...
  local title=$1; shift
  echo "== $title, $rounds alternating rounds"
  # One warm-up of each side: the probe cache, the page cache of the tools.
  for s in bare disk ram shm; do side "$s" "$@" >/dev/null; done
  for s in bare disk ram shm; do : > "$tmp/t.$s"; done
  for i in $(seq "$rounds"); do
    for s in bare disk ram shm; do side "$s" "$@" >> "$tmp/t.$s"; done
  done
  read -r bm _ _ < <(stats "$tmp/t.bare")
  for s in bare disk ram shm; do
    read -r m q1 q3 < <(stats "$tmp/t.$s")
    awk -v s="$s" -v m="$m" -v a="$q1" -v b="$q3" -v bm="$bm" 'BEGIN{printf "%-5s %7.3fs (IQR %.3f-%.3f)  %.2fx bare\n", s, m, a, b, m/bm}'
  done
}

bench "1. $mb MiB of build outputs (1 MiB files)" "${write[@]}"
if command -v cargo >/dev/null; then
  bench "2. cargo build --workspace --tests + --release of a two-crate workspace, from clean" "${cargo_build[@]}"
fi
# The ENOSPC case: a cap smaller than what the hypothesis writes.
echo "== 3. a hypothesis that fills its RAM upper (--upper-size 64M, writes $mb MiB)"
# (shadow exits 1 then: no hypothesis passed)
{ XDG_STATE_HOME="$tmp/state" "$shadow" --headless --json --no-record --upper ram --upper-size 64M -C "$ws" "$tmp/one.json" -- "${write[@]}" || [ $? = 1 ]; } |
  python3 -c 'import json,sys; r=json.load(sys.stdin); h=r["hypotheses"][0]; print("status", h["status"], "exit", h.get("exit_code"), "|", (h.get("error") or "")[:200])'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
