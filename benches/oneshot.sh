#!/usr/bin/env bash
# Measures what `ai` itself costs: `--version` start-up, and a one-shot 200-token streamed reply
# from a local server that answers at once. Needs hyperfine (Debian package) and python3.
# Usage: benches/oneshot.sh [path/to/ai]   (default: target/release/ai, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ai=${1:-target/release/ai}
[[ -x $ai ]] || cargo build --release
port=18089
python3 benches/sse_server.py "$port" 200 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do
  (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break
  sleep 0.1
done
export SWEBASH_AI_BASE_URL=http://127.0.0.1:$port/v1 SWEBASH_AI_MODEL=bench
hyperfine -N --warmup 10 --runs 200 "$ai --version"
hyperfine -N --warmup 5 --runs 100 "$ai --no-tools -q hello" "$ai -q hello"
