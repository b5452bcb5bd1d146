#!/usr/bin/env bash
# The suite on a busy machine (issue 26): two clean clones of HEAD run `bash .ci/run` side by
# side, PAIRS times in a row; each run's last line is printed, and the exit status is 1 if any
# run failed. About 26 minutes a pair on a 2-core machine. The clones sit beside a copy of
# ../shared (the photos the tests read), in a folder removed at the end.
#
#   ./scripts/busy_suites.sh [PAIRS]      PAIRS: 1 by default
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commit=$(git rev-parse --short HEAD)
failed=0
for pair in $(seq "$pairs"); do
  declare -A pids=()
  for side in a b; do
    mkdir -p "$work/$side"
    git clone -q . "$work/$side/p"
    if [ -d ../shared ]; then cp -r ../shared "$work/$side/"; fi
    (cd "$work/$side/p" && bash .ci/run >"$work/$side.log" 2>&1) &
    pids[$side]=$!
  done
  for side in a b; do
    if wait "${pids[$side]}"; then result=passed; else result=FAILED; failed=1; fi
    printf '%s pair %s, run %s: %s (%s)\n' "$commit" "$pair" "$side" "$result" \
      "$(grep -E '(passed|failed)' "$work/$side.log" | tail -n 1)"
    if [ "$result" = FAILED ]; then cp "$work/$side.log" "busy-$commit-$pair-$side.log"; fi
  done
  rm -rf "${work:?}/a" "${work:?}/b"
done
exit "$failed"
