#!/usr/bin/env bash
# A new user's first hour, from a fresh clone of this repository (issue 14): the README's set-up
# on a port that is in use (a clean error and hint; the next start still prints the admin
# password), then on a free port, the README's tour (its curl block, run as written) and its CLI
# commands. Fails on any stack trace or "unexpected error" in their output.
#   .ci/new-user.sh            (uses this checkout's node_modules when there is one, else npm ci)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server_pid=
blocker_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  [ -n "$blocker_pid" ] && kill "$blocker_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "new-user: $*" >&2; [ -f "$work/all.txt" ] && tail -n 40 "$work/all.txt" >&2; exit 1; }
log() { tee -a "$work/all.txt"; }
step() { echo "== new user: $*"; }

step "git clone"
git clone --quiet "$repo" "$work/fieldops" || fail "git clone failed"
cd "$work/fieldops" || fail "no clone"
if [ -d "$repo/node_modules" ]; then
  # The installed packages, hard-linked (npm ci would build better-sqlite3 again: about one to two minutes on an idle machine, several when busy).
  cp -al "$repo/node_modules" node_modules || cp -a "$repo/node_modules" node_modules || fail "cannot copy node_modules"
  npm run --silent build >/dev/null || fail "npm run build failed"
else
  npm ci --no-audit --no-fund >/dev/null || fail "npm ci failed"
fi
export npm_config_update_notifier=false HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" XDG_DATA_HOME="$work/home/share" NO_COLOR=1
mkdir -p "$HOME"
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
fieldops() { node "$work/fieldops/bin/fieldops.js" "$@"; }

step "npm start on a port in use"
port=$(free_port)
node -e "require('net').createServer().listen($port,'127.0.0.1')" &
blocker_pid=$!
sleep 0.5
PORT=$port npm start >"$work/busy.txt" 2>&1
busy_rc=$?
log <"$work/busy.txt"
[ "$busy_rc" -ne 0 ] || fail "npm start on a port in use exited 0"
grep -q "^error: port $port is already in use" "$work/busy.txt" || fail "no clear error for a port in use"
grep -q '^hint: ' "$work/busy.txt" || fail "no hint for a port in use"
kill "$blocker_pid"; wait "$blocker_pid" 2>/dev/null; blocker_pid=

step "npm start on the free port"
# The port freed above (8000, the README's, may be taken on a CI machine: the tour reads BASE).
PORT=$port npm start >"$work/serve.txt" 2>&1 &
server_pid=$!
for _ in $(seq 1 60); do grep -q 'listening on' "$work/serve.txt" && break; sleep 0.5; done
grep -q 'listening on' "$work/serve.txt" || { log <"$work/serve.txt"; fail "the server did not start"; }
grep -q 'admin password (shown only this once): ' "$work/serve.txt" || { log <"$work/serve.txt"; fail "the start after a failed first start printed no admin password"; }
BASE=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/serve.txt" | head -n 1)
export BASE

step "the README tour (its curl block, as written)"
awk '/^## A short tour/{t=1} t&&/^```sh/{c=1;next} c&&/^```/{exit} c' README.md >"$work/tour.sh"
[ -s "$work/tour.sh" ] || fail "no tour block in the README"
bash -e "$work/tour.sh" >"$work/tour.txt" 2>&1 || { log <"$work/tour.txt"; fail "the tour failed"; }
log <"$work/tour.txt" >/dev/null
grep -q 'HTTP/1.1 304' "$work/tour.txt" || fail "the conditional GET did not answer 304"
grep -q 'Wanjiru Kamau' "$work/tour.txt" || fail "trackedby lists nobody for the demo ranger"
grep -q '200 image/svg+xml' "$work/tour.txt" || fail "the icon is not served"

step "the README's administration and CLI commands"
awk '/^Administration works directly on the database/{t=1} t&&/^```sh/{c=1;next} c&&/^```/{exit} c' README.md >"$work/admin.sh"
awk '/^## The CLI/{t=1} t&&/^```sh/{c=1;next} c&&/^```/{exit} c' README.md >"$work/cli.sh"
[ -s "$work/admin.sh" ] && [ -s "$work/cli.sh" ] || fail "no admin or CLI block in the README"
# As written, except: `npx fieldops` is this clone's binary, the server is the one started
# above, and the prompts read standard input.
adapt() {
  sed -e "s#npx fieldops#node $work/fieldops/bin/fieldops.js#g" -e "s#http://127.0.0.1:8000#$BASE#g" \
    -e 's#^\(.* login .*--username ranger\)#echo Demo-Acacia-Patrol-2026 | \1 --password-stdin#' \
    -e 's#^\(.* set-password --username [a-z.]*\)#echo Another-Passphrase-42 | \1 --password-stdin#' "$1"
}
adapt "$work/admin.sh" >"$work/admin.run.sh"
adapt "$work/cli.sh" >"$work/cli.run.sh"
bash -e "$work/admin.run.sh" >"$work/admin.txt" 2>&1 || { log <"$work/admin.txt"; fail "a README admin command failed"; }
log <"$work/admin.txt" >/dev/null
while IFS= read -r line; do
  [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
  out=$(bash -c "$line" 2>&1); rc=$?
  printf '$ %s\n%s\n' "$line" "$out" | log >/dev/null
  case "$line" in
    *" lint "*) [ "$rc" -eq 1 ] || fail "the README's lint example should exit 1 (broken fixtures), got $rc" ;;
    *) [ "$rc" -eq 0 ] || fail "README command failed ($rc): $line" ;;
  esac
done <"$work/cli.run.sh"
grep -q 'replaying 24 lines' "$work/all.txt" || fail "replay did not say how long it takes"

step "stop the server (SIGINT to npm start)"
kill -INT "$server_pid"
for _ in $(seq 1 40); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.25; done
kill -0 "$server_pid" 2>/dev/null && fail "npm start did not stop on SIGINT"
server_pid=
log <"$work/serve.txt" >/dev/null
grep -q 'fieldops: stopped' "$work/serve.txt" || fail "the server did not say it stopped"

if grep -nE '^\s+at .+[(:][0-9]+|unexpected error|Error: write EPIPE' "$work/all.txt"; then fail "a stack trace or an unexpected error in the output (above)"; fi
echo "new user: README set-up, tour and CLI commands work from a fresh clone"
