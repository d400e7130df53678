"""An MCP harness for the tests: the official MCP Python SDK (PyPI `mcp`) plays pawns.

usage: client.py http URL KEY MODE | stdio PAWNS_BIN SERVER_URL KEY MODE
MODE is the SDK's: legacy (2025-11-25, initialize), 2026-07-28 (stateless), auto.
It joins, plays 20 turns, makes a refusal happen, offers a bad key, and prints one JSON
line saying what it saw.
"""
import asyncio
import json
import sys
import time

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


async def polite(c, name, args, seen):
    """A tool call that waits as told when over the protocol's rate (10 a second)."""
    while True:
        t0 = time.perf_counter()
        r = await c.call_tool(name, args)
        seen["last_ms"] = (time.perf_counter() - t0) * 1000
        if r.is_error and (r.structured_content or {}).get("code") == "rate_limited":
            seen["waited"] = seen.get("waited", 0) + 1
            await asyncio.sleep(r.structured_content["retry_after_ms"] / 1000)
            continue
        return r


async def play(target, mode):
    seen = {"mode": mode}
    async with Client(target, mode=mode) as c:
        seen["protocol"] = c.protocol_version
        tools = (await c.list_tools()).tools
        seen["tools"] = sorted(t.name for t in tools)
        seen["command_schema"] = next(t.input_schema for t in tools if t.name == "command")
        r = await c.call_tool("join", {})
        assert not r.is_error, r
        handle = r.structured_content["handle"]
        seen["name"] = r.structured_content["name"]
        seen["room"] = r.structured_content["state"]["room"]["name"]
        turns, answered, rtt = [], 0, []
        moves = ["look", "south", "north", "score", "east", "west", "look", "inventory", "who", "north"]
        for i in range(20):
            cmd = moves[i % len(moves)]
            args = {"handle": handle, "command": cmd}
            if i == 0:
                args["reason"] = "to see where I am"
            r = await polite(c, "command", args, seen)
            rtt.append(seen.pop("last_ms"))
            assert not r.is_error, r
            answered += bool(r.structured_content["answered"])
            turns.append([cmd, r.content[0].text[:120]])
            # A pause between turns, as a harness thinking would make (and the
            # WebSocket measurement beside this one makes): each command then runs on
            # arrival rather than waiting for the next pulse behind the last.
            await asyncio.sleep(0.1)
        seen["turns"], seen["answered"] = turns, answered
        rtt.sort()
        seen["rtt_ms"] = {"p50": rtt[len(rtt) // 2], "p99": rtt[-1]}
        r = await polite(c, "remember", {"handle": handle, "text": "the temple steps are south of the temple"}, seen)
        seen["remember"] = [r.is_error, r.structured_content]
        r = await polite(c, "command", {"handle": handle, "command": ""}, seen)
        seen["refused"] = [r.is_error, r.structured_content]
        r = await c.call_tool("command", {"handle": "not-a-handle", "command": "look"})
        seen["bad_handle"] = [r.is_error, r.structured_content]
        r = await c.call_tool("join", {"key": "dp_" + "0" * 64})
        seen["bad_key"] = [r.is_error, r.structured_content]
        r = await polite(c, "events", {"handle": handle, "wait_ms": 200}, seen)
        seen["events_ok"] = not r.is_error
        r = await polite(c, "leave", {"handle": handle}, seen)
        seen["left"] = r.structured_content.get("left")
    return seen


async def main():
    kind = sys.argv[1]
    if kind == "http":
        url, key, mode = sys.argv[2:5]
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as hc:
            seen = await play(streamable_http_client(url, http_client=hc), mode)
    else:
        binary, server, key, mode = sys.argv[2:6]
        params = StdioServerParameters(command=binary, args=["mcp", "--server", server], env={"PAWNS_KEY": key})
        seen = await play(params, mode)
    print(json.dumps(seen))


asyncio.run(main())
