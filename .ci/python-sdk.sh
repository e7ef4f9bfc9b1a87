#!/usr/bin/env bash
# Install the official MCP Python SDK (the versions tests/python-sdk/requirements.txt pins) from
# PyPI into a virtual environment at target/python-sdk, once; the interop tests run its client
# against this project's server and this project's client against a server built on it.
# Usage: .ci/python-sdk.sh            (from the repository root; CI and developers alike)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-sdk
want=tests/python-sdk/requirements.txt
if ! cmp -s "$want" "$venv/installed.txt" 2>/dev/null || [ ! -x "$venv/bin/python" ]; then
  rm -rf "$venv"
  # Debian's own python3 makes virtual environments only with its python3-venv package.
  python3 -m venv "$venv" 2>/dev/null || {
    rm -rf "$venv"
    apt-get install -y -q python3-venv >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null && apt-get install -y -q python3-venv >/dev/null; }
    python3 -m venv "$venv"
  }
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$want"
  cp "$want" "$venv/installed.txt"
fi
"$venv/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))'
