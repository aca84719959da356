#!/usr/bin/env python3
"""Timing client of benches/local.sh: one streamed reply, every token's arrival timed.

  local_client.py server URL PROMPT MAX_TOKENS     an OpenAI-compatible server (llama.cpp's)
  local_client.py ai BINARY PROMPT [ARGS...]       `ai --jsonl`, the embedded engine
  local_client.py interrupt BINARY PROMPT [ARGS...] Ctrl-C (SIGINT) after 50 tokens: how long
                                                   until `ai` has stopped

Prints one JSON object: time to first token (from the request, or from the process start for
`ai`, which includes loading the model), tokens, generation tokens/s overall and over the first
and last 100 tokens, usage as reported, and (for `ai`) its peak RSS.
"""
import json
import os
import resource
import subprocess
import sys
import time
import urllib.request


def rates(stamps, start):
    n = len(stamps)
    out = {"ttft_s": round(stamps[0] - start, 3) if stamps else None, "tokens": n}
    if n > 1:
        out["gen_tok_s"] = round((n - 1) / (stamps[-1] - stamps[0]), 1)
    if n > 101:
        out["first100_tok_s"] = round(100 / (stamps[100] - stamps[0]), 1)
        out["last100_tok_s"] = round(100 / (stamps[-1] - stamps[-101]), 1)
    return out


def server(url, prompt, max_tokens):
    body = json.dumps({
        "model": "smollm2",
        "messages": [{"role": "user", "content": prompt}],
        "stream": True,
        "temperature": 0,
        "max_tokens": int(max_tokens),
        "stream_options": {"include_usage": True},
    }).encode()
    request = urllib.request.Request(url.rstrip("/") + "/chat/completions", body,
                                     {"content-type": "application/json"})
    stamps, usage = [], None
    start = time.monotonic()
    with urllib.request.urlopen(request, timeout=600) as response:
        for raw in response:
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[5:])
            usage = chunk.get("usage") or usage
            for choice in chunk.get("choices", []):
                if (choice.get("delta") or {}).get("content"):
                    stamps.append(time.monotonic())
    out = rates(stamps, start)
    out["usage"] = usage
    return out


def ai(binary, prompt, *args):
    start = time.monotonic()
    process = subprocess.Popen([binary, "--jsonl", *args, prompt], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    stamps, result = [], {}
    for raw in process.stdout:
        event = json.loads(raw)
        if event.get("type") == "message.delta" and event.get("text"):
            stamps.append(time.monotonic())
        elif event.get("type") == "run.completed":
            result = event
    process.wait()
    out = rates(stamps, start)
    out["usage"] = result.get("usage")
    out["iterations"] = result.get("iterations")
    out["status"] = result.get("status")
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    return out


def interrupt(binary, prompt, *args):
    process = subprocess.Popen([binary, "--jsonl", *args, prompt], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    tokens = 0
    for raw in process.stdout:
        if json.loads(raw).get("type") == "message.delta":
            tokens += 1
            if tokens == 50:
                break
    sent = time.monotonic()
    process.send_signal(2)
    process.stdout.read()
    code = process.wait()
    return {"stopped_after_ms": round((time.monotonic() - sent) * 1000, 1), "exit_code": code}


if __name__ == "__main__":
    kind, *rest = sys.argv[1:]
    run = {"server": server, "ai": ai, "interrupt": interrupt}[kind]
    print(json.dumps(run(*rest)))
