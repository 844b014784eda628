#!/usr/bin/env bash
# Installs what the n8n end-to-end tests need (idempotent, quiet when cached):
#   - n8n 2.40.7 (real instance) under $SELLING_KIT_CACHE/n8n-2.40.7, with the recipe of TOOLCHAIN.md:
#     linkedom pinned to 0.18.12 (0.18.15 needs a package missing from the registry), --ignore-scripts
#     (the Kafka client's native build downloads from the internet), then `npm rebuild sqlite3` against
#     Node 24's headers;
#   - Debian's chromium (apt-get) for the headless editor check, when missing.
# Needs Node 24 on PATH (scripts/setup.sh sources this file after installing it). Run alone:
#   bash scripts/setup-n8n.sh
# Exports SELLING_KIT_N8N_BIN (path of n8n's bin script) when the install is complete.
# SELLING_KIT_SKIP_N8N=1 skips everything (the e2e tests then fail loudly, they are not skipped).
# Run alone it exits non-zero on failure; sourced (setup.sh) it warns and lets the set-up go on.
# shellcheck source=scripts/setup-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

# One install at a time: set-ups run side by side (parallel test runs on one machine) would otherwise
# reinstall n8n and rebuild sqlite3 over each other's half-built files.
_n8n_main() {
  local cache lockfd rc=0
  cache="$(_sk_cache_dir)"
  mkdir -p "$cache"
  exec {lockfd}>"$cache/n8n.lock"
  flock "$lockfd"
  _n8n_install || rc=$?
  exec {lockfd}>&-
  return "$rc"
}

_n8n_install() {
  local version="${SELLING_KIT_N8N_VERSION:-2.40.7}"
  local cache nodedir
  cache="$(_sk_cache_dir)"
  # Node 24, where setup.sh installed it (SELLING_KIT_NODE_VERSION: the same default as setup.sh's).
  nodedir="$(_sk_node_pkg "${SELLING_KIT_NODE_VERSION:-24.9.0}")"
  local dir="$cache/n8n-$version"
  local marker="$dir/.installed"
  local bin="$dir/node_modules/n8n/bin/n8n"
  say_n8n() { printf '[setup-n8n] %s\n' "$*" >&2; }

  _sk_setup_skipped say_n8n SELLING_KIT_SKIP_N8N "installing n8n/chromium" && return 0
  [ -x "$nodedir/bin/node" ] || { say_n8n "ERROR: Node 24 not found at $nodedir (run scripts/setup.sh)"; return 1; }
  # Node 24 first on PATH for npm and node-gyp (harmless when setup.sh already did it).
  export PATH="$nodedir/bin:$PATH"

  if [ ! -f "$marker" ] || [ ! -f "$bin" ]; then
    local t0=$SECONDS
    say_n8n "installing n8n $version into $dir (first time only, ~4-6 min, ~2.8 GB)"
    mkdir -p "$dir"
    rm -f "$marker"
    cat >"$dir/package.json" <<EOF
{
  "name": "selling-kit-n8n-harness",
  "private": true,
  "description": "n8n $version for selling-kit's end-to-end tests (installed by scripts/setup-n8n.sh)",
  "dependencies": { "n8n": "$version" },
  "overrides": { "linkedom": "0.18.12" }
}
EOF
    (
      cd "$dir"
      npm_config_loglevel=error npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false \
        npm install --ignore-scripts --no-package-lock >"$dir/install.log" 2>&1
    ) || { say_n8n "ERROR: npm install n8n@$version failed (log: $dir/install.log)"; tail -n 20 "$dir/install.log" >&2; return 1; }
    say_n8n "building sqlite3 against Node 24 headers (~2 min)"
    (
      cd "$dir"
      npm_config_nodedir="$nodedir" npm_config_loglevel=error npm rebuild sqlite3 >"$dir/rebuild.log" 2>&1
    ) || { say_n8n "ERROR: npm rebuild sqlite3 failed (log: $dir/rebuild.log)"; tail -n 20 "$dir/rebuild.log" >&2; return 1; }
    # isolated-vm (expression engine) ships a Node 24 prebuild; build it only if it does not load.
    if ! (cd "$dir" && node -e "require('isolated-vm')" >/dev/null 2>&1); then
      say_n8n "isolated-vm prebuild did not load; rebuilding it"
      (cd "$dir" && npm_config_nodedir="$nodedir" npm rebuild isolated-vm >>"$dir/rebuild.log" 2>&1) \
        || { say_n8n "ERROR: npm rebuild isolated-vm failed (log: $dir/rebuild.log)"; return 1; }
    fi
    (cd "$dir" && node -e "require('sqlite3')") >/dev/null 2>&1 \
      || { say_n8n "ERROR: sqlite3 does not load after the rebuild (log: $dir/rebuild.log)"; return 1; }
    date -u +%FT%TZ >"$marker"
    say_n8n "n8n $version installed in $((SECONDS - t0)) s"
  fi
  export SELLING_KIT_N8N_BIN="$bin"

  # --- Chromium (Debian package) for the editor check ---------------------------------------------
  if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
    _sk_apt_install say_n8n chromium "$cache/chromium-apt.log" || return 1
  fi
  if [ -x /usr/bin/chromium ]; then export SELLING_KIT_CHROMIUM="/usr/bin/chromium"
  else export SELLING_KIT_CHROMIUM="$(command -v chromium)"; fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  _n8n_main
  printf '[setup-n8n] n8n: %s\n[setup-n8n] chromium: %s\n' "${SELLING_KIT_N8N_BIN:-}" "${SELLING_KIT_CHROMIUM:-}" >&2
else
  # Sourced by setup.sh: a failed install must not stop the rest of the set-up or the other tests; the
  # n8n end-to-end tests then fail with a message naming this script.
  _n8n_main || printf '[setup-n8n] WARNING: n8n/chromium set-up failed; the n8n end-to-end tests will fail\n' >&2
fi
