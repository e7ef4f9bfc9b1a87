"""A server on the official Python SDK (MCPServer), for this project's client to call.

Usage: python server.py stdio | python server.py http|http-json|http-stateless PORT
(`http-json` answers with JSON bodies instead of SSE streams; `http-stateless` keeps no
sessions.)
Its tools ask the client for what they need: `greet` a form, `capital` the client's model,
`where` the client's roots. The SDK asks with `input_required` at 2026-07-28 and with requests
to the client in a 2025-11-25 session.
"""

import sys
from typing import Annotated

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from pydantic import BaseModel

mcp = MCPServer("python-peer")


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def ask_capital() -> Sample:
    question = types.TextContent(type="text", text="What is the capital of France?")
    return Sample([types.SamplingMessage(role="user", content=question)], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
def add(a: int, b: int) -> str:
    """Adds two numbers."""
    return str(a + b)


@mcp.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Asks the user's name, then greets them."""
    return f"Hello, {who.name}!"


@mcp.tool()
def capital(answer: Annotated[types.CreateMessageResult, Resolve(ask_capital)]) -> str:
    """Asks the client's model a question."""
    return f"The model said: {answer.content.text}"


@mcp.tool()
def where(roots: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
    """Asks for the client's roots."""
    return "Roots: " + ", ".join(str(r.uri) for r in roots.roots)


if __name__ == "__main__":
    if sys.argv[1:] == ["stdio"]:
        mcp.run("stdio")
    elif len(sys.argv) == 3 and sys.argv[1] in ("http", "http-json", "http-stateless"):
        mcp.run(
            "streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            json_response=sys.argv[1] == "http-json",
            stateless_http=sys.argv[1] == "http-stateless",
        )
    else:
        sys.exit("usage: server.py stdio | server.py http|http-json|http-stateless PORT")
