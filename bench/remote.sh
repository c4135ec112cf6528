#!/usr/bin/env bash
# The cost of going remote (docs/figures.md, "Remote nodes and shards"), on
# simulated nodes: each node is an sshd on a loopback port in its own mount
# namespace, with a fresh tmpfs over the directory holding the checkout and
# over root's state and cache dirs, so the checkout's path is empty "there"
# and nothing is installed.
#   1. one hypothesis of the demo (`go test ./...` with the fix) on one node
#      against the same run locally: first run (binary copied, full sync,
#      cold Go build cache there) and second run (mirror and caches warm);
#   2. 8 sleep-bound hypotheses (sleep 2) on two nodes of 2 slots each
#      against one node of 2 slots;
#   3. --freeze on a warm node against the same run without it.
# Loopback ssh measures shadow's fixed cost (handshake, sync, transfer),
# not a network's latency. Needs root (sshd, mount namespaces).
# usage: sudo bench/remote.sh [ROUNDS]   (default 3; SHORT=1: one round)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
. bench/lib.sh  # now, elapsed, median, short (from the repository root)
if short; then rounds=1; fi
if [ "$(id -u)" != 0 ]; then short && skip "bench/remote.sh needs root (an sshd per simulated node)"; echo "bench/remote.sh: needs root (an sshd per simulated node)" >&2; exit 2; fi
for t in jq rsync /usr/sbin/sshd unshare; do command -v "$t" >/dev/null || skip "no $t (apt-get install jq rsync openssh-server util-linux)"; done
tmp=$(mktemp -d /tmp/shadow-bench-remote.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do pkill -KILL -P "$p" 2>/dev/null || true; kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
export XDG_STATE_HOME="$tmp/state"
export PATH="/usr/local/go/bin:$PATH"
shadow_build "$tmp/shadow"
shadow="$tmp/shadow"
mkdir -p "$tmp/keys" "$tmp/co" /run/sshd /root/.cache /root/.local/state
ssh-keygen -q -t ed25519 -N '' -f "$tmp/keys/host"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/keys/id"
cp "$tmp/keys/id.pub" "$tmp/keys/authorized_keys"
: > "$tmp/keys/config"
port=22770
node() { # NAME: start a simulated node
  local name=$1 p=$((port++))
  cat > "$tmp/keys/$name.sshd" <<CFG
Port $p
ListenAddress 127.0.0.1
HostKey $tmp/keys/host
PidFile none
UsePAM no
StrictModes no
PermitRootLogin yes
AuthorizedKeysFile $tmp/keys/authorized_keys
PasswordAuthentication no
MaxSessions 50
LogLevel QUIET
SetEnv XDG_CACHE_HOME=$tmp/cache-$name
CFG
  printf 'Host %s\n  HostName 127.0.0.1\n  Port %s\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n' \
    "$name" "$p" "$tmp/keys/id" >> "$tmp/keys/config"
  # The node's caches start empty: a tmpfs of its own, outside $HOME (a
  # mount inside $HOME, as /root/.cache once was, is read-only in a
  # hypothesis: the seal's overlay of $HOME does not reach into it, and Go
  # could not make its build cache there), named by XDG_CACHE_HOME.
  mkdir -p "$tmp/cache-$name"
  unshare -m --propagation private sh -c 'for d in "$1" "$3" /root/.local/state; do mount -t tmpfs tmpfs "$d"; done; exec /usr/sbin/sshd -D -e -f "$2"' sh "$tmp/co" "$tmp/keys/$name.sshd" "$tmp/cache-$name" &
  pids+=($!)
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && return; sleep 0.05; done
  echo "sshd for $name did not start" >&2; exit 1
}
node n1; node n2; node n3
export SHADOW_SSH_COMMAND="ssh -F $tmp/keys/config"

run() { # OUT ARGS...: wall seconds of one shadow run; its JSON report in OUT
  local out=$1; shift
  local s; s=$(now)
  local rc=0
  "$shadow" --headless --json --no-record "$@" > "$out" 2>"$tmp/err" || rc=$?
  # A run without a winner: what each hypothesis did, for the message.
  [ "$rc" = 0 ] || jq -r '.hypotheses[]? | "\(.name) \(.status) \(.error // "")\n\(.output_tail // "")"' "$out" >> "$tmp/err" 2>/dev/null || true
  BENCH_LAST=$tmp/err checked "$rc" shadow "$@" >&2
  awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}'
}
sync_of() { jq -r '[.sync[]? | "\(.ms) ms \(.bytes) B"] | join(", ") | if . == "" then "-" else . end' "$1"; }

