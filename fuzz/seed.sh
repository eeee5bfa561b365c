#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from fixtures/: every request, response, stream payload,
# error body, MCP shape and invalid case, in the input layout of each target (a selector
# byte naming the shape, see src/lib.rs `SHAPES`; the convert target also a target-format
# byte and a flags byte). Idempotent: run again after fixtures change. `cargo xtask fuzz`
# runs it first.
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../fixtures
formats=(openai-chat openai-responses anthropic gemini ollama bedrock mistral cohere)
for t in decode roundtrip convert detect stream step mcp; do mkdir -p "corpus/$t"; done

byte() { printf "\\x$(printf '%02x' "$1")"; }

# seed NAME SELECTOR (body on stdin)
seed() {
    local name=$1 sel=$2 body
    body=$(cat)
    { byte "$sel"; printf '%s' "$body"; } >"corpus/decode/$name"
    { byte "$sel"; printf '%s' "$body"; } >"corpus/roundtrip/$name"
    printf '%s' "$body" >"corpus/detect/$name"
    # Requests and responses (selector ≡ 0 or 1 mod 4, chat formats only) also to every
    # target format.
    if [ "$sel" -lt 32 ] && [ $((sel % 4)) -le 1 ]; then
        for to in 0 1 2 3 4 5 6 7; do
            { byte "$sel"; byte "$to"; byte 0; printf '%s' "$body"; } >"corpus/convert/$name-to$to"
        done
    fi
}

n=0
for i in "${!formats[@]}"; do
    f=${formats[$i]}
    for file in "$fixtures/$f"/request/*.json; do
        [ -e "$file" ] || continue
        seed "$f-req-$(basename "$file")" $((i * 4)) <"$file"
        n=$((n + 1))
    done
    for file in "$fixtures/$f"/response/*.json; do
        [ -e "$file" ] || continue
        case $(basename "$file") in
            error*) sel=$((i * 4 + 3)) ;;
            *) sel=$((i * 4 + 1)) ;;
        esac
        seed "$f-resp-$(basename "$file")" "$sel" <"$file"
        n=$((n + 1))
    done
    for file in "$fixtures/$f"/stream/*; do
        [ -e "$file" ] || continue
        k=0
        # One seed per payload: `data: {…}` lines of SSE, or the lines of NDJSON/chunks.
        while IFS= read -r line || [ -n "$line" ]; do
            line=${line#data: }
            case $line in
                \{*) ;;
                *) continue ;;
            esac
            k=$((k + 1))
            printf '%s' "$line" | seed "$f-event-$(basename "$file")-$k" $((i * 4 + 2))
            n=$((n + 1))
        done <"$file"
    done
    for file in "$fixtures/$f"/invalid/*.json; do
        [ -e "$file" ] || continue
        seed "$f-invalid-$(basename "$file")" $((i * 4)) <"$file"
        n=$((n + 1))
    done
done
for pair in "tools-list:32" "call:33" "result:34"; do
    dir=${pair%%:*}
    for file in "$fixtures/mcp/$dir"/*.json; do
        [ -e "$file" ] || continue
        seed "mcp-$dir-$(basename "$file")" "${pair##*:}" <"$file"
        n=$((n + 1))
    done
done
# Hostile bodies (crash inputs among them) under the shape their name gives
# (`<name>.<format>[.response].json`; anything else as an OpenAI Chat request).
for file in "$fixtures"/hostile/*.json; do
    name=$(basename "$file")
    sel=0
    for i in "${!formats[@]}"; do
        case $name in
            *".${formats[$i]}.response.json") sel=$((i * 4 + 1)) ;;
            *".${formats[$i]}.json" | *".${formats[$i]}.request.json") sel=$((i * 4)) ;;
        esac
    done
    seed "hostile-$name" "$sel" <"$file"
    n=$((n + 1))
done
# stream: [from, to, split, the stream in its wire framing]. `.chunks.txt` (one payload a
# line) becomes SSE for the SSE formats; Bedrock's lines stay one event a line (odd split
# byte), its binary captures are AWS event-stream (even split byte).
for i in "${!formats[@]}"; do
    f=${formats[$i]}
    for file in "$fixtures/$f"/stream/* "$fixtures/$f"/event-stream/*.eventstream; do
        [ -e "$file" ] || continue
        base=$(basename "$file")
        to=$(((i + 1) % 8))
        out="corpus/stream/$f-$base"
        case $f:$base in
            bedrock:*.eventstream) { byte "$i"; byte "$to"; byte 128; cat "$file"; } >"$out" ;;
            bedrock:*) { byte "$i"; byte "$to"; byte 129; cat "$file"; } >"$out" ;;
            ollama:*) { byte "$i"; byte "$to"; byte 128; cat "$file"; } >"$out" ;;
            *.chunks.txt) { byte "$i"; byte "$to"; byte 128; sed 's/^/data: /; s/$/\n/' "$file"; } >"$out" ;;
            *) { byte "$i"; byte "$to"; byte 128; cat "$file"; } >"$out" ;;
        esac
        n=$((n + 1))
    done
    # step: [format, a response body].
    for file in "$fixtures/$f"/response/*.json; do
        [ -e "$file" ] || continue
        { byte "$i"; cat "$file"; } >"corpus/step/$f-$(basename "$file")"
        n=$((n + 1))
    done
done
# mcp: a session, one message a line.
printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' \
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}' \
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}' \
    >corpus/mcp/session
n=$((n + 1))
echo "seed.sh: $n seeds into fuzz/corpus/{decode,roundtrip,convert,detect,stream,step,mcp}"
