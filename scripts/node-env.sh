# Source me (bash or zsh): `. scripts/node-env.sh`. When the node on PATH does not satisfy every
# installed package's engine range (scripts/check-engines.js) and Node 24 is in .tools/node24
# (scripts/provision.sh or the first `npm start` installs it), put that one first on PATH.
if [ -n "${BASH_VERSION:-}" ]; then
  eval '_svc_env_file="${BASH_SOURCE[0]}"'
elif [ -n "${ZSH_VERSION:-}" ]; then
  eval '_svc_env_file="${(%):-%x}"'
else
  _svc_env_file="$PWD/scripts/node-env.sh" # plain sh cannot tell where a sourced file is
fi
_svc_repo="$(cd "$(dirname "$_svc_env_file")/.." && pwd)"
_svc_node_bin="$_svc_repo/.tools/node24/node_modules/.bin"
if [ -x "$_svc_node_bin/node" ] && ! node "$_svc_repo/scripts/check-engines.js" --quiet 2>/dev/null; then
  PATH="$_svc_node_bin:$PATH"
  export PATH
fi
unset _svc_env_file _svc_node_bin _svc_repo
