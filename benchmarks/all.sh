#!/usr/bin/env bash
# Every figure of docs/PERFORMANCE.md and docs/FAULTS.md, one benchmark after the other, each
# printed under its own command (about 21 minutes on 2 cores; the 10-minute load run is most of
# it). Run from anywhere, after ./scripts/test.sh or ./scripts/serve.sh made .venv:
#
#     ./benchmarks/all.sh | tee benchmarks.md
#
# Nothing else should run meanwhile: the figures are times.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python

run() {
  printf '\n## %s\n\n' "$*"
  "$py" "$@"
}

printf '# Benchmarks, %s\n\nMachine: %s, %s cores, %s\n' "$(date -u +%F)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" "$(nproc)" \
  "$("$py" --version)"
run benchmarks/run.py
run benchmarks/voice.py --warm-cache
run benchmarks/load.py --clients 30 --minutes 10
run benchmarks/flood.py --seconds 60
run benchmarks/power_cuts.py --kills 100 --seed 1
run benchmarks/oraklos_predictions.py
run benchmarks/sages_opponent.py
run benchmarks/vision_pips.py --no-1280
run benchmarks/vision_scenes.py --scenes 3 --family even
run benchmarks/vision_pip_colors.py
run benchmarks/vision_speed.py
run benchmarks/eleusis_rules.py
