#!/usr/bin/env bash
# `ai` side by side with aichat on the same fake server (benches/fake_openai.py), same scenarios
# as perf.sh: median wall and mean CPU ms (hyperfine), median peak RSS of five runs (GNU time).
# aichat runs its tool through a script in its functions dir, as llm-functions tools do.
# Needs aichat: cargo install aichat --version 0.30.0 --locked --root ~/.cache/peers
# Usage: benches/vs-aichat.sh [path/to/ai] [path/to/aichat] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
ai=$(realpath -m "${1:-target/dist/ai}")
aichat=$(realpath -m "${2:-$HOME/.cache/peers/bin/aichat}")
runs=${3:-20}
[[ -x $ai && -x $aichat ]] || { echo "need $ai and $aichat" >&2; exit 2; }

source benches/fake_server.sh

mkdir -p "$work"/{home,config,data,state,cache,project} "$work/aichat/functions/bin"
for i in 0 1 2; do echo "file $i" > "$work/project/t$i"; done
cat > "$work/aichat/config.yaml" <<EOF
model: local:text-200
stream: true
save: false
highlight: false
function_calling: true
use_tools: filesystem
clients:
  - type: openai-compatible
    name: local
    api_base: http://127.0.0.1:$port/v1
    api_key: bench
    models:
      - name: text-200
      - name: tools-1
        supports_function_calling: true
      - name: tools-2
        supports_function_calling: true
EOF
cat > "$work/aichat/functions/functions.json" <<'EOF'
[{"name": "filesystem", "description": "Read a file.",
  "parameters": {"type": "object", "properties": {"operation": {"type": "string"},
    "path": {"type": "string"}}, "required": ["operation", "path"]}}]
EOF
printf '#!/bin/sh\necho "$1" > "$LLM_OUTPUT"\n' > "$work/aichat/functions/bin/filesystem"
chmod +x "$work/aichat/functions/bin/filesystem"
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data \
  XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache AICHAT_CONFIG_DIR=$work/aichat
export SWEBASH_AI_BASE_URL=http://127.0.0.1:$port/v1 SWEBASH_AI_API_KEY=bench
cd "$work/project"

names=("--version" "one-shot, 200 streamed tokens" "one native tool round trip" "3-iteration tool run")
ai_cmds=("$ai --version" "$ai -q -m text-200 hello" "$ai -q -m tools-1 read t0" "$ai -q -m tools-2 read t0 and t1")
peer_cmds=("$aichat --version" "$aichat -m local:text-200 hello" "$aichat -m local:tools-1 read t0" "$aichat -m local:tools-2 read t0 and t1")

peak_rss() {
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f %M -o "$work/rss" $1 > /dev/null 2>&1
    cat "$work/rss"
  done | sort -n | sed -n 3p
}

for i in "${!names[@]}"; do
  # Each must succeed once before it is timed.
  ${ai_cmds[$i]} > /dev/null 2>&1 || { echo "failed: ${ai_cmds[$i]}" >&2; exit 1; }
  ${peer_cmds[$i]} > /dev/null 2>&1 < /dev/null || { echo "failed: ${peer_cmds[$i]}" >&2; exit 1; }
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/h$i.json" \
    "${peer_cmds[$i]}" "${ai_cmds[$i]}" > /dev/null
  echo "$(peak_rss "${peer_cmds[$i]}") $(peak_rss "${ai_cmds[$i]}")" > "$work/rss$i"
done

python3 - "$work" "$ai" "$aichat" "${names[@]}" <<'EOF'
import json, os, sys
work, ai, peer, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
print(f"binary size: aichat {os.path.getsize(peer) / 1e6:.1f} MB, ai {os.path.getsize(ai) / 1e6:.1f} MB\n")
print("| scenario | aichat wall / CPU ms | ai wall / CPU ms | wall ratio | peak RSS MB aichat / ai |")
print("|---|---|---|---|---|")
for i, name in enumerate(names):
    peer_r, ai_r = json.load(open(f"{work}/h{i}.json"))["results"]
    cell = lambda r: f"{r['median'] * 1e3:.1f} / {(r['user'] + r['system']) * 1e3:.1f}"
    rss = [int(x) / 1024 for x in open(f"{work}/rss{i}").read().split()]
    print(f"| {name} | {cell(peer_r)} | {cell(ai_r)} | {ai_r['median'] / peer_r['median']:.2f} "
          f"| {rss[0]:.1f} / {rss[1]:.1f} |")
EOF
