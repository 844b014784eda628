#!/usr/bin/env bash
# The main job on the embedded defaults, from a fresh clone: installs the toolchain (once), then runs
# `selling-kit dev` (Temporal dev server + simulator + worker + a demo bulk listing). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec node packages/cli/src/main.ts dev "$@"
