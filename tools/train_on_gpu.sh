#!/usr/bin/env bash
# Train a CenterNet reader (cubes or tessons) in one short run on a machine with a GPU and many
# cores (docs/vision/cube_net.md, "Training on a GPU"): render as many training scenes as fit
# in CACHE_S seconds on every core, then train for TRAIN_S seconds of wall clock on the GPU.
#
#   bash tools/train_on_gpu.sh OUT [cubes|tessons] [cuda|cpu]
#
# Writes OUT/<reader>-gpu.onnx, OUT/<reader>-gpu.pt and OUT/train.log (the validation sweep at
# its end). With TRAIN_RENDERS (a folder of Blender renders of training seeds, carried) and
# SHARES (the shares of the steps drawn from them, e.g. "0.3 0.5"), one training per share runs
# side by side, the workers split between them: OUT/<reader>-gpu-s<share>.onnx, .pt and
# train-s<share>.log. The scenes' real-photo table needs the dice photos: DICE_PHOTOS, or
# ../shared/data.
# Knobs (environment): CACHE_S (210), TRAIN_S (280), SCENES (6000, the most rendered),
# WORKERS (15, processes cutting crops), BATCH (64), LR (5e-3), CACHE (/tmp/<reader>-gpu), PY,
# INIT (weights to start from: a former run's .pt, or a shipped model's .onnx such as
# vision/models/cubes.onnx, its batch norms unfolded by tools/nets.from_onnx: a fine-tuning).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
out=${1:?usage: train_on_gpu.sh OUT [cubes|tessons] [cuda|cpu]}; reader=${2:-cubes}
device=${3:-cuda}
CACHE_S=${CACHE_S:-210}; TRAIN_S=${TRAIN_S:-280}; SCENES=${SCENES:-6000}; WORKERS=${WORKERS:-15}
cache=${CACHE:-/tmp/$reader-gpu}; py=${PY:-python3}
trainer=tools/train_$reader.py
[ -f "$trainer" ] || { echo "no trainer $trainer: cubes or tessons"; exit 2; }
export PYTHONUNBUFFERED=1
photos=${DICE_PHOTOS:-../shared/data/dice-photos}
[ -d "$photos/images" ] || echo "warning: no dice photos in $photos: the scenes lose their photo table"
# the DataLoader's workers hand their batches over in shared memory
[ "$(id -u)" -eq 0 ] && mount -o remount,size=32G /dev/shm 2>/dev/null
"$py" -c "import cv2, torch; print('OpenCV', cv2.__version__, 'torch', torch.__version__)"
t0=$(date +%s)
# Render for at most CACHE_S seconds (each scene is written whole or not at all) ...
timeout -s INT "$CACHE_S" "$py" "$trainer" --cache "$cache" --scenes "$SCENES" --cache-only \
  --workers "$WORKERS" 2>&1 | grep -v '^  [0-9]*/'
pkill -f "$trainer --cache $cache --scenes $SCENES --cache-only"; sleep 1
# ... and train on the scenes 0..n-1 rendered (the few gaps are rendered by the trainer).
n=$(find "$cache" -name '0[0-4][0-9][0-9][0-9][0-9].json' | wc -l)
n=$(( n > SCENES ? SCENES : n ))
echo "$n training scenes rendered in $(( $(date +%s) - t0 )) s"
# the gaps and the validation scenes, once before the trainings
"$py" "$trainer" --cache "$cache" --scenes "$n" --cache-only --workers "$WORKERS" 2>&1 \
  | grep -v '^  [0-9]*/'
train() {  # NAME WORKERS [TRAINER'S ARGUMENTS]
  "$py" "$trainer" --cache "$cache" --scenes "$n" --seconds "$TRAIN_S" --workers "$2" \
    --batch "${BATCH:-64}" --lr "${LR:-5e-3}" --device "$device" --threads 4 \
    ${INIT:+--init "$INIT"} "${@:3}" \
    --out "$out/$reader-gpu$1.onnx" --weights "$out/$reader-gpu$1.pt" 2>&1 \
    | tee "$out/train$1.log" | grep -v '^  step [0-9]*[1-9]00 '
}
if [ -z "${TRAIN_RENDERS:-}" ]; then
  train "" "$WORKERS"
else
  read -ra shares <<<"${SHARES:-0.25}"
  for share in "${shares[@]}"; do
    train "-s$share" $(( WORKERS / ${#shares[@]} )) \
      --train-renders "$TRAIN_RENDERS" --render-share "$share" &
  done
  wait
fi
echo "total $(( $(date +%s) - t0 )) s"
