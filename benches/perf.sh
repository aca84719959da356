#!/usr/bin/env bash
# What `ai` itself costs, as one table: start-up, a one-shot streamed answer, a tool round trip and
# a 3-iteration tool run against a local OpenAI-compatible server that answers at once
# (benches/fake_openai.py), with wall and CPU time (hyperfine), peak RSS (GNU time) and the size
# of the binary. Needs hyperfine and python3 (Debian: apt-get install hyperfine).
# Usage: benches/perf.sh [path/to/ai] [runs]   (default: target/dist/ai, built if missing; 20 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
ai=$(realpath -m "${1:-target/dist/ai}")
runs=${2:-20}
[[ -x $ai ]] || cargo build --profile dist
command -v hyperfine >/dev/null || { echo "perf.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }

source benches/fake_server.sh

# A clean environment: its own HOME and XDG dirs, files for the tool calls to read.
mkdir -p "$work"/{home,config,data,state,cache,project}
for i in 0 1 2; do echo "file $i" > "$work/project/t$i"; done
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data \
  XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
export SWEBASH_AI_BASE_URL=http://127.0.0.1:$port/v1 SWEBASH_AI_API_KEY=bench
cd "$work/project"

names=("--version" "one-shot, 200 streamed tokens" "one native tool round trip" "3-iteration tool run (2 calls + answer)")
commands=("$ai --version" "$ai -q -m text-200 hello" "$ai -q -m tools-1 read t0" "$ai -q -m tools-2 read t0 and t1")

# Peak RSS: the median of a few runs of GNU time's maximum resident set size.
peak_rss() {
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f %M -o "$work/rss" $1 > /dev/null 2>&1
    cat "$work/rss"
  done | sort -n | sed -n 3p
}

for i in "${!commands[@]}"; do
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/h$i.json" "${commands[$i]}" > /dev/null
  peak_rss "${commands[$i]}" > "$work/rss$i"
done

python3 - "$work" "$ai" "${names[@]}" <<'EOF'
import json, os, sys
work, ai, names = sys.argv[1], sys.argv[2], sys.argv[3:]
print(f"`ai` at {ai}: {os.path.getsize(ai) / 1e6:.1f} MB\n")
print("| scenario | wall ms (median) | CPU ms (user+sys, mean) | peak RSS MB |")
print("|---|---|---|---|")
for i, name in enumerate(names):
    r = json.load(open(f"{work}/h{i}.json"))["results"][0]
    rss = int(open(f"{work}/rss{i}").read()) / 1024
    print(f"| {name} | {r['median'] * 1e3:.1f} | {(r['user'] + r['system']) * 1e3:.1f} | {rss:.1f} |")
EOF

# Keep-alive: how many TCP connections one 3-iteration tool run opens (1 when replies are read to
# their end and the connection goes back to the pool).
stats() { python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))["connections"])' "http://127.0.0.1:$port/stats"; }
before=$(stats)
${commands[3]} > /dev/null 2>&1
echo
echo "TCP connections opened by one 3-iteration tool run: $(( $(stats) - before - 1 ))"
