#!/bin/sh
# Installs the native (no Docker) deployment's database side and its units. Idempotent: run it again
# after an upgrade or on a restored cluster; what exists is kept. Steps:
#   1. /etc/selling-kit/selling-kit.env from deploy/native/selling-kit.env when missing (edit it, re-run);
#   2. the secrets files the units read, when missing, with fresh random values (mode 0600):
#        temporal.secrets  POSTGRES_PWD (the temporal role's password)
#        worker.secrets    PGPASSWORD (the selling_kit role's), SELLING_KIT_CODEC_KEY, SELLING_KIT_TOKEN_STORE_KEY
#        n8n.secrets       DB_POSTGRESDB_PASSWORD (the n8n role's)
#        codec-server.secrets  SELLING_KIT_CODEC_SERVER_TOKEN (the codec endpoint's bearer token)
#      An existing file is kept as it is: bring your own keys by writing the file before running this;
#   3. the PostgreSQL roles and databases: deploy/postgres/init-roles.sh, as the superuser PG_SUPERUSER
#      (its password: PGPASSWORD in this script's environment, or a socket folder in PGHOST);
#   4. Temporal's schema: deploy/temporal/setup-postgres.sh, as the temporal role;
#   5. the worker's data folder and the unit files (temporal-server, selling-kit-namespace,
#      selling-kit-worker@, and the optional temporal-ui and selling-kit-codec-server) into
#      SYSTEMD_UNIT_DIR (default /etc/systemd/system), then `systemctl daemon-reload` when systemd runs.
# The namespace is made by selling-kit-namespace.service once the server runs.
# Environment: SELLING_KIT_ETC (default /etc/selling-kit), SYSTEMD_UNIT_DIR; PGHOST / PGPORT override the
# settings' POSTGRES_SEEDS / DB_PORT for step 3 only (e.g. PGHOST=/var/run/postgresql as `postgres`).
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
ETC="${SELLING_KIT_ETC:-/etc/selling-kit}"
UNITS="${SYSTEMD_UNIT_DIR:-/etc/systemd/system}"

say() { printf '[install] %s\n' "$*"; }

# 1. Settings.
mkdir -p "$ETC"
if [ ! -f "$ETC/selling-kit.env" ]; then
  cp "$HERE/selling-kit.env" "$ETC/selling-kit.env"
  say "wrote $ETC/selling-kit.env (the defaults): edit it and run this again if they do not fit"
fi
set -a
# shellcheck disable=SC1091
. "$ETC/selling-kit.env"
set +a

# 2. Secrets: only when missing (a file is written whole, 0600, before anything reads it).
random_hex() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }
random_key() { head -c 32 /dev/urandom | base64 | tr -d '\n'; }
secrets() { # <file> <KEY=value lines…>
  file="$ETC/$1"
  shift
  if [ -f "$file" ]; then
    say "$file exists: kept"
    return
  fi
  (umask 077 && printf '%s\n' "$@" >"$file.tmp" && mv "$file.tmp" "$file")
  say "wrote $file"
}
secrets temporal.secrets "POSTGRES_PWD=$(random_hex)"
secrets worker.secrets "PGPASSWORD=$(random_hex)" "SELLING_KIT_CODEC_KEY=$(random_key)" \
  "SELLING_KIT_TOKEN_STORE_KEY=$(random_key)"
secrets n8n.secrets "DB_POSTGRESDB_PASSWORD=$(random_hex)"
secrets codec-server.secrets "SELLING_KIT_CODEC_SERVER_TOKEN=$(random_hex)$(random_hex)"
# secret <file> <KEY>: one value, read without sourcing the file into this shell's exports.
secret() { sed -n "s/^$2=//p" "$ETC/$1" | tail -n 1; }
TEMPORAL_PASSWORD="$(secret temporal.secrets POSTGRES_PWD)"

# 3. Roles and databases, as the superuser (once per cluster; again is harmless).
say "roles and databases on ${PGHOST:-$POSTGRES_SEEDS}:${PGPORT:-$DB_PORT}"
PGHOST="${PGHOST:-$POSTGRES_SEEDS}" PGPORT="${PGPORT:-$DB_PORT}" POSTGRES_USER="$PG_SUPERUSER" \
  TEMPORAL_DB_PASSWORD="$TEMPORAL_PASSWORD" \
  N8N_DB_PASSWORD="$(secret n8n.secrets DB_POSTGRESDB_PASSWORD)" \
  SELLING_KIT_DB_PASSWORD="$(secret worker.secrets PGPASSWORD)" \
  sh "$REPO/deploy/postgres/init-roles.sh"

# 4. Temporal's schema, as its role (POSTGRES_USER of the settings).
say "Temporal schema"
SQL_PASSWORD="$TEMPORAL_PASSWORD" sh "$REPO/deploy/temporal/setup-postgres.sh"

# 5. The worker's data folder (credentials.json, feeds/) and the units.
mkdir -p "$SELLING_KIT_DATA/feeds"
if [ "$(id -u)" = 0 ] && id selling-kit >/dev/null 2>&1; then
  chown selling-kit: "$SELLING_KIT_DATA" "$SELLING_KIT_DATA/feeds"
fi
mkdir -p "$UNITS"
for unit in temporal-server.service selling-kit-namespace.service selling-kit-worker@.service \
  temporal-ui.service selling-kit-codec-server.service; do
  cp "$HERE/$unit" "$UNITS/$unit"
done
say "units in $UNITS: temporal-server, selling-kit-namespace, selling-kit-worker@, temporal-ui, selling-kit-codec-server"
if [ -d /run/systemd/system ] && [ "$UNITS" = /etc/systemd/system ]; then
  systemctl daemon-reload
fi
say "done: systemctl enable --now temporal-server selling-kit-namespace selling-kit-worker@9464"
