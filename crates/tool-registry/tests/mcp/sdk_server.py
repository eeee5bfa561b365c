"""A small MCP server written with the official Python SDK's server API (`MCPServer`,
`mcp==2.3.0`), over stdio, for toolwire's client side to drive through the agent step
(`cargo run -p toolwire --example mcp_bridge -- python sdk_server.py`).

Its tools have the names of the toolwire demo registry's, so the same recorded model
responses call either: text (`add`), structured output (`get_weather`), a failure
(`always_fails`), an image (`test_image_content`).
"""

import base64

from pydantic import BaseModel

from mcp.server import MCPServer
from mcp.server.mcpserver import Image
from mcp.server.mcpserver.exceptions import ToolError

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)

server = MCPServer("python-sdk-peer")


class Weather(BaseModel):
    city: str
    temperature_c: float
    conditions: str


@server.tool(structured_output=False)
def add(a: float, b: float) -> str:
    """Add two numbers"""
    return str(a + b)


@server.tool(title="Weather")
def get_weather(city: str) -> Weather:
    """Current weather in a city"""
    return Weather(city=city, temperature_c=21.5, conditions="clear")


@server.tool()
def always_fails() -> str:
    """A tool that always fails"""
    raise ToolError("this tool always fails")


@server.tool()
def test_image_content() -> Image:
    """Returns a 1x1 red PNG image"""
    return Image(data=PNG, format="png")


if __name__ == "__main__":
    server.run("stdio")
