#!/usr/bin/env bash
# The README's test command (npm test): provisions what the tests need, builds, checks the
# schema snapshots, then runs every Jest suite against real PostgreSQL + pgvector, Redis,
# Varnish and Chromium. Extra arguments go to Jest (e.g. npm test -- cms).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/provision.sh >/dev/null
# shellcheck source=scripts/node-env.sh
. scripts/node-env.sh
npx tsc -b
node cli/dist/src/schema-tool.js check
node cli/dist/src/lint-boundaries.js
NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning ${NODE_OPTIONS:-}" npx jest "$@"
