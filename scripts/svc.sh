#!/usr/bin/env bash
# Runs `svc <service>` on Node >= 22. When the machine's node is older, uses (and on first
# use installs, from the npm registry) Node 24 in .tools/node24. Used by `npm start`.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major() { "$1" --version 2>/dev/null | sed 's/^v\([0-9]*\).*/\1/'; }
NODE=node
if [ "$(major node || echo 0)" -lt 22 ]; then
  NODE="$REPO/.tools/node24/node_modules/.bin/node"
  if [ ! -x "$NODE" ]; then
    echo "svc: node $(node --version 2>/dev/null || echo '(none)') is older than 22; installing Node 24 into .tools/node24 ..." >&2
    npm install --prefix "$REPO/.tools/node24" --no-audit --no-fund node@24 >&2
  fi
fi
exec "$NODE" "$REPO/cli/dist/src/svc.js" "$@"
