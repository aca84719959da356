#!/usr/bin/env bash
# How long `ai --json` takes to end against a server that accepts connections and never answers,
# with the default limits and with a small budget. Prints one line per case: seconds, exit code,
# and the result's status and error kind. Usage: benches/silent-server.sh [path/to/ai]
set -euo pipefail
ai=${1:-target/debug/ai}
port_file=$(mktemp)
python3 - "$port_file" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    conn, _ = s.accept()
    held.append(conn)
PY
server=$!
trap 'kill $server 2>/dev/null; rm -f "$port_file"' EXIT
while [[ ! -s $port_file ]]; do sleep 0.05; done
url="http://127.0.0.1:$(cat "$port_file")/v1"
home=$(mktemp -d)
run() {
  local label=$1
  shift
  local start end code out
  start=$(date +%s.%N)
  out=$(env -i PATH="$PATH" HOME="$home" XDG_DATA_HOME="$home/data" XDG_STATE_HOME="$home/state" \
    SWEBASH_AI_PROBE=off SWEBASH_AI_BASE_URL="$url" SWEBASH_AI_MODEL=m "$@" \
    "$ai" --json hi 2>/dev/null) && code=0 || code=$?
  end=$(date +%s.%N)
  printf '%-44s %6.1f s  exit %s  %s\n' "$label" "$(echo "$end - $start" | bc)" "$code" \
    "$(printf '%s' "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["status"], r["error"]["kind"])')"
}
run "defaults (first byte 30 s, 3 retries, 600 s)"
run "SWEBASH_AI_HTTP_TIMEOUT=5" SWEBASH_AI_HTTP_TIMEOUT=5
run "SWEBASH_AI_HTTP_FIRST_BYTE_TIMEOUT=2" SWEBASH_AI_HTTP_FIRST_BYTE_TIMEOUT=2
rm -rf "$home"
