# shellcheck shell=bash
# What the deploy scripts share; sourced, never run. `die` names the script that sourced it.

say() { printf '%s\n' "$*"; }
die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Runs a command with its output kept aside; shows it only if the command fails.
quietly() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    die "failed: $*"
  fi
  rm -f "$log"
}
