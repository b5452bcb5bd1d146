#!/usr/bin/env bash
# Make tools/render/.venv: Blender's Python module (bpy, Cycles on the CPU) with numpy and
# OpenCV, to render the photoreal scenes of docs/vision/renders.md. A development tool only:
# the companion never imports it. Idempotent: a venv that already has these versions is left
# as it is.
#
#   tools/render/setup.sh                    # make or check tools/render/.venv
#   tools/render/setup.sh --venv /path/venv  # link tools/render/.venv to a venv that has them
#
# bpy 5.0.1 needs CPython 3.11 exactly (PYTHON=python3.11 by default).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3.11}"
pins=("bpy==5.0.1" "numpy==1.26.4" "opencv-python-headless==4.11.0.86")

usage() {
    sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

has_pins() {
    "$1/bin/python" - "${pins[@]}" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version

for pin in sys.argv[1:]:
    name, wanted = pin.split("==")
    try:
        if version(name) != wanted:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
}

if [[ $# -gt 0 ]]; then
    case "$1" in
        --venv)
            if [[ $# -ne 2 ]]; then
                usage >&2
                exit 2
            fi
            other="$(cd "$2" && pwd)"
            if ! has_pins "$other"; then
                echo "$other lacks ${pins[*]}: run this script without --venv" >&2
                exit 1
            fi
            if [[ -e "$venv" && ! -L "$venv" ]]; then
                echo "$venv exists and is not a link: remove it first" >&2
                exit 1
            fi
            ln -sfn "$other" "$venv"
            echo "tools/render/.venv -> $other"
            exit 0
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            usage >&2
            exit 2
            ;;
    esac
fi

if [[ -x "$venv/bin/python" ]] && has_pins "$venv"; then
    echo "tools/render/.venv is ready (${pins[*]})"
    exit 0
fi
if ! command -v "$python" >/dev/null; then
    echo "bpy 5.0.1 needs Python 3.11: install it, or set PYTHON to a python3.11" >&2
    exit 1
fi
if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "${pins[@]}"
has_pins "$venv"
"$venv/bin/python" -c "import bpy; print('bpy', bpy.app.version_string, 'ready in tools/render/.venv')"
