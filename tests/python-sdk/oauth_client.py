"""The official Python SDK's client, with its OAuth provider, against a protected server of
this project.

Usage: python oauth_client.py URL MODE
  URL:  the protected endpoint; its 401 names its resource metadata, which names the
        authorization server (one that approves without a user, as the tests run).
  MODE: `auto` (2026-07-28) or `legacy` (a 2025-11-25 session).
The "browser" fetches the authorization URL and hands the redirect's code back. Prints one JSON
object per line: the grants it went through and the tools' answers.
"""

import asyncio
import json
import sys
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

REDIRECT = "http://127.0.0.1:9/callback"


class Memory:
    """Tokens and the pre-registered client, kept for this run."""

    def __init__(self):
        self.tokens = None
        self.client = OAuthClientInformationFull(
            client_id="python-sdk-client",
            redirect_uris=[REDIRECT],
            token_endpoint_auth_method="none",
        )

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


def say(**fields):
    print(json.dumps(fields), flush=True)


async def main(url, mode):
    pending = {}
    authorizations = []

    async def browser(authorization_url):
        query = parse_qs(urlparse(authorization_url).query)
        authorizations.append(
            {k: query.get(k, [None])[0] for k in ("scope", "resource", "code_challenge_method")}
        )
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            answer = await http.get(authorization_url)
        back = parse_qs(urlparse(answer.headers["location"]).query)
        pending["result"] = AuthorizationCodeResult(
            code=back["code"][0], state=back.get("state", [None])[0], iss=back.get("iss", [None])[0]
        )

    async def callback():
        return pending.pop("result")

    storage = Memory()
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[REDIRECT], token_endpoint_auth_method="none", client_name="python"
        ),
        storage=storage,
        redirect_handler=browser,
        callback_handler=callback,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            say(step="connected", version=client.protocol_version)
            whoami = await client.call_tool("test_whoami", {})
            say(step="whoami", is_error=bool(whoami.is_error), text=[c.text for c in whoami.content])
            admin = await client.call_tool("test_admin_only", {})
            say(step="admin", is_error=bool(admin.is_error), text=[c.text for c in admin.content])
    say(step="authorizations", seen=authorizations, scope=storage.tokens.scope if storage.tokens else None)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
