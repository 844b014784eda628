#!/usr/bin/env bash
# The main job on the embedded defaults, from a fresh clone: installs the toolchain and n8n (once), then
# runs `selling-kit dev` (Temporal dev server + simulator + worker + n8n with the example workflows + a
# demo bulk listing). setup.sh exports SELLING_KIT_N8N_BIN, which `dev` starts. Ctrl-C stops it all.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec node packages/cli/src/main.ts dev "$@"
