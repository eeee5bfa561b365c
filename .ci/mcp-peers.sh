#!/usr/bin/env bash
# MCP against real peers (called by .ci/run; needs Node >= 20, Python >= 3.10 and the
# package registries). Installs what it needs, pinned, under target/mcp-peers/:
#
# * the official conformance suite, @modelcontextprotocol/conformance 0.1.10 (the last
#   release that runs on Node 20), each server scenario of issue 17 against the
#   Streamable HTTP example (`mcp_http`);
# * the official Python SDK, mcp 2.3.0: its stdio client against the stdio example
#   (`mcp_server`), and a server written with its MCPServer API
#   (crates/tool-registry/tests/mcp/sdk_server.py) driven through toolwire's client side
#   and the agent step (`mcp_bridge`).
#
# Fails loudly (non-zero, with the peer's output) when any check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
CONFORMANCE_VERSION=0.1.10
MCP_PY_VERSION=2.3.0
SCENARIOS="server-initialize ping tools-list tools-call-simple-text tools-call-image
tools-call-audio tools-call-embedded-resource tools-call-mixed-content tools-call-error
tools-call-with-logging tools-call-with-progress json-schema-2020-12"
peers=target/mcp-peers
mkdir -p "$peers"

say() { printf '  [mcp-peers %3ss] %s\n' "$((SECONDS - start))" "$*"; }

say "building the MCP examples"
cargo build --quiet -p toolwire --example mcp_server --example mcp_http --example mcp_bridge
examples=target/debug/examples

# --- installs (pinned; skipped when already there) ---------------------------------------
conformance="$peers/node/node_modules/@modelcontextprotocol/conformance"
if ! grep -qs "\"version\": \"$CONFORMANCE_VERSION\"" "$conformance/package.json"; then
    say "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION (node $(node --version))"
    npm install --silent --no-audit --no-fund --prefix "$peers/node" \
        "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >/dev/null
fi
venv="$peers/venv"
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_PY_VERSION')" 2>/dev/null; then
    say "installing mcp==$MCP_PY_VERSION ($(python3 --version))"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_PY_VERSION"
fi

# --- the conformance suite against the Streamable HTTP server -----------------------------
log="$peers/mcp_http.log"
# The server's stdin is a FIFO this script holds open (no helper process to outlive
# it): the server stops when the script ends (EOF), after --max-secs, or when killed on
# exit, whichever comes first.
fifo="$peers/mcp_http.stdin"
rm -f "$fifo"
mkfifo "$fifo"
exec 3<>"$fifo"
"$examples/mcp_http" 127.0.0.1:0 --max-secs 600 <&3 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 100); do
    url=$(sed -n 's/^mcp_http: serving \(http:[^ ]*\).*/\1/p' "$log")
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "mcp_http did not start:"; cat "$log"; exit 1; }
say "conformance $CONFORMANCE_VERSION against $url"
passed=0 failed=0 bad=""
for s in $SCENARIOS; do
    out=$(timeout 120 node "$conformance/dist/index.js" server --url "$url" --scenario "$s" 2>&1) || true
    counts=$(printf '%s\n' "$out" | sed -n 's/^Passed: \([0-9]*\)\/\([0-9]*\), \([0-9]*\) failed.*/\1 \2 \3/p' | tail -1)
    read -r p t f <<<"${counts:-0 0 1}"
    if [ "$f" = 0 ] && [ "$p" = "$t" ] && [ "$t" != 0 ]; then
        passed=$((passed + 1))
        say "  $s: passed $p/$t"
    else
        failed=$((failed + 1))
        bad="$bad $s"
        say "  $s: FAILED ($p/$t passed)"
        printf '%s\n' "$out" | sed 's/^/      /'
    fi
done
kill "$server" 2>/dev/null || true
say "conformance: $passed scenarios passed, $failed failed"

# --- the Python SDK both ways ----------------------------------------------------------
say "python sdk $MCP_PY_VERSION client -> mcp_server (stdio)"
if ! timeout 120 "$venv/bin/python" crates/tool-registry/tests/mcp/sdk_client_check.py "$examples/mcp_server" | sed 's/^/      /'; then
    failed=$((failed + 1)); bad="$bad python-client"
    say "  FAILED: the python client checks"
fi
say "toolwire client + agent step -> python sdk $MCP_PY_VERSION MCPServer (stdio)"
if ! timeout 120 "$examples/mcp_bridge" "$venv/bin/python" crates/tool-registry/tests/mcp/sdk_server.py 2>"$peers/sdk_server.log" | sed 's/^/      /'; then
    failed=$((failed + 1)); bad="$bad python-server"
    say "  FAILED: the bridge to the python server"; cat "$peers/sdk_server.log"
fi

say "done in $((SECONDS - start)) s"
if [ "$failed" != 0 ]; then
    echo "mcp-peers: FAILED:$bad"
    exit 1
fi
