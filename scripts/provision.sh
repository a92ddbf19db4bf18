#!/usr/bin/env bash
# Provision what the tests need on a Debian bookworm machine, idempotently:
#   - Node >= 22 (installs node@24 from the npm registry into .tools/node24 when the
#     system node is older),
#   - Debian packages: postgresql-server-dev-15 build-essential dpkg-dev varnish
#     varnish-modules chromium fonts-liberation (as root only, apt-get update once, only when one is missing),
#   - pgvector for PostgreSQL 15, built from Debian trixie's source package fetched with a
#     private apt configuration (the machine's own sources stay bookworm), and enabled in
#     template1 so every new database has it,
#   - PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) running.
# Progress goes to stderr, prefixed [provision]. Stdout carries one line only when the
# project's own Node is needed: the directory to prepend to PATH (or source
# scripts/node-env.sh, which does the same).
# Safe to run twice; a run with everything in place takes a few seconds.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_DIR="$REPO/.tools/node24"
NODE_BIN="$NODE_DIR/node_modules/.bin"
PG_MAJOR=15
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
PG_EXT_DIR="/usr/share/postgresql/$PG_MAJOR/extension"
PG_LIB_DIR="/usr/lib/postgresql/$PG_MAJOR/lib"
# fonts-liberation: chromium only recommends it, and --no-install-recommends would leave pages
# rendered in a fallback font.
APT_PACKAGES=(postgresql-server-dev-$PG_MAJOR build-essential dpkg-dev varnish varnish-modules chromium fonts-liberation)
WAIT_SECONDS=30

log() { printf '[provision] %s\n' "$*" >&2; }
die() { printf '[provision] ERROR: %s\n' "$*" >&2; exit 1; }

