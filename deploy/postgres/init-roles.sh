#!/bin/sh
# Least privilege in PostgreSQL: one login role per service, each owning its own databases and alone
# allowed to connect to them. Run ONCE as the superuser: by the `postgresql` service on the first start of
# an empty data volume (mounted in /docker-entrypoint-initdb.d, where the image runs it), and by the native
# topology's set-up (packages/temporal-workflows/test/topology/pg-roles.ts; deploy/README.md "Without
# Docker"). Afterwards no service connects as the superuser. Idempotent: a role or database that exists is
# kept (its password is set again; an existing database and what is in it are handed to its role), so
# running it twice is harmless, and running it once on a volume from before the roles upgrades it.
#
# Environment (names: deploy/env/postgresql.env; passwords: .env):
#   TEMPORAL_DB_USER, TEMPORAL_DB_NAMES (comma-separated), TEMPORAL_DB_PASSWORD
#   N8N_DB_USER, N8N_DB_NAME, N8N_DB_PASSWORD
#   SELLING_KIT_DB_USER, SELLING_KIT_DB_NAME, SELLING_KIT_DB_PASSWORD (the job store and the token store)
#   POSTGRES_USER (the superuser, default postgres); connection from libpq's PGHOST/PGPORT/PGPASSWORD
#   (inside the image: its Unix socket).
# Passwords reach psql through its environment (\getenv), never its command line (visible in `ps`).
set -eu
: "${TEMPORAL_DB_USER:?}" "${TEMPORAL_DB_NAMES:?}" "${TEMPORAL_DB_PASSWORD:?TEMPORAL_DB_PASSWORD is required}"
: "${N8N_DB_USER:?}" "${N8N_DB_NAME:?}" "${N8N_DB_PASSWORD:?N8N_DB_PASSWORD is required}"
: "${SELLING_KIT_DB_USER:?}" "${SELLING_KIT_DB_NAME:?}" "${SELLING_KIT_DB_PASSWORD:?SELLING_KIT_DB_PASSWORD is required}"

psql_super() {
  psql -v ON_ERROR_STOP=1 -X -q --username "${POSTGRES_USER:-postgres}" --dbname postgres "$@"
}

# role <name> <password variable>: a login role with no attribute beyond LOGIN.
role() {
  ROLE_NAME="$1" psql_super <<SQL
\getenv role_name ROLE_NAME
\getenv role_password $2
SELECT format('CREATE ROLE %I LOGIN', :'role_name')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role_name') \gexec
SELECT format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT PASSWORD %L',
              :'role_name', :'role_password') \gexec
SQL
}

# database <name> <owner>: owned by the role (which may then create its tables and trusted extensions,
# e.g. Temporal visibility's btree_gin); CONNECT and TEMPORARY taken from PUBLIC, so no other role gets in.
database() {
  DB_NAME="$1" DB_OWNER="$2" psql_super <<'SQL'
\getenv db_name DB_NAME
\getenv db_owner DB_OWNER
SELECT format('CREATE DATABASE %I OWNER %I ENCODING %L TEMPLATE template0', :'db_name', :'db_owner', 'UTF8')
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db_name') \gexec
SELECT format('ALTER DATABASE %I OWNER TO %I', :'db_name', :'db_owner') \gexec
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', :'db_name') \gexec
SELECT format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO %I', :'db_name', :'db_owner') \gexec
SQL
  # Before PostgreSQL 15 the public schema let everyone create objects: make it the owner's alone. A
  # database that existed before the roles (a volume first started as one superuser for everything) is
  # handed over whole: its tables (with their sequences), views, free sequences, functions and types in
  # public become the role's; objects of extensions stay where they are.
  DB_OWNER="$2" psql -v ON_ERROR_STOP=1 -X -q --username "${POSTGRES_USER:-postgres}" --dbname "$1" <<'SQL'
\getenv db_owner DB_OWNER
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SELECT format('ALTER SCHEMA public OWNER TO %I', :'db_owner') \gexec
SELECT format('ALTER TABLE public.%I OWNER TO %I', tablename, :'db_owner')
  FROM pg_tables WHERE schemaname = 'public' AND tableowner <> :'db_owner' \gexec
SELECT format('ALTER VIEW public.%I OWNER TO %I', viewname, :'db_owner')
  FROM pg_views WHERE schemaname = 'public' AND viewowner <> :'db_owner' \gexec
SELECT format('ALTER SEQUENCE public.%I OWNER TO %I', c.relname, :'db_owner')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind = 'S' AND pg_get_userbyid(c.relowner) <> :'db_owner'
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i', 'e')) \gexec
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, :'db_owner')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> :'db_owner'
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') \gexec
SELECT format('ALTER TYPE public.%I OWNER TO %I', t.typname, :'db_owner')
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'r') AND pg_get_userbyid(t.typowner) <> :'db_owner'
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e') \gexec
SQL
}

role "${TEMPORAL_DB_USER}" TEMPORAL_DB_PASSWORD
role "${N8N_DB_USER}" N8N_DB_PASSWORD
role "${SELLING_KIT_DB_USER}" SELLING_KIT_DB_PASSWORD

for name in $(echo "${TEMPORAL_DB_NAMES}" | tr ',' ' '); do
  database "${name}" "${TEMPORAL_DB_USER}"
done
database "${N8N_DB_NAME}" "${N8N_DB_USER}"
database "${SELLING_KIT_DB_NAME}" "${SELLING_KIT_DB_USER}"

# The maintenance database is the superuser's: no service needs it.
psql_super -c 'REVOKE CONNECT, TEMPORARY ON DATABASE postgres FROM PUBLIC'
echo "roles ${TEMPORAL_DB_USER}, ${N8N_DB_USER}, ${SELLING_KIT_DB_USER} and their databases are set up"
