#!/bin/sh
# Dumps the deployment's databases into a folder: Temporal's (histories: temporal; the list index:
# temporal_visibility) and the kit's (selling_kit: job snapshots, reports, token store, client keyring
# when kept there), each as its own role (it owns its databases), custom format (pg_restore). Secrets and
# files to keep beside the dumps: deploy/README.md "Backup and restore". Usage: backup.sh <folder>.
# Environment: SELLING_KIT_ETC (default /etc/selling-kit), whose settings and secrets it reads.
set -eu
# The dumps hold job inputs, reports, sealed tokens and the sealed client keyring: the operator's only.
umask 077
OUT="${1:?usage: backup.sh <folder>}"
ETC="${SELLING_KIT_ETC:-/etc/selling-kit}"
set -a
# shellcheck disable=SC1091
. "$ETC/selling-kit.env"
set +a
secret() { sed -n "s/^$2=//p" "$ETC/$1" | tail -n 1; }
mkdir -p "$OUT"
# dump <role> <password> <database>: pg_dump reads the password from its environment, never argv.
dump() {
  PGPASSWORD="$2" pg_dump -Fc -h "$POSTGRES_SEEDS" -p "$DB_PORT" -U "$1" -d "$3" -f "$OUT/$3.dump.tmp"
  mv "$OUT/$3.dump.tmp" "$OUT/$3.dump"
  echo "[backup] $OUT/$3.dump"
}
for db in $(echo "$TEMPORAL_DB_NAMES" | tr ',' ' '); do
  dump "$TEMPORAL_DB_USER" "$(secret temporal.secrets POSTGRES_PWD)" "$db"
done
dump "$SELLING_KIT_DB_USER" "$(secret worker.secrets PGPASSWORD)" "$SELLING_KIT_DB_NAME"
