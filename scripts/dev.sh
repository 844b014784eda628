#!/usr/bin/env bash
# The main job on the embedded defaults, from a fresh clone: installs the toolchain (once), then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec pnpm --silent dev "$@"
