"""The gateway example against the official Anthropic SDK as its client.

    python test_gateway.py PATH/TO/gateway

Starts a fake OpenAI Chat upstream on 127.0.0.1 that replays recorded OpenAI bodies and
streams (`fixtures/openai-chat/{response,stream}`), starts the gateway in front of it,
and sends requests through the gateway with `anthropic.Anthropic` (non-streaming, and
streaming through the SDK's own `messages.stream()` accumulator). What the SDK makes of
the gateway's answers is checked against what the recorded OpenAI answers say, read
here with nothing but `json` (an oracle independent of toolwire). Exits non-zero on any
failure; both servers stop with this script.
"""

import http.server
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import anthropic

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / "fixtures" / "openai-chat"


class Upstream(http.server.BaseHTTPRequestHandler):
    """`POST /v1/chat/completions`: the request's `model` names what to replay:
    `replay:<file>` (a response body, or an SSE stream when the request streams) or
    `status:<code>` (an OpenAI error body with that status)."""

    requests = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length))
        Upstream.requests.append(body)
        model = body.get("model", "")
        if model.startswith("status:"):
            code = int(model.split(":", 1)[1])
            payload = json.dumps({"error": {"message": f"upstream says {code}", "type": "x", "code": None}})
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload.encode())
            return
        name = model.split(":", 1)[1]
        if body.get("stream"):
            data = (FIXTURES / "stream" / name).read_bytes()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            # In small pieces, as a server flushes them.
            for i in range(0, len(data), 97):
                self.wfile.write(data[i : i + 97])
                self.wfile.flush()
            return
        data = (FIXTURES / "response" / name).read_bytes()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def expected_from_stream(name):
    """Text and calls (name, parsed arguments) of a recorded OpenAI stream, read with the
    plain rules of the format: content deltas joined, calls by `index`."""
    text, calls, finish = "", {}, None
    for line in (FIXTURES / "stream" / name).read_text().splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        for c in chunk.get("choices", []):
            d = c.get("delta", {})
            text += d.get("content") or ""
            for t in d.get("tool_calls") or []:
                slot = calls.setdefault(t["index"], {"name": "", "args": ""})
                f = t.get("function", {})
                slot["name"] += f.get("name") or ""
                slot["args"] += f.get("arguments") or ""
            finish = c.get("finish_reason") or finish
    return text, [(c["name"], json.loads(c["args"])) for _, c in sorted(calls.items())], finish


def expected_from_body(name):
    body = json.loads((FIXTURES / "response" / name).read_text())
    m = body["choices"][0]["message"]
    calls = [(t["function"]["name"], json.loads(t["function"]["arguments"])) for t in m.get("tool_calls") or []]
    return m.get("content") or "", calls, body["choices"][0]["finish_reason"]


def got(message):
    text = "".join(b.text for b in message.content if b.type == "text")
    calls = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
    return text, calls


STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


def main():
    gateway_bin = sys.argv[1]
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    up_url = f"http://127.0.0.1:{upstream.server_address[1]}"
    gw = subprocess.Popen(
        [gateway_bin, "--listen", "127.0.0.1:0", "--upstream", up_url, "--exit-after-idle", "60"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = gw.stderr.readline()
        m = re.search(r"listening on (http://\S+)", line)
        assert m, f"the gateway did not start: {line!r}"
        client = anthropic.Anthropic(base_url=m.group(1), api_key="test-key", max_retries=0)
        failures = []
        checked = 0

        def check(label, want, message):
            nonlocal checked
            checked += 1
            text, calls = got(message)
            w_text, w_calls, w_finish = want
            if text != w_text:
                failures.append(f"{label}: text {text!r} != {w_text!r}")
            if calls != w_calls:
                failures.append(f"{label}: calls {calls!r} != {w_calls!r}")
            if message.stop_reason != STOP.get(w_finish, message.stop_reason):
                failures.append(f"{label}: stop {message.stop_reason} for finish {w_finish}")

        tools = [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}]
        ask = [{"role": "user", "content": "What is the weather?"}]
        # Whole bodies.
        for name in ["parallel-tool-calls.gpt-4o.json", "text-full-usage.gpt-4.1-nano.json"]:
            msg = client.messages.create(model=f"replay:{name}", max_tokens=100, messages=ask, tools=tools)
            check(name, expected_from_body(name), msg)
        # Streams, through the SDK's own accumulator.
        for name in ["text.gpt-4o.sse.txt", "tool-call.gpt-4o.sse.txt", "parallel-tool-calls.gpt-4o.sse.txt"]:
            with client.messages.stream(model=f"replay:{name}", max_tokens=100, messages=ask, tools=tools) as s:
                events = [e.type for e in s]
                msg = s.get_final_message()
            check(name, expected_from_stream(name), msg)
            if events[0] != "message_start" or "message_stop" not in events:
                failures.append(f"{name}: events {events[:3]}…{events[-3:]}")
        # The stream was asked for with its usage.
        streamed = [r for r in Upstream.requests if r.get("stream")]
        if not all(r.get("stream_options", {}).get("include_usage") for r in streamed):
            failures.append("a streamed request did not ask for usage")
        # Upstream errors come back as Anthropic errors, the SDK's own exceptions.
        for code, exc in [(429, anthropic.RateLimitError), (401, anthropic.AuthenticationError), (500, anthropic.InternalServerError)]:
            try:
                client.messages.create(model=f"status:{code}", max_tokens=10, messages=ask)
                failures.append(f"status {code}: no error")
            except exc as e:
                checked += 1
                if f"upstream says {code}" not in str(e):
                    failures.append(f"status {code}: {e}")
            except Exception as e:  # noqa: BLE001
                failures.append(f"status {code}: {type(e).__name__}: {e}")
        if failures:
            print("gateway: FAILED\n" + "\n".join(failures))
            sys.exit(1)
        print(f"gateway: {checked} checks passed")
    finally:
        gw.kill()
        upstream.shutdown()


if __name__ == "__main__":
    main()
