#!/usr/bin/env bash
# Installs what the native compose-topology tests need (idempotent, quiet when cached):
#   - the Temporal server docker-compose.yml runs (temporalio/server:1.31.0) and its schema tool
#     (temporal-sql-tool of temporalio/admin-tools:1.31.0), built from the Go module proxy like the
#     Temporal CLI in setup.sh (go.temporal.io/server has no replace directives): `cmd/server` and
#     `cmd/tools/sql`, cached under $SELLING_KIT_CACHE/temporal-server-<version> (first time ~5-8 min
#     on 2 cores, niced so it does not starve other work). The module source stays in the Go module
#     cache: its schema/postgresql/v12 folders are what the schema tool applies;
#   - the Temporal UI server of the temporalio/ui image compose runs (github.com/temporalio/ui-server/v2,
#     `cmd/server`), for deploy/native/temporal-ui.service;
#   - PostgreSQL from Debian's packages (apt-get) when `initdb` is missing.
# Only the test run needs this (.ci/run via setup.sh with SELLING_KIT_TOPOLOGY=1); the dev server of
# scripts/dev.sh does not. Run alone:  eval "$(bash scripts/setup-temporal-server.sh)"  (or `source` it):
# run as a program it prints the `export` lines on stdout, since a child cannot set its caller's variables.
# Exports SELLING_KIT_TEMPORAL_SERVER_BIN, SELLING_KIT_TEMPORAL_SQL_TOOL, SELLING_KIT_TEMPORAL_SERVER_SRC
# (module source: schema + sample configs), SELLING_KIT_TEMPORAL_UI_BIN (the UI server of
# deploy/native/temporal-ui.service) and SELLING_KIT_PG_BIN (folder of initdb/pg_ctl/postgres).
# SELLING_KIT_SKIP_TEMPORAL_SERVER=1 skips everything (the topology tests then fail loudly, naming this file).
# shellcheck source=scripts/setup-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

_temporal_server_main() {
  # The version docker-compose.yml pins (temporalio/server and temporalio/admin-tools images); the
  # compose test checks the two stay equal.
  local version="${SELLING_KIT_TEMPORAL_SERVER_VERSION:-1.31.0}"
  local cache
  cache="$(_sk_cache_dir)"
  local dir="$cache/temporal-server-$version"
  # The module source _sk_go_build leaves in Go's module cache.
  local src="$cache/go/mod/go.temporal.io/server@v$version"
  say_ts() { printf '[setup-temporal-server] %s\n' "$*" >&2; }

  _sk_setup_skipped say_ts SELLING_KIT_SKIP_TEMPORAL_SERVER "building the Temporal server / installing PostgreSQL" \
    && return 0

  # --- Temporal server + temporal-sql-tool ---------------------------------------------------------
  if [ ! -x "$dir/server" ] || [ ! -x "$dir/sql" ] || [ ! -d "$src/schema/postgresql/v12" ]; then
    _sk_go_build say_ts "$dir" "Temporal server v$version + temporal-sql-tool" "~5-8 min" server sql \
      -- "go.temporal.io/server/cmd/server@v$version" "go.temporal.io/server/cmd/tools/sql@v$version" || return 1
  fi
  export SELLING_KIT_TEMPORAL_SERVER_BIN="$dir/server"
  export SELLING_KIT_TEMPORAL_SQL_TOOL="$dir/sql"
  export SELLING_KIT_TEMPORAL_SERVER_SRC="$src"

  # --- Temporal UI server (deploy/native/temporal-ui.service) -------------------------------------
  # The binary of the temporalio/ui image docker-compose.yml pins (the native test checks the two stay
  # equal): the Go module github.com/temporalio/ui-server/v2, whose UI assets are in the module (so the
  # binary is large, ~450 MB). Cached like the server.
  local ui_version="${SELLING_KIT_TEMPORAL_UI_VERSION:-2.49.1}"
  local ui_dir="$cache/temporal-ui-$ui_version"
  if [ ! -x "$ui_dir/ui-server" ]; then
    _sk_go_build say_ts "$ui_dir" "Temporal UI server v$ui_version" "a few minutes" server:ui-server \
      -- "github.com/temporalio/ui-server/v2/cmd/server@v$ui_version" || return 1
  fi
  export SELLING_KIT_TEMPORAL_UI_BIN="$ui_dir/ui-server"

  # --- PostgreSQL (Debian package) ---------------------------------------------------------------
  local pgbin=""
  if command -v initdb >/dev/null 2>&1; then
    pgbin="$(dirname "$(readlink -f "$(command -v initdb)")")"
  else
    # Debian installs the binaries under /usr/lib/postgresql/<major>/bin, not on PATH.
    pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
  fi
  if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
    _sk_apt_install say_ts postgresql "$cache/postgresql-apt.log" || return 1
    pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
    [ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] || { say_ts "ERROR: initdb not found after installing postgresql"; return 1; }
  fi
  export SELLING_KIT_PG_BIN="$pgbin"
  # PostgreSQL refuses to run as root: the harness starts it as this unprivileged user (Debian's
  # package creates it).
  if [ "$(id -u)" = "0" ] && ! id postgres >/dev/null 2>&1; then
    say_ts "ERROR: running as root and no 'postgres' system user to start PostgreSQL as"; return 1
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  _temporal_server_main
  # Run as a program it cannot change the caller's shell: it prints the exports on stdout instead
  # (progress goes to stderr), for `eval "$(bash scripts/setup-temporal-server.sh)"`.
  for name in SELLING_KIT_TEMPORAL_SERVER_BIN SELLING_KIT_TEMPORAL_SQL_TOOL SELLING_KIT_TEMPORAL_SERVER_SRC \
    SELLING_KIT_TEMPORAL_UI_BIN SELLING_KIT_PG_BIN; do
    printf 'export %s=%q\n' "$name" "${!name:-}"
  done
else
  # Sourced by setup.sh: a failed build must not stop the rest of the set-up or the other tests; the
  # topology tests then fail with a message naming this script.
  _temporal_server_main || printf '[setup-temporal-server] WARNING: set-up failed; the topology tests will fail\n' >&2
fi