# The demo's workspace, a git checkout, and its winning hypothesis alone.
mkdir -p "$tmp/co/demo"
for f in demo/fixture/workspace/*.txt; do cp "$f" "$tmp/co/demo/$(basename "${f%.txt}")"; done
git -C "$tmp/co/demo" init -q && git -C "$tmp/co/demo" add -A && git -C "$tmp/co/demo" -c user.name=b -c user.email=b@b commit -qm demo
jq '{hypotheses: [.hypotheses[] | select(.name == "plus")]}' demo/fixture/spec/spec.json > "$tmp/plus.json"
gotest=(/usr/local/go/bin/go test ./...)

echo "== 1. one demo hypothesis (go test ./... with the fix): local against one node"
"$shadow" --headless --no-record -C "$tmp/co/demo" "$tmp/plus.json" -- "${gotest[@]}" >/dev/null 2>&1 || true  # warm the local cache
printf '%-28s %8s  %s\n' "run" "wall s" "sync"
for i in $(seq "$rounds"); do
  printf '%-28s %8s\n' "local #$i" "$(run "$tmp/l.json" -C "$tmp/co/demo" "$tmp/plus.json" -- "${gotest[@]}")"
done
t=$(run "$tmp/r1.json" --remote n1 -C "$tmp/co/demo" "$tmp/plus.json" -- "${gotest[@]}")
printf '%-28s %8s  %s  (winner: %s)\n' "n1 first (install, cold)" "$t" "$(sync_of "$tmp/r1.json")" "$(jq -r '.winner' "$tmp/r1.json")"
for i in $(seq "$rounds"); do
  t=$(run "$tmp/r2.json" --remote n1 -C "$tmp/co/demo" "$tmp/plus.json" -- "${gotest[@]}")
  printf '%-28s %8s  %s\n' "n1 again #$i (warm)" "$t" "$(sync_of "$tmp/r2.json")"
done

s=$(now); ssh -F "$tmp/keys/config" n1 true
printf '%-28s %8s  (one plain ssh session there: handshake and the login shell)\n' "ssh n1 true" "$(awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}')"

echo "== 2. 8 hypotheses of sleep 2: two nodes of 2 slots against one"
mkdir -p "$tmp/co/sleep" && echo x > "$tmp/co/sleep/f"
jq -n '{hypotheses: [range(8) | {name: "h\(.)", edits: [{path: "f", content: "\(.)\n"}]}]}' > "$tmp/sleep.json"
for n in n2 n3; do  # install, first sync
  printf 'first run on %s, command true (binary copied, full sync): %ss\n' "$n" "$(run "$tmp/w.json" --remote "$n" -C "$tmp/co/sleep" "$tmp/sleep.json" -- true)"
done
for i in $(seq "$rounds"); do
  t=$(run "$tmp/w.json" --remote n2 -C "$tmp/co/sleep" "$tmp/sleep.json" -- true)
  printf 'warm run on n2, 8 hypotheses of true: %ss (on the node: %s ms each)\n' "$t" "$(jq -r '[.hypotheses[].duration_ms] | map(tostring) | join(" ")' "$tmp/w.json")"
done
for i in $(seq "$rounds"); do
  one=$(run "$tmp/s1.json" -j 2 --remote n2 -C "$tmp/co/sleep" "$tmp/sleep.json" -- sleep 2)
  two=$(run "$tmp/s2.json" -j 4 --remote n2,n3 -C "$tmp/co/sleep" "$tmp/sleep.json" -- sleep 2)
  printf 'round %s: one node %ss, two nodes %ss (nodes used: %s)\n' "$i" "$one" "$two" "$(jq -r '[.hypotheses[].node] | group_by(.) | map("\(.[0])×\(length)") | join(" ")' "$tmp/s2.json")"
done

echo "== 3. --freeze on a warm node: the demo checkout, command true, with and without"
# --freeze copies the sources here first and syncs the mirror from the
# copy, with .git sent by a second rsync over the same master.
run "$tmp/f0.json" --remote n1 -C "$tmp/co/demo" "$tmp/plus.json" -- true >/dev/null  # warm
for i in $(seq "$rounds"); do
  plain=$(run "$tmp/f1.json" --remote n1 -C "$tmp/co/demo" "$tmp/plus.json" -- true)
  frozen=$(run "$tmp/f2.json" --freeze --remote n1 -C "$tmp/co/demo" "$tmp/plus.json" -- true)
  printf 'round %s: plain %ss (sync %s), --freeze %ss (sync %s, frozen=%s)\n' "$i" "$plain" "$(sync_of "$tmp/f1.json")" "$frozen" "$(sync_of "$tmp/f2.json")" "$(jq -r '.frozen' "$tmp/f2.json")"
done
