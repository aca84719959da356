#!/usr/bin/env python3
"""An OpenAI-compatible server for benchmarks, answering at full speed so that what is measured is
the client's own cost. It streams like real servers do (chunked, keep-alive, `[DONE]`, then the
last chunk), so a client that drops replies early pays for a new connection each time.

The model name picks the script of a run:
  text-N     a streamed answer of N one-word deltas
  tools-K    K streamed tool calls (filesystem read of t0, t1, ... in turn), then a short answer
  exec-K     K streamed commands (`echo 0`, `echo 1`, ...: allowed, so sandboxed), ten to a reply,
             then an answer
GET /stats tells how many TCP connections the server has accepted.
Usage: fake_openai.py PORT      (prints "ready" once it listens)
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def delta(d, finish=None):
    return {"choices": [{"index": 0, "delta": d, "finish_reason": finish}]}


def text_events(tokens):
    events = [delta({"role": "assistant"})]
    events += [delta({"content": f"tok{i} "}) for i in range(tokens)]
    events.append(delta({}, "stop"))
    events.append({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": tokens}})
    return events


def exec_events(start, n):
    calls = [{"index": i, "id": f"call_{start + i}", "type": "function",
              "function": {"name": "execute_command",
                           "arguments": json.dumps({"command": f"echo {start + i}"})}}
             for i in range(n)]
    return [
        delta({"role": "assistant", "content": None, "tool_calls": calls}),
        delta({}, "tool_calls"),
        {"choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 12}},
    ]


def tool_events(n):
    args = json.dumps({"operation": "read", "path": f"t{n}"})
    call = {"index": 0, "id": f"call_{n}", "type": "function",
            "function": {"name": "filesystem", "arguments": args}}
    return [
        delta({"role": "assistant", "content": None, "tool_calls": [call]}),
        delta({}, "tool_calls"),
        {"choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 12}},
    ]


def script(model, messages):
    kind, _, count = model.partition("-")
    count = int(count or 0)
    done = sum(1 for m in messages if m.get("role") == "tool")
    if kind == "tools":
        return tool_events(done) if done < count else text_events(5)
    if kind == "exec":
        return exec_events(done, min(10, count - done)) if done < count else text_events(5)
    return text_events(count or 200)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # As real servers do: without TCP_NODELAY the body, written after the headers, waits for the
    # client's delayed ACK (40 ms) on every request of a kept-alive connection.
    disable_nagle_algorithm = True
    connections = 0

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        Handler.connections += 1

    def do_GET(self):
        if self.path == "/stats":
            body = json.dumps({"connections": Handler.connections})
        else:
            body = json.dumps({"object": "list", "data": [{"id": "text-200", "object": "model"}]})
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        events = script(request.get("model", ""), request.get("messages", []))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        data = body.encode()
        self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
        self.wfile.flush()


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    print("ready", flush=True)
    server.serve_forever()
