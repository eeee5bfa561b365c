"""The official MCP Python SDK's stdio client against toolwire's stdio server.

    python sdk_client_check.py <command of the server> [args...]

Spawns the server (normally `target/debug/examples/mcp_server`), then with the SDK's
`ClientSession`: initializes, lists the tools, and calls a tool that succeeds, one that
fails (`isError`), one with structured output (checked by the SDK against the tool's
output schema), one with progress, and an unknown tool (a JSON-RPC error). Prints one
line per check and exits non-zero when one fails. Written for `mcp==2.3.0`.
"""

import sys

import anyio
from mcp import ClientSession, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client

checks: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: object = "") -> None:
    checks.append((name, bool(ok), str(detail)))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + str(detail) if detail and not ok else ''}", flush=True)


async def main(command: str, args: list[str]) -> None:
    params = StdioServerParameters(command=command, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check("initialize: protocol version 2025-11-25", init.protocol_version == "2025-11-25", init.protocol_version)
            check("initialize: server name", init.server_info.name == "toolwire-demo", init.server_info.name)
            check("initialize: tools capability", init.capabilities.tools is not None, init.capabilities)

            listed = await session.list_tools()
            names = [t.name for t in listed.tools]
            check("tools/list: the demo tools", {"add", "get_weather", "always_fails"} <= set(names), names)
            weather = next(t for t in listed.tools if t.name == "get_weather")
            check("tools/list: output schema", (weather.output_schema or {}).get("required") == ["city", "temperature_c", "conditions"], weather.output_schema)
            check("tools/list: title", weather.title == "Weather", weather.title)

            r = await session.call_tool("add", {"a": 2, "b": 40})
            text = r.content[0].text if r.content else None
            check("tools/call add: success", not r.is_error and text == "42.0", r)

            r = await session.call_tool("always_fails", {})
            check("tools/call always_fails: isError", r.is_error and r.content[0].text == "this tool always fails", r)

            r = await session.call_tool("add", {"a": "two"})
            check("tools/call add with bad arguments: isError naming the field", r.is_error and "/a" in r.content[0].text, r)

            r = await session.call_tool("get_weather", {"city": "Oslo"})
            check(
                "tools/call get_weather: structuredContent",
                not r.is_error and r.structured_content == {"city": "Oslo", "temperature_c": 21.5, "conditions": "clear"},
                r,
            )

            seen: list[float] = []

            async def progress(p: float, total: float | None, message: str | None) -> None:
                seen.append(p)

            r = await session.call_tool("test_tool_with_progress", {}, progress_callback=progress)
            check("tools/call with progress: 0, 50, 100", not r.is_error and seen == [0, 50, 100], seen)

            try:
                await session.call_tool("no_such_tool", {})
                check("tools/call unknown tool: JSON-RPC error -32602", False, "no error")
            except MCPError as e:
                check("tools/call unknown tool: JSON-RPC error -32602", e.error.code == -32602, e.error)

            await session.send_ping()
            check("ping", True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    try:
        anyio.run(main, sys.argv[1], sys.argv[2:])
    except Exception as e:  # a failure of the session itself
        check("session", False, repr(e))
    failed = [c for c in checks if not c[1]]
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)
