#!/usr/bin/env bash
# The gateway example (Anthropic Messages over an OpenAI Chat upstream) with the
# official Anthropic Python SDK as its client (called by .ci/run). Installs the pinned
# SDKs of fixtures/sdk/requirements.txt into target/sdk-venv (the same venv
# fixtures/sdk/generate.sh uses) and runs crates/toolwire/tests/gateway/test_gateway.py,
# which starts a fake upstream replaying recorded OpenAI bodies and streams on 127.0.0.1.
# Fails loudly when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/sdk-venv
if ! "$venv/bin/python" -c "import anthropic" 2>/dev/null; then
    echo "  [gateway] installing the pinned SDKs ($(python3 --version))"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r fixtures/sdk/requirements.txt
fi
cargo build --quiet -p toolwire --example gateway
"$venv/bin/python" crates/toolwire/tests/gateway/test_gateway.py target/debug/examples/gateway
