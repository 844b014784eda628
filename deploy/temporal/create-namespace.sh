#!/bin/sh
# Creates the namespace the worker uses and registers the search attributes selling-kit jobs carry
# (packages/temporal-workflows/src/search-attributes.ts). Run by the `temporal-namespace` service
# (image temporalio/admin-tools, which ships the `temporal` CLI). Idempotent.
# Environment: TEMPORAL_ADDRESS (host:port of the frontend), NAMESPACE (default "default").
set -eu
ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
NS="${NAMESPACE:-default}"

attempt=1
until temporal operator cluster health --address "${ADDRESS}"; do
  [ "${attempt}" -ge 60 ] && { echo "Temporal at ${ADDRESS} did not become healthy"; exit 1; }
  attempt=$((attempt + 1))
  sleep 2
done

if temporal operator namespace describe --namespace "${NS}" --address "${ADDRESS}" >/dev/null 2>&1; then
  echo "namespace ${NS} exists"
else
  temporal operator namespace create --namespace "${NS}" --address "${ADDRESS}"
  echo "namespace ${NS} created"
fi

for name in SellingKitShop SellingKitJobId SellingKitOperation; do
  if temporal operator search-attribute list --namespace "${NS}" --address "${ADDRESS}" | grep -qw "${name}"; then
    echo "search attribute ${name} exists"
  else
    temporal operator search-attribute create --namespace "${NS}" --address "${ADDRESS}" \
      --name "${name}" --type Keyword
    echo "search attribute ${name} created"
  fi
done
