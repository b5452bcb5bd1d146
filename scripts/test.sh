#!/usr/bin/env bash
# Everything the tests need, then the tests: on a fresh Debian machine with Python 3.11.
# Installs espeak-ng, alsa-utils (aplay), chromium, chromium-driver, shellcheck and debootstrap
# (apt; nodejs and npm too where npm is missing), axe-core (npm, into .cache/axe), a virtual
# environment in .venv with the companion and its test extras, then runs ruff, mypy and pytest.
# Extra arguments go to pytest. pytest runs in parallel (pytest-xdist): one worker per CPU, at
# least 2, each test file whole on one worker (--dist loadfile, pyproject.toml); PYTEST_WORKERS=N
# sets the number of workers, PYTEST_WORKERS=0 (or --pdb) runs every test in one process, and a
# -n among the arguments wins.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
for pkg in espeak-ng alsa-utils chromium chromium-driver shellcheck debootstrap; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
python3 -c "import ensurepip" 2>/dev/null || missing+=("python3-venv")
command -v npm >/dev/null 2>&1 || missing+=("nodejs" "npm")
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing ${missing[*]}..."
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'

# axe-core, injected into every page by tests/test_accessibility.py: the pinned npm package, in
# .cache/axe (git-ignored), installed once.
AXE_VERSION=4.14.1
if ! grep -qs "\"version\": \"$AXE_VERSION\"" .cache/axe/node_modules/axe-core/package.json; then
  echo "Installing axe-core $AXE_VERSION (npm)..."
  mkdir -p .cache/axe
  npm install --prefix .cache/axe --no-save --no-audit --no-fund --silent "axe-core@$AXE_VERSION"
fi

echo "== ruff"; .venv/bin/ruff check .
echo "== ruff format"; .venv/bin/ruff format --check --quiet .
echo "== mypy"; .venv/bin/mypy
workers="${PYTEST_WORKERS:-$(nproc 2>/dev/null || echo 2)}"
if [ -z "${PYTEST_WORKERS:-}" ] && [ "$workers" -lt 2 ]; then workers=2; fi
parallel=(-n "$workers")
for arg in "$@"; do
  case "$arg" in --pdb | --trace) parallel=() ;; esac  # a debugger needs one process
done
echo "== pytest"; .venv/bin/python -m pytest "${parallel[@]}" "$@"
