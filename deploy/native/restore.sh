#!/bin/sh
# Restores backup.sh's dumps into the cluster of the settings (POSTGRES_SEEDS, DB_PORT), after
# install.sh made the roles and databases there: each database's objects are replaced by the dump's
# (--clean --if-exists), owners kept (the roles exist). Run as the superuser PG_SUPERUSER (its password:
# PGPASSWORD in this script's environment), with the servers and workers stopped. Usage: restore.sh <folder>.
set -eu
IN="${1:?usage: restore.sh <folder>}"
ETC="${SELLING_KIT_ETC:-/etc/selling-kit}"
set -a
# shellcheck disable=SC1091
. "$ETC/selling-kit.env"
set +a
for db in $(echo "$TEMPORAL_DB_NAMES" | tr ',' ' ') "$SELLING_KIT_DB_NAME"; do
  [ -f "$IN/$db.dump" ] || { echo "[restore] $IN/$db.dump is missing" >&2; exit 1; }
  pg_restore --clean --if-exists --exit-on-error --single-transaction \
    -h "${PGHOST:-$POSTGRES_SEEDS}" -p "${PGPORT:-$DB_PORT}" -U "$PG_SUPERUSER" -d "$db" "$IN/$db.dump"
  echo "[restore] $db"
done
