#!/usr/bin/env bash
# What the optional set-up scripts (setup-n8n.sh, setup-temporal-server.sh) share; each sources this
# file. Functions only, nothing runs. Each function takes the caller's `say` function (its own log
# prefix) first.

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
