#!/usr/bin/env bash
# Set up and start the companion. On a laptop it runs in simulation (virtual button panel on the
# host page); on a Raspberry Pi it uses the GPIO buttons. Arguments go to `companion serve`
# (for example: --config companion.example.toml --port 8000).
#
# Phones: by default the page listens on this computer only (127.0.0.1). To let the phones at the
# table in, on the same Wi-Fi: ./scripts/serve.sh --lan (listens on 0.0.0.0 and prints the address
# phones open; the host page shows it as a QR code). SERVE_DRY_RUN=1 prints the command and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${SERVE_DRY_RUN:-}" = 1 ]; then
  echo ".venv/bin/companion serve $*"
  exit 0
fi

if ! command -v espeak-ng >/dev/null 2>&1 || ! command -v aplay >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo -n"
    { $sudo_cmd apt-get update -qq && $sudo_cmd env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq espeak-ng alsa-utils >/dev/null; } || true
  else
    echo "For speech: sudo apt install espeak-ng alsa-utils (narration stays on the page until then)."
  fi
fi
if ! python3 -c "import ensurepip" 2>/dev/null; then
  echo "Python's venv module is missing: sudo apt install python3-venv" >&2
  exit 1
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
exec .venv/bin/companion serve "$@"