IS_ROOT=0
[[ "$(id -u)" == 0 ]] && IS_ROOT=1
PROBLEMS=()   # what is missing and cannot be fixed here; reported together at the end
START=$SECONDS
CLEANUP=()    # temp dirs removed on exit
cleanup() { if ((${#CLEANUP[@]})); then rm -rf "${CLEANUP[@]}"; fi; }
trap cleanup EXIT

# Major version of a node binary, or 0 when it does not run.
node_major() {
  local v
  v="$("$1" --version 2>/dev/null)" || { echo 0; return; }
  v="${v#v}"
  echo "${v%%.*}"
}

# ---------------------------------------------------------------- Node >= 22
ensure_node() {
  local sys_major=0
  if command -v node >/dev/null 2>&1; then sys_major="$(node_major node)"; fi
  if ((sys_major >= 22)); then
    log "node $(node --version) on PATH is recent enough"
    return
  fi
  if [[ -x "$NODE_BIN/node" && "$(node_major "$NODE_BIN/node")" == 24 ]]; then
    log "node $("$NODE_BIN/node" --version) already in $NODE_BIN"
  else
    command -v npm >/dev/null 2>&1 ||
      die "node >= 22 is needed and npm is missing to install it: install Node.js 22+ (e.g. apt-get install nodejs npm, then re-run)"
    log "system node is v$sys_major (< 22): installing node@24 into $NODE_DIR"
    mkdir -p "$NODE_DIR"
    npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error node@24 >&2
    [[ "$(node_major "$NODE_BIN/node")" == 24 ]] || die "node@24 install into $NODE_DIR did not produce a working node"
    log "installed node $("$NODE_BIN/node" --version)"
  fi
  log "put $NODE_BIN on PATH (or: . scripts/node-env.sh)"
  echo "$NODE_BIN"
  export PATH="$NODE_BIN:$PATH"
}

# ---------------------------------------------------------------- Debian packages
pkg_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

ensure_packages() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do pkg_installed "$p" || missing+=("$p"); done
  if ((${#missing[@]} == 0)); then
    log "Debian packages present: ${APT_PACKAGES[*]}"
    return
  fi
  if ((!IS_ROOT)); then
    PROBLEMS+=("Debian packages missing: ${missing[*]} -- install as root: apt-get update && apt-get install -y ${missing[*]} (or run this script as root)")
    return
  fi
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -q -o DPkg::Lock::Timeout=300 update >&2
  apt-get -q -y -o DPkg::Lock::Timeout=300 install --no-install-recommends "${missing[@]}" >&2
  for p in "${missing[@]}"; do pkg_installed "$p" || die "apt-get install did not install $p"; done
}

# ---------------------------------------------------------------- services
pg_ready() { pg_isready -q -h 127.0.0.1 -p 5432 -t 2 >/dev/null 2>&1; }

redis_ready() {
  if command -v redis-cli >/dev/null 2>&1; then
    [[ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" == PONG ]]
  else
    # No client: speak the inline protocol over bash's /dev/tcp.
    local reply
    reply="$(timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6379 && printf "PING\r\n" >&3 && head -c 5 <&3' 2>/dev/null || true)"
    [[ "$reply" == "+PONG" ]]
  fi
}

wait_for() { # name check-function
  local i
  for ((i = 0; i < WAIT_SECONDS * 2; i++)); do
    "$2" && return 0
    sleep 0.5
  done
  return 1
}

ensure_services() {
  if pg_ready; then
    log "PostgreSQL answers on 127.0.0.1:5432"
  else
    log "starting PostgreSQL $PG_MAJOR"
    pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main start >&2 ||
      log "pg_ctlcluster failed (not root or postgres?); waiting anyway"
    wait_for PostgreSQL pg_ready ||
      die "PostgreSQL does not answer on 127.0.0.1:5432 after ${WAIT_SECONDS}s; start it with: pg_ctlcluster --skip-systemctl-redirect $PG_MAJOR main start"
    log "PostgreSQL is up"
  fi
  if redis_ready; then
    log "Redis answers on 127.0.0.1:6379"
  else
    log "starting Redis"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2 ||
      log "redis-server failed to start; waiting anyway"
    wait_for Redis redis_ready ||
      die "Redis does not answer on 127.0.0.1:6379 after ${WAIT_SECONDS}s; see /var/log/redis/ci.log"
    log "Redis is up"
  fi
}

# ---------------------------------------------------------------- pgvector
# The Debian mirror this machine already uses (it may be a mirror or proxy host), so the
# trixie source comes the same way the machine's bookworm packages do.
debian_mirror() {
  local uri
  uri="$(
    {
      cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
      cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        sed -n 's/^[[:space:]]*deb\(-src\)\?[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\3/p'
    } | grep -E '^https?://[^[:space:]]+/debian/?$' | head -n1 || true
  )"
  echo "${uri:-http://deb.debian.org/debian}"
}

pgvector_installed() {
  [[ -f "$PG_EXT_DIR/vector.control" && -f "$PG_LIB_DIR/vector.so" ]]
}

build_pgvector() {
  local tmp mirror keyring apt_opts=() src
  tmp="$(mktemp -d /tmp/provision-pgvector.XXXXXX)"
  CLEANUP+=("$tmp")
  chmod 755 "$tmp"
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
  # apt drops to _apt for downloads; let it write there (avoids the unsandboxed warning).
  if id _apt >/dev/null 2>&1; then chown -R _apt "$tmp/lists" "$tmp/cache" "$tmp/src"; fi
  mirror="$(debian_mirror)"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  if [[ -f /usr/share/keyrings/debian-archive-trixie-stable.gpg ]]; then
    echo "deb-src [signed-by=$keyring] $mirror trixie main" >"$tmp/sources.list"
  else
    # Old keyring without trixie's keys: the .dsc checksums still come from the index.
    log "no trixie key in debian-archive-keyring: fetching the source unauthenticated"
    echo "deb-src [trusted=yes] $mirror trixie main" >"$tmp/sources.list"
    apt_opts+=(--allow-unauthenticated)
  fi
  # Own source list, lists and cache: the machine's apt state is not touched.
  local private=(-q -o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache")
  log "fetching pgvector source from $mirror trixie (private apt configuration)"
  apt-get "${private[@]}" update >&2
  (cd "$tmp/src" && apt-get "${private[@]}" "${apt_opts[@]}" source pgvector >&2)
  src="$(find "$tmp/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n1)"
  [[ -n "$src" ]] || die "apt-get source pgvector produced no source tree"
  log "building $(basename "$src") against PostgreSQL $PG_MAJOR"
  # OPTFLAGS= : no -march=native, so the library runs on any x86-64 this disk lands on.
  make -C "$src" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS= >"$tmp/build.log" 2>&1 ||
    { tail -n 30 "$tmp/build.log" >&2; die "pgvector build failed"; }
  make -C "$src" PG_CONFIG="$PG_CONFIG" OPTFLAGS= install >>"$tmp/build.log" 2>&1 ||
    { tail -n 30 "$tmp/build.log" >&2; die "pgvector install failed"; }
  log "pgvector installed"
}

ensure_pgvector() {
  if pgvector_installed; then
    log "pgvector files present in $PG_EXT_DIR"
  elif ((!IS_ROOT)); then
    PROBLEMS+=("pgvector is not installed for PostgreSQL $PG_MAJOR -- run this script as root (sudo bash scripts/provision.sh) to build it from Debian trixie's source")
    return
  elif ! pkg_installed postgresql-server-dev-$PG_MAJOR || ! pkg_installed dpkg-dev; then
    die "cannot build pgvector: postgresql-server-dev-$PG_MAJOR and dpkg-dev are required"
  else
    build_pgvector
  fi
  # template1: every database created from now on has the extension.
  PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d template1 \
    -c 'CREATE EXTENSION IF NOT EXISTS vector' >&2 ||
    die "CREATE EXTENSION vector failed in template1"
}

# ---------------------------------------------------------------- summary
summary() {
  local node_v pg_v vec_v redis_v varnish_v chromium_v
  node_v="$(node --version 2>/dev/null || echo none)"
  pg_v="$(psql -X -At -h 127.0.0.1 -U postgres -d template1 -c 'SHOW server_version' 2>/dev/null | cut -d' ' -f1 || true)"
  vec_v="$(psql -X -At -h 127.0.0.1 -U postgres -d template1 \
    -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'" 2>/dev/null || true)"
  redis_v="$(redis-server --version 2>/dev/null | sed -n 's/.*v=\([^ ]*\).*/\1/p' || true)"
  if varnish_v="$(varnishd -V 2>&1 | sed -n 's/.*(varnish-\([^ ]*\).*/\1/p' | head -n1)" && [[ -n "$varnish_v" ]]; then :; else
    PROBLEMS+=("varnishd -V does not work -- apt-get install varnish varnish-modules")
    varnish_v=none
  fi
  if [[ ! -f /usr/lib/x86_64-linux-gnu/varnish/vmods/libvmod_xkey.so ]] &&
    ! compgen -G '/usr/lib/*/varnish/vmods/libvmod_xkey.so' >/dev/null; then
    PROBLEMS+=("the xkey vmod is missing -- apt-get install varnish-modules")
  fi
  if chromium_v="$(chromium --version 2>/dev/null | head -n1)" && [[ -n "$chromium_v" ]]; then
    chromium_v="$(awk '{print $2}' <<<"$chromium_v")"
  else
    PROBLEMS+=("chromium --version does not work -- apt-get install chromium")
    chromium_v=none
  fi
  log "node $node_v | postgresql ${pg_v:-?} | pgvector ${vec_v:-none} | redis ${redis_v:-?} | varnish $varnish_v | chromium $chromium_v | $((SECONDS - START))s"
}

ensure_node
ensure_packages
ensure_services
ensure_pgvector
summary

if ((${#PROBLEMS[@]})); then
  for p in "${PROBLEMS[@]}"; do log "MISSING: $p"; done
  die "provisioning incomplete (${#PROBLEMS[@]} problem(s) above)"
fi
log "ok"
