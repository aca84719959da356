#!/usr/bin/env python3
"""A tiny OpenAI-compatible server for benchmarks: every chat request gets a streamed reply of
N one-word deltas (default 200) at full speed, so what is measured is the client's own cost."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKENS = int(sys.argv[2]) if len(sys.argv) > 2 else 200


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        out = []
        for i in range(TOKENS):
            chunk = {"choices": [{"index": 0, "delta": {"content": f"tok{i} "}, "finish_reason": None}]}
            out.append("data: " + json.dumps(chunk) + "\n\n")
        out.append('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n')
        out.append('data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d}}\n\n' % TOKENS)
        out.append("data: [DONE]\n\n")
        self.wfile.write("".join(out).encode())
        self.wfile.flush()


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18089
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
