#!/usr/bin/env bash
# Runs `svc <service>` on a Node that satisfies every installed package (scripts/check-engines.js).
# When the machine's node does not, uses (and on first use installs, from the npm registry)
# Node 24 in .tools/node24. `--build` (what `npm start` passes) compiles the TypeScript first.
# Each slow step says what it does and how long it usually takes.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=0
if [ "${1:-}" = "--build" ]; then BUILD=1; shift; fi
say() { echo "svc: $*" >&2; }
seconds() { echo $(( $(date +%s) - $1 )); }

NODE=node
if ! node "$REPO/scripts/check-engines.js" --quiet 2>/dev/null; then
  NODE="$REPO/.tools/node24/node_modules/.bin/node"
  if [ ! -x "$NODE" ]; then
    started=$(date +%s)
    say "node $(node --version 2>/dev/null || echo '(none)') is too old for the installed packages (node scripts/check-engines.js says which);"
    say "installing Node 24 into .tools/node24, once (about 30 MB from the npm registry, usually 10-20 s) ..."
    npm install --prefix "$REPO/.tools/node24" --no-audit --no-fund --loglevel=error node@24 >/dev/null
    say "Node $("$NODE" --version) ready in $(seconds "$started") s."
  fi
fi

if [ "$BUILD" = 1 ]; then
  started=$(date +%s)
  if [ -f "$REPO/cli/dist/src/svc.js" ]; then
    say "building what changed (tsc -b cli, usually 3-5 s) ..."
  else
    say "first build: compiling the platform (tsc -b cli, usually 30-60 s on 2 cores; later starts 3-5 s) ..."
  fi
  # The cli and every workspace it runs (its project references), not the end-to-end tests in test/.
  (cd "$REPO" && "$NODE" node_modules/typescript/bin/tsc -b cli)
  say "built in $(seconds "$started") s; starting the platform ..."
fi
# V8's young generation as docker/Dockerfile's ENTRYPOINT sets it (fewer long collections: bench/RESULTS.md).
exec "$NODE" --max-semi-space-size=32 "$REPO/cli/dist/src/svc.js" "$@"
