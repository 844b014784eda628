#!/bin/sh
# Creates the namespace the worker uses and registers the search attributes selling-kit jobs carry
# (packages/temporal-workflows/src/search-attributes.ts). Run by the `temporal-namespace` service
# (image temporalio/admin-tools, which ships the `temporal` CLI) and by the native harness
# (packages/temporal-workflows/test/topology/). Idempotent.
# Environment (deploy/env/temporal-client.env): TEMPORAL_ADDRESS (host:port of the frontend),
# TEMPORAL_NAMESPACE (default "default"), SELLING_KIT_SEARCH_ATTRIBUTES (names, comma-separated).
# Outside the image: TEMPORAL_CLI (default temporal).
set -eu
ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
NS="${TEMPORAL_NAMESPACE:-default}"
ATTRIBUTES="${SELLING_KIT_SEARCH_ATTRIBUTES:?SELLING_KIT_SEARCH_ATTRIBUTES is required}"
CLI="${TEMPORAL_CLI:-temporal}"

attempt=1
until "${CLI}" operator cluster health --address "${ADDRESS}"; do
  [ "${attempt}" -ge 60 ] && { echo "Temporal at ${ADDRESS} did not become healthy"; exit 1; }
  attempt=$((attempt + 1))
  sleep 2
done

if "${CLI}" operator namespace describe --namespace "${NS}" --address "${ADDRESS}" >/dev/null 2>&1; then
  echo "namespace ${NS} exists"
else
  "${CLI}" operator namespace create --namespace "${NS}" --address "${ADDRESS}"
  echo "namespace ${NS} created"
fi

# A new namespace is served once the frontend's namespace registry has refreshed (seconds).
attempt=1
until "${CLI}" operator search-attribute list --namespace "${NS}" --address "${ADDRESS}" >/dev/null 2>&1; do
  [ "${attempt}" -ge 60 ] && { echo "namespace ${NS} is not served by ${ADDRESS}"; exit 1; }
  attempt=$((attempt + 1))
  sleep 1
done

for name in $(echo "${ATTRIBUTES}" | tr ',' ' '); do
  if "${CLI}" operator search-attribute list --namespace "${NS}" --address "${ADDRESS}" | grep -qw "${name}"; then
    echo "search attribute ${name} exists"
  else
    "${CLI}" operator search-attribute create --namespace "${NS}" --address "${ADDRESS}" \
      --name "${name}" --type Keyword
    echo "search attribute ${name} created"
  fi
done
