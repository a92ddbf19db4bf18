# Source me (bash or zsh): `. scripts/node-env.sh`. When the node on PATH is older than 22
# and scripts/provision.sh installed Node 24 into .tools/node24, put that one first on PATH.
if [ -n "${BASH_VERSION:-}" ]; then
  eval '_svc_env_file="${BASH_SOURCE[0]}"'
elif [ -n "${ZSH_VERSION:-}" ]; then
  eval '_svc_env_file="${(%):-%x}"'
else
  _svc_env_file="$PWD/scripts/node-env.sh" # plain sh cannot tell where a sourced file is
fi
_svc_node_bin="$(cd "$(dirname "$_svc_env_file")/.." && pwd)/.tools/node24/node_modules/.bin"
_svc_node_major="$(node --version 2>/dev/null | sed 's/^v\([0-9]*\).*/\1/')"
if [ -x "$_svc_node_bin/node" ] && [ "${_svc_node_major:-0}" -lt 22 ]; then
  PATH="$_svc_node_bin:$PATH"
  export PATH
fi
unset _svc_env_file _svc_node_bin _svc_node_major
