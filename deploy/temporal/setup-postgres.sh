#!/bin/sh
# Temporal schema set-up, run once per `docker compose up` by the `temporal-schema` service
# (image temporalio/admin-tools, which ships temporal-sql-tool and the schema files under
# /etc/temporal/schema), and by the native harness (packages/temporal-workflows/test/topology/) with the
# tool and schema built from the same server version. Idempotent: a database that already exists is
# only brought up to date.
# Adapted from temporalio/samples-server compose/scripts/setup-postgres.sh (MIT).
# Environment (deploy/env/temporal-persistence.env): DB, POSTGRES_SEEDS (host), DB_PORT, POSTGRES_USER,
# DBNAME, VISIBILITY_DBNAME; SQL_PASSWORD (read by temporal-sql-tool: TEMPORAL_DB_PASSWORD from .env).
# Outside the image: TEMPORAL_SQL_TOOL (default temporal-sql-tool), SCHEMA_DIR (default
# /etc/temporal/schema).
set -eu
: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
PORT="${DB_PORT:-5432}"
PLUGIN="${DB:-postgres12}"
TOOL="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
SCHEMAS="${SCHEMA_DIR:-/etc/temporal/schema}/postgresql/v12"

if command -v nc >/dev/null 2>&1; then
  echo "waiting for PostgreSQL at ${POSTGRES_SEEDS}:${PORT}"
  until nc -z -w 5 "${POSTGRES_SEEDS}" "${PORT}"; do sleep 2; done
fi

sql() {
  "${TOOL}" --plugin "${PLUGIN}" --ep "${POSTGRES_SEEDS}" -p "${PORT}" -u "${POSTGRES_USER}" "$@"
}

# temporal: workflow histories and state; temporal_visibility: the list/search index (custom search
# attributes live there). Both are created by deploy/postgres/init-roles.sh, owned by POSTGRES_USER, which
# is not allowed to create databases: `create` is tried only for a set-up run as a superuser elsewhere.
# setup-schema -v 0.0 only adds the version tables when missing (a database already past 0.0 is left as
# it is), then update-schema applies what is new.
for db in "temporal:${DBNAME:-temporal}" "visibility:${VISIBILITY_DBNAME:-temporal_visibility}"; do
  dir="${db%%:*}"
  name="${db#*:}"
  if sql --db "${name}" create >/dev/null 2>&1; then
    echo "created database ${name}"
  else
    echo "database ${name} exists (deploy/postgres/init-roles.sh): bringing its schema up to date"
  fi
  sql --db "${name}" setup-schema -v 0.0
  sql --db "${name}" update-schema -d "${SCHEMAS}/${dir}/versioned"
done
echo "Temporal schema is up to date"
