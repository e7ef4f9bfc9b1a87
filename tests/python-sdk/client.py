"""The official Python SDK's client against a server of this project.

Usage: python client.py TARGET MODE
  TARGET: an http(s) URL, or the path of a server program started with `--stdio`.
  MODE:   the SDK's connect mode: `auto` (server/discover, then 2026-07-28) or `legacy`
          (initialize and a 2025-11-25 session).
Prints one JSON object per line: what the client saw, for the Rust test to check.
"""

import asyncio
import json
import sys
import warnings

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


async def elicit(_ctx, params):
    # Answer each form the fixture server asks by the field it wants.
    fields = set((params.requested_schema or {}).get("properties", {}))
    if "color" in fields:
        content = {"color": "teal"}
    elif "context" in fields:
        content = {"context": "tea"}
    elif "ok" in fields:
        content = {"ok": True}
    else:
        content = {"name": "Ada"}
    return types.ElicitResult(action="accept", content=content)


async def sample(_ctx, _params):
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="Paris"), model="m"
    )


async def roots(_ctx):
    return types.ListRootsResult(roots=[types.Root(uri="file:///home/ada", name="home")])


def say(**fields):
    print(json.dumps(fields), flush=True)


def texts(content):
    return [c.text for c in content if getattr(c, "text", None) is not None]


TOOLS = [
    "test_simple_text",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_multi_round",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_request_state",
    "test_error_handling",
]


async def main(target, mode):
    if target.startswith("http"):
        server = target
    else:
        server = StdioServerParameters(command=target, args=["--stdio"])
    logs = []
    notices = []

    async def log(params):
        logs.append(params.data)

    async def notice(message):
        if isinstance(message, Exception):
            notices.append(f"error: {message}")
        else:
            notices.append(message.method)

    async with Client(
        server,
        mode=mode,
        elicitation_callback=elicit,
        sampling_callback=sample,
        list_roots_callback=roots,
        logging_callback=log,
        message_handler=notice,
        log_level="info" if mode != "legacy" else None,
    ) as client:
        say(step="connected", version=client.protocol_version)
        tools = await client.list_tools()
        say(step="tools/list", names=sorted(t.name for t in tools.tools))
        for name in TOOLS:
            result = await client.call_tool(name, {})
            say(step="tools/call", tool=name, is_error=bool(result.is_error), text=texts(result.content))
        prompt = await client.get_prompt("test_input_required_result_prompt")
        say(step="prompts/get", text=[m.content.text for m in prompt.messages])
        resource = await client.read_resource("test://static-text")
        say(step="resources/read", text=texts(resource.contents))
        templates = await client.list_resource_templates()
        say(step="resources/templates/list", uris=[t.uri_template for t in templates.resource_templates])
        completion = await client.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "par"},
        )
        say(step="completion/complete", values=completion.completion.values)
        progress = []

        async def on_progress(done, total, message):
            progress.append([done, total])

        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        say(step="progress", text=texts(result.content), progress=progress)
        if mode == "legacy":
            with warnings.catch_warnings():
                # Deprecated at 2026-07-28, the way a 2025 session asks for logs.
                warnings.simplefilter("ignore")
                await client.set_logging_level("info")
        result = await client.call_tool("test_tool_with_logging", {})
        say(step="logging", text=texts(result.content), logs=logs)
        if client.protocol_version >= "2026-07-28":
            async with client.listen(tools_list_changed=True) as subscription:
                await client.call_tool("test_trigger_tool_change", {})
                with anyio.fail_after(10):
                    async for event in subscription:
                        say(step="listen", event=type(event).__name__)
                        break
        else:
            # A 2025 session hears of changes on its standalone stream, or over stdio.
            await client.call_tool("test_trigger_tool_change", {})
            with anyio.move_on_after(10):
                while "notifications/tools/list_changed" not in notices:
                    await anyio.sleep(0.02)
            say(step="listen", event="notifications/tools/list_changed" in notices)
        try:
            await client.call_tool("no_such_tool", {})
            say(step="unknown tool", error=None)
        except MCPError as e:
            say(step="unknown tool", error=e.error.code)
    say(step="closed", notices=notices)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
