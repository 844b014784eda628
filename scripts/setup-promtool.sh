#!/usr/bin/env bash
# Installs promtool, Prometheus's rule checker, for the alert-rule test (deploy/prometheus/alerts.yml:
# `promtool check rules` and `promtool test rules`). Built from the Go module proxy like the Temporal
# server (setup-temporal-server.sh): `github.com/prometheus/prometheus/cmd/promtool` at the module tag
# of Prometheus 3.x (v0.<minor>.<patch>), cached under $SELLING_KIT_CACHE/promtool-<version>-static.
# Built with `-tags remove_all_sd`: without the cloud service-discovery plugins (AWS, Azure, GCE, …),
# which rules and a prometheus.yml of static targets do not need. Measured on this project's 2-core
# machine, from empty Go caches: 5 min with the tag, against 27 min without it (beside other work).
# Idempotent and quiet when cached.
# Sourced by setup.sh's topology part (SELLING_KIT_TOPOLOGY=1); run alone:  bash scripts/setup-promtool.sh
# Exports SELLING_KIT_PROMTOOL (the binary). SELLING_KIT_SKIP_PROMTOOL=1 skips it (the alert-rule test
# then fails loudly, naming this file).
# shellcheck source=scripts/setup-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

_promtool_main() {
  local version="${SELLING_KIT_PROMTOOL_VERSION:-0.316.0}"
  local dir
  dir="$(_sk_cache_dir)/promtool-$version-static"
  say_pt() { printf '[setup-promtool] %s\n' "$*" >&2; }

  _sk_setup_skipped say_pt SELLING_KIT_SKIP_PROMTOOL "building promtool" && return 0

  if [ ! -x "$dir/promtool" ]; then
    _sk_go_build say_pt "$dir" "promtool v$version" "~5 min" promtool \
      -- -tags remove_all_sd "github.com/prometheus/prometheus/cmd/promtool@v$version" || return 1
  fi
  export SELLING_KIT_PROMTOOL="$dir/promtool"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  _promtool_main
  printf '[setup-promtool] promtool: %s\n' "${SELLING_KIT_PROMTOOL:-}" >&2
else
  # Sourced by setup.sh: a failed build must not stop the rest of the set-up; the alert-rule test then
  # fails with a message naming this script.
  _promtool_main || printf '[setup-promtool] WARNING: set-up failed; the alert-rule test will fail\n' >&2
fi
