#!/usr/bin/env bash
# Whether sandboxed calls stay as fast as the first and leave nothing behind: CALLS allowed
# commands in one run (each in the sandbox), then RUNS runs of one call each, against the
# benchmark server (benches/fake_openai.py), with HOME, ai's dirs and TMPDIR under one temp
# directory as in CI. Prints the first and last calls' times (from `--json`'s duration_ms) and
# what is left in temp afterwards.
# Usage: benches/sandbox.sh [path/to/ai] [calls] [runs]   (default: target/debug/ai, 990, 100;
# calls come ten to a model reply, and a run makes at most 100 requests: 990 at most)
set -euo pipefail
cd "$(dirname "$0")/.."
ai=$(realpath -m "${1:-target/debug/ai}")
calls=$(( ${2:-990} < 990 ? ${2:-990} : 990 ))
runs=${3:-100}
[[ -x $ai ]] || cargo build

source benches/fake_server.sh
mkdir -p "$work"/{home,config,data,state,cache,tmp,project}
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data \
  XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache TMPDIR=$work/tmp
export SWEBASH_AI_BASE_URL=http://127.0.0.1:$port/v1 SWEBASH_AI_API_KEY=bench \
  SWEBASH_AI_TOOLS_MAX_ITER=100 SWEBASH_AI_TOOLS_MAX_CALLS=$calls SWEBASH_AI_PROBE=off
cd "$work/project"

"$ai" --json -m "exec-$calls" "run them" > "$work/one.json"
python3 - "$work/one.json" "$calls" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
times = [c["duration_ms"] for c in result["tool_calls"]]
sandboxed = sum(1 for c in result["tool_calls"] if c["ok"])
first, last = times[:10], times[-10:]
print(f"one run, {len(times)} calls ({sandboxed} ok): first 10 average "
      f"{sum(first) / len(first):.1f} ms, last 10 average {sum(last) / len(last):.1f} ms")
PY
start=$(date +%s%N)
for i in $(seq "$runs"); do
  t0=$(date +%s%N)
  "$ai" --json -m exec-1 "run it" > /dev/null
  t=$(( ($(date +%s%N) - t0) / 1000000 ))
  [[ $i == 1 ]] && echo "separate runs: the first took $t ms"
done
echo "separate runs: the last ($runs) took $t ms; $(( ($(date +%s%N) - start) / 1000000 / runs )) ms each on average"
left=$(find "$work/tmp" "$work/project" "$work/cache" -maxdepth 1 -name '.ai-*' | wc -l)
echo "left behind in temp, the project and the cache: $left"
