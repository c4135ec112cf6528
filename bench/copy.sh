#!/usr/bin/env bash
# Prints copy mode's cost figures (docs/figures.md):
#   1. copy cost per hypothesis (the report's copy_ms / hypotheses, and
#      bytes) on a small project, on one with ~160 MB of node_modules and on
#      the 100k-file workspace of bench/overhead.sh: a plain copy on this
#      machine's filesystem and, as root with xfsprogs/btrfs-progs, reflinks
#      on loop-mounted XFS and btrfs images;
#   2. wall time of 4 hypotheses (pytest, one 1 s test) in copy mode against
#      in-place mode on the same project;
#   3. whether copying target/ buys cargo anything at the copy's new path:
#      an edit's rebuild with target/ copied against --copy-skip target.
# usage: bench/copy.sh [ROUNDS]   (default 3; medians; SHORT=1: one round,
#   the small workspace on the plain filesystem, a smaller crate)
#   BENCH_WS="small node 100k" and BENCH_FS="plain ext4 xfs btrfs" pick a
#   subset (plain: where $TMPDIR is; the others: loop-mounted images);
#   BENCH_ONLY_COPY=1 stops after the copy costs.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
fns=1500
if short; then rounds=1 fns=100 BENCH_WS=${BENCH_WS:-small} BENCH_FS=${BENCH_FS:-plain}; fi
BENCH_WS=${BENCH_WS:-small node 100k}
BENCH_FS=${BENCH_FS:-plain ext4 xfs btrfs}
repo=$(pwd)
tmp=$(mktemp -d /tmp/shadow-copybench.XXXXXX)
cleanup() {
  for m in "$tmp"/mnt-*; do
    if [ -d "$m" ] && mountpoint -q "$m"; then umount "$m" || true; fi
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"

field() { python3 -c 'import sys, json; r = json.load(sys.stdin); print(r.get(sys.argv[1]) or 0)' "$1"; }
hypdur() { python3 -c 'import sys, json; r = json.load(sys.stdin); print(max(h["duration_ms"] for h in r["hypotheses"]))'; }

spec_n() { # spec_n N > file: N hypotheses, each editing one file
  printf '{"hypotheses":['
  for i in $(seq "$1"); do [ "$i" -gt 1 ] && printf ','; printf '{"name":"h%d","edits":[{"path":"edit-me.txt","content":"%d\\n"}]}' "$i" "$i"; done
  printf ']}\n'
}
spec_n 4 > "$tmp/n4.json"

mkfiles() { # mkfiles DIR N: N small files in 1000 dirs, a git repository
  mkdir -p "$1"
  python3 -c '
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("%d\n" % i)
' "$1" "$2"
  echo x > "$1/edit-me.txt"
  (cd "$1" && git init -q . && git add -A >/dev/null && git -c user.email=b@b -c user.name=b commit -qm init)
}
mknode() { # mknode DIR: a small project with node_modules (the npm fixture, twice: ~160 MB)
  mkfiles "$1" 50
  fixture="$repo/testdata/runners/js/node_modules"
  if [ ! -d "$fixture" ]; then npm ci --prefix "$repo/testdata/runners/js" --no-audit --no-fund --loglevel=error >/dev/null; fi
  cp -a "$fixture" "$1/node_modules"
  cp -a "$fixture" "$1/node_modules/.second-copy"
}

# copy_cost ROOT LABEL: per-hypothesis copy cost of each workspace in ROOT.
copy_cost() {
  local root=$1 label=$2
  for ws in $BENCH_WS; do
    : > "$tmp/ms"
    local bytes=0
    for i in $(seq "$rounds"); do
      rc=0; out=$(XDG_STATE_HOME="$root/state" "$shadow" --headless --json --no-record --mode copy -j 1 -C "$root/$ws" "$tmp/n4.json" -- true 2>"$tmp/err") || rc=$?
      BENCH_LAST=$tmp/err checked "$rc" shadow --mode copy in "$root/$ws"
      echo "$out" | field copy_ms | awk '{print $1/4}' >> "$tmp/ms"
      bytes=$(echo "$out" | field copy_bytes)
    done
    awk -v l="$label" -v w="$ws" -v ms="$(median < "$tmp/ms")" -v b="$bytes" -v f="$(find "$root/$ws" | wc -l)" \
      'BEGIN{printf "%-16s %-6s %7d entries %8.1f MB: %8.1f ms per hypothesis\n", l, w, f, b/4/1048576, ms}'
  done
}

populate() { # populate ROOT
  case " $BENCH_WS " in *" small "*) mkfiles "$1/small" 1000;; esac
  case " $BENCH_WS " in *" node "*) mknode "$1/node";; esac
  case " $BENCH_WS " in *" 100k "*) mkfiles "$1/100k" 100000;; esac
}

echo "== 1. copy cost per hypothesis (4 hypotheses of \`true\`, -j 1, median of $rounds)"
mkdir -p "$tmp/plain"
if [[ " $BENCH_FS " == *" plain "* ]]; then
  populate "$tmp/plain"
  fs=$(df -T "$tmp/plain" | awk 'NR==2{print $2}')
  copy_cost "$tmp/plain" "$fs (plain copy)"
fi
# Loop-mounted images: XFS and btrfs share blocks; ext4 on a loop device
# is the plain copy measured the same way (the image's writes go through
# the same page cache), so the two can be compared.
for kind in ext4 xfs btrfs; do
  [[ " $BENCH_FS " == *" $kind "* ]] || continue
  mkfs=$(command -v "mkfs.$kind" || true)
  if [ "$(id -u)" != 0 ] || [ -z "$mkfs" ]; then
    pkg=xfsprogs; [ "$kind" = btrfs ] && pkg=btrfs-progs; [ "$kind" = ext4 ] && pkg=e2fsprogs
    echo "$kind reflink: skipped (needs root and mkfs.$kind: apt-get install $pkg)"
    continue
  fi
  img="$tmp/$kind.img"; mnt="$tmp/mnt-$kind"
  truncate -s 3G "$img"
  case $kind in
    xfs) "$mkfs" -q -m reflink=1 "$img" ;;
    ext4) "$mkfs" -q -F -N 1000000 "$img" ;; # 100k files, their git objects and a copy
    *) "$mkfs" -q "$img" >/dev/null ;;
  esac
  mkdir -p "$mnt"
  if ! mount -o loop "$img" "$mnt" 2>"$tmp/mount.err"; then
    echo "$kind reflink: skipped (loop mount refused: $(cat "$tmp/mount.err"))"
    continue
  fi
  populate "$mnt"
  label="$kind loop (reflink)"; [ "$kind" = ext4 ] && label="ext4 loop (plain)"
  copy_cost "$mnt" "$label"
done

[ -n "${BENCH_ONLY_COPY:-}" ] && exit 0

echo "== 2. 4 hypotheses, pytest with one 1 s test: copy mode against in-place"
py="$tmp/py"
mkfiles "$py" 1000
printf 'def add(a, b):\n    return a - b\n' > "$py/calc.py"
printf 'import time\nfrom calc import add\n\ndef test_add():\n    time.sleep(1)\n    assert add(2, 3) == 5\n' > "$py/test_calc.py"
printf '{"hypotheses":[%s]}\n' "$(for i in 1 2 3 4; do [ $i -gt 1 ] && printf ','; printf '{"name":"h%d","edits":[{"path":"calc.py","content":"def add(a, b):\\n    return a + %d - %d + b\\n"}]}' $i $i $i; done)" > "$tmp/py4.json"
python=python3
/usr/bin/python3 -c 'import pytest' 2>/dev/null && python=/usr/bin/python3
for mode in copy inplace; do
  : > "$tmp/wall"
  passed=0
  for i in $(seq "$rounds"); do
    s=$(now)
    if XDG_STATE_HOME="$tmp/plain/state" "$shadow" --headless --no-record --mode "$mode" -j 4 -C "$py" "$tmp/py4.json" -- "$python" -m pytest -q -p no:cacheprovider >"$tmp/out" 2>&1; then passed=$((passed+1)); else BENCH_LAST=$tmp/out checked $? "$mode" pytest run; fi
    awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.3f\n", b-a}' >> "$tmp/wall"
  done
  printf '%-8s %.2f s wall for 4 hypotheses, -j 4 on %d cores (%d of %d runs had a winner)\n' "$mode" "$(median < "$tmp/wall")" "$(nproc)" "$passed" "$rounds"
done

echo "== 3. cargo: does copying target/ pay at the copy's new path?"
command -v cargo >/dev/null || skip "part 3: no cargo (https://rustup.rs)"
# A dependency outside the workspace (as a registry crate in ~/.cargo is):
# its path is the same from the copy. A crate inside the workspace is
# reached at the copy's path.
dep="$tmp/cargo-dep"; app="$tmp/cargo-app"
mkdir -p "$dep/src" "$app/src" "$app/inner/src"
python3 - "$dep/src/lib.rs" "$app/inner/src/lib.rs" "$fns" <<'EOF'
import sys
for p in sys.argv[1:3]:
    with open(p, "w") as f:
        for i in range(int(sys.argv[3])):
            f.write("pub fn f%d(x: u64) -> u64 { let v: Vec<u64> = (0..x).map(|i| i * %d).collect(); v.iter().sum() }\n" % (i, i))
EOF
printf '[package]\nname = "dep"\nversion = "0.1.0"\nedition = "2021"\n' > "$dep/Cargo.toml"
printf '[package]\nname = "inner"\nversion = "0.1.0"\nedition = "2021"\n' > "$app/inner/Cargo.toml"
printf '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ndep = { path = "%s" }\ninner = { path = "inner" }\n' "$dep" > "$app/Cargo.toml"
printf 'pub fn run() -> u64 { dep::f1(3) + inner::f1(3) }\n' > "$app/src/lib.rs"
(cd "$app" && cargo build --offline -q)
printf '{"hypotheses":[{"name":"edit","edits":[{"path":"src/lib.rs","content":"pub fn run() -> u64 { dep::f2(3) + inner::f2(3) }\\n"}]}]}\n' > "$tmp/cargo.json"
s=$(now); (cd "$app" && cargo build --offline -q); in_place=$(awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}')
for how in with-target skip-target; do
  extra=(); [ "$how" = skip-target ] && extra=(--copy-skip target)
  : > "$tmp/c"
  for i in $(seq "$rounds"); do
    XDG_STATE_HOME="$tmp/plain/state" "$shadow" --headless --json --no-record --mode copy "${extra[@]}" -C "$app" "$tmp/cargo.json" -- cargo build --offline -q 2>/dev/null | hypdur | awk '{print $1/1000}' >> "$tmp/c"
  done
  printf '%-12s cargo build of an edit in the copy: %.2f s (copy included; target/ is %s)\n' "$how" "$(median < "$tmp/c")" "$(du -sh "$app/target" | cut -f1)"
done
echo "(the same build in the checkout, nothing changed: ${in_place} s)"
