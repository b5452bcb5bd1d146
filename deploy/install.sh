#!/usr/bin/env bash
# Install the tabletop companion on Raspberry Pi OS (Bookworm) or Debian, as a service started
# at boot. From a clone of the repository:
#
#   sudo ./deploy/install.sh                       install; again after `git pull` to upgrade
#   sudo ./deploy/install.sh --uninstall           remove it, keep the config and the journal
#   sudo ./deploy/install.sh --uninstall --purge   remove everything, the journal too
#   sudo ./deploy/install.sh --voices=/media/usb   the Piper voices from a folder, not the internet
#
# It installs the system packages (espeak-ng, alsa-utils, and picamera2 and lgpio where the
# archives have them), a user `companion`, a virtual environment in /opt/tabletop-companion
# that sees the system's picamera2, the config /etc/tabletop-companion/companion.toml (written
# once, never overwritten), the data directory /var/lib/tabletop-companion (the journal; never
# touched), the Piper voices (French and English) in its "voices" folder, a sudoers rule for the
# safe shutdown, and the systemd unit tabletop-companion.
set -euo pipefail

readonly NAME=tabletop-companion
readonly SERVICE_USER=companion
readonly PREFIX=/opt/$NAME
readonly VENV=$PREFIX/venv
readonly CONFIG_DIR=/etc/$NAME
readonly CONFIG=$CONFIG_DIR/companion.toml
readonly DATA_DIR=/var/lib/$NAME
readonly UNIT=/etc/systemd/system/$NAME.service
readonly SUDOERS=/etc/sudoers.d/$NAME
readonly GROUPS_WANTED=(gpio video audio i2c spi render)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly SRC
WORK="" # a scratch folder, removed on exit
VOICES_FROM="" # --voices=FOLDER: the Piper voices' files, copied from there
cleanup() { if [ -n "$WORK" ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT

# shellcheck source=common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/common.sh" # say, die, quietly

usage() {
  sed -n '2,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

# True when systemd is the running init (false in a chroot or a container without it).
systemd_running() { [ -d /run/systemd/system ]; }

install_packages() {
  say "== System packages (apt)"
  local packages=(python3-venv python3-pip espeak-ng alsa-utils sudo) optional=() missing=()
  local log unreachable="" archives archive package without candidate available=" "
  # On a Pi's first boot the package tools may be busy (updates): wait for them. An archive
  # that cannot be reached (the Raspberry Pi one with no route to it, a proxy that refuses it)
  # does not stop the install: apt keeps the lists it has, and what is then missing is named.
  log=$(mktemp)
  if ! LC_ALL=C apt-get -o DPkg::Lock::Timeout=300 update >"$log" 2>&1; then
    cat "$log" >&2
    say "WARNING: apt-get update failed (above): going on with the package lists apt has"
  fi
  # "W: Failed to fetch http://archive.raspberrypi.com/debian/dists/bookworm/InRelease  Could
  # not resolve 'archive.raspberrypi.com'": the archive, and why (its first reason).
  unreachable=$(sed -n 's|^[WE]: Failed to fetch \([^ ]*\)/dists/[^ ]* *\(.*\)|\1/ (\2)|p' "$log" |
    awk '!seen[$1]++')
  rm -f "$log"
  archives=$(awk '{print $1}' <<<"$unreachable" | xargs)
  while IFS= read -r archive; do
    [ -z "$archive" ] ||
      say "WARNING: apt could not update its list of $archive: going on with the lists it has"
  done <<<"$unreachable"
  # What apt can install (a candidate version). Not with `apt-cache policy | grep -q`: grep stops reading
  # at the first match, apt-cache then dies of SIGPIPE, and pipefail turns that into a "no".
  for package in "${packages[@]}" python3-picamera2 python3-lgpio; do
    candidate=$(LC_ALL=C apt-cache policy "$package" 2>/dev/null |
      sed -n 's/^ *Candidate: //p') || true
    [ -z "$candidate" ] || [ "$candidate" = "(none)" ] || available+="$package "
  done
  for package in "${packages[@]}"; do
    [[ $available == *" $package "* ]] || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    die "cannot install ${missing[*]}: no package list apt has offers them" \
      "${archives:+(unreachable: $archives) }- connect this machine to the network and run" \
      "the installer again"
  fi
  for package in python3-picamera2 python3-lgpio; do
    case $package in
      python3-picamera2) without="the camera will be used through OpenCV" ;;
      *) without="gpiozero will use another pin library, or simulated pins" ;;
    esac
    if [[ $available == *" $package "* ]]; then
      optional+=("$package")
    elif [ -n "$unreachable" ]; then
      missing+=("$package")
      say "$package is NOT installed: no package list apt has offers it, and an archive" \
        "could not be reached ($archives): $without;" \
        "run the installer again once it can be reached"
    else
      say "$package is not in this system's archives (not Raspberry Pi OS?): $without"
    fi
  done
  # --no-install-recommends: picamera2's recommends are a desktop (Qt, OpenGL) a Pi OS Lite
  # does not need, as the picamera2 manual advises.
  local install=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -q
    --no-install-recommends -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef
    -o Dpkg::Options::=--force-confold)
  if [ ${#optional[@]} -gt 0 ]; then
    log=$(mktemp)
    if ! "${install[@]}" "${packages[@]}" "${optional[@]}" >"$log" 2>&1; then
      tail -n 5 "$log" >&2
      say "WARNING: ${optional[*]} could not be installed (above): installing the rest without"
      missing+=("${optional[@]}")
      optional=()
    fi
    rm -f "$log"
  fi
  # The essential packages: the installer stops here if apt cannot install them.
  [ ${#optional[@]} -gt 0 ] || quietly "${install[@]}" "${packages[@]}"
  say "installed or up to date: ${packages[*]}${optional[*]:+ ${optional[*]}}"
  [ ${#missing[@]} -eq 0 ] || say "NOT installed: ${missing[*]} (why: above)"
}

create_user() {
  say "== User $SERVICE_USER"
  if id -u "$SERVICE_USER" >/dev/null 2>&1; then
    say "user $SERVICE_USER exists"
  else
    useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home \
      --shell /usr/sbin/nologin --comment "Tabletop companion" "$SERVICE_USER"
    say "created the system user $SERVICE_USER"
  fi
  local group joined=()
  for group in "${GROUPS_WANTED[@]}"; do
    if getent group "$group" >/dev/null; then
      usermod -a -G "$group" "$SERVICE_USER"
      joined+=("$group")
    fi
  done
  say "$SERVICE_USER is in the groups: ${joined[*]:-(none of ${GROUPS_WANTED[*]} exist here)}"
}

# The numpy that Debian's compiled modules were built against (picamera2 uses simplejpeg):
# a numpy 2 from PyPI in the venv would shadow it and break `import picamera2` (picamera2
# issues #1088, #1211). Empty when the system has no numpy.
system_numpy() {
  dpkg-query -W -f='${db:Status-Abbrev}' python3-numpy 2>/dev/null | grep -q '^ii' || return 0
  python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true
}

install_venv() {
  say "== The companion in $VENV"
  install -d -m 0755 "$PREFIX"
  # Kept across upgrades; made again only if it no longer runs (a new Python after a system
  # upgrade) or cannot see the system's packages (picamera2, lgpio).
  if [ -e "$VENV" ] && ! { "$VENV/bin/python" -c '' 2>/dev/null &&
    grep -qx 'include-system-site-packages = true' "$VENV/pyvenv.cfg"; }; then
    say "the virtual environment is broken or cannot see the system's packages: making it again"
    rm -rf "$VENV"
  fi
  if [ ! -e "$VENV" ]; then
    python3 -m venv --system-site-packages "$VENV"
    say "created the virtual environment (it sees the system's packages)"
  fi
  # pip builds in the source folder: build from a copy, so the clone gets no root-owned files
  # and may be deleted afterwards (the install is not editable).
  WORK=$(mktemp -d)
  mkdir "$WORK/src"
  tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
    --exclude=__pycache__ -cf - . | tar -C "$WORK/src" -xf -
  local constraint=() numpy
  numpy=$(system_numpy)
  if [ -n "$numpy" ]; then
    printf 'numpy==%s\n' "$numpy" >"$WORK/constraints.txt"
    constraint=(--constraint "$WORK/constraints.txt")
    say "keeping the system's numpy $numpy (picamera2 is built against it)"
    # A numpy of the venv's own (from an earlier install) would hide the system's.
    if "$VENV/bin/python" -c \
      'import sys, numpy; sys.exit(not numpy.__file__.startswith(sys.prefix))' 2>/dev/null; then
      quietly "$VENV/bin/python" -m pip uninstall --disable-pip-version-check -y numpy
    fi
  fi
  quietly "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
    --upgrade "${constraint[@]}" "$WORK/src"
  say "installed $("$VENV/bin/python" -m pip show tabletop-companion 2>/dev/null |
    sed -n 's/^Version: /tabletop-companion /p')"
}

install_files() {
  say "== Config, data, shutdown rule and service"
  install -d -m 0755 "$CONFIG_DIR"
  if [ -e "$CONFIG" ]; then
    say "kept your config $CONFIG"
  else
    install -m 0644 "$SRC/deploy/companion.toml" "$CONFIG"
    say "wrote the config $CONFIG"
  fi
  if ! "$VENV/bin/companion" check-config "$CONFIG" >/dev/null 2>&1; then
    say "WARNING: the companion refuses its config; see why with:"
    say "  $VENV/bin/companion check-config $CONFIG"
  fi
  # Only the directory itself: the journal in it is never touched.
  install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$DATA_DIR"
  say "data (the journal) in $DATA_DIR"

  local tmp
  tmp=$(mktemp "/etc/sudoers.d/.$NAME.XXXXXX") # a name with a dot: sudo ignores it
  cat "$SRC/deploy/sudoers" >"$tmp"
  chmod 0440 "$tmp"
  if ! visudo -cqf "$tmp" >/dev/null; then
    rm -f "$tmp"
    die "deploy/sudoers is not valid sudoers syntax: nothing changed in /etc/sudoers.d"
  fi
  mv -f "$tmp" "$SUDOERS"
  say "$SERVICE_USER may run: sudo /usr/bin/systemctl poweroff ($SUDOERS)"

  install -m 0644 "$SRC/deploy/$NAME.service" "$UNIT"
  systemctl enable --quiet "$NAME"
  if systemd_running; then
    systemctl daemon-reload
    systemctl restart "$NAME"
    say "service $NAME enabled and (re)started"
  else
    say "service $NAME enabled for the next boot (systemd is not running here: not started)"
  fi
}

# The Piper voices (French and English), checked by their MD5 digest: from the folder given with
# --voices (a USB stick, for a Pi without internet), else from Piper's voice release. A voice
# that cannot be had is said, and the companion speaks that language with espeak-ng.
install_voices() {
  say "== Voices (Piper)"
  local from=() log
  [ -z "$VOICES_FROM" ] || from=(--from "$VOICES_FROM")
  log=$(mktemp)
  if "$VENV/bin/companion" voices install --config "$CONFIG" "${from[@]}" >"$log" 2>&1; then
    cat "$log"
  else
    cat "$log"
    say "WARNING: a voice is missing (above): espeak-ng speaks its language until it is added:"
    say "  sudo $VENV/bin/companion voices install --config $CONFIG [--from FOLDER]"
  fi
  rm -f "$log"
}

page_address() {
  # The name and port the config gives, through the companion's own config reader.
  "$VENV/bin/python" - "$CONFIG" 2>/dev/null <<'EOF' || printf 'companion 80\n'
import sys
from companion.config import load
config = load(sys.argv[1])
print(config.network_name or "-", config.port)
EOF
}

report() {
  local name port suffix="" ip
  read -r name port < <(page_address)
  [ "$port" = 80 ] || suffix=":$port"
  ip=$(hostname -I 2>/dev/null | awk '{print $1}')
  if systemd_running; then
    sleep 3
    if ! systemctl is-active --quiet "$NAME"; then
      say "WARNING: the service is not running; see why with: journalctl -u $NAME -n 50"
    fi
  fi
  say ""
  say "The tabletop companion is installed."
  [ "$name" = - ] || say "  The page:  http://$name.local$suffix/"
  [ -z "$ip" ] || say "  or:        http://$ip$suffix/   (host page: /host)"
  # The host PIN is never said or shown on a page: here, and by `companion pin` on the Pi.
  local pin
  pin=$("$VENV/bin/companion" pin --config "$CONFIG" 2>/dev/null | sed -n 's/^Host PIN: \([0-9]*\).*/\1/p')
  [ -z "$pin" ] || say "  Host PIN:  $pin   (again: sudo $VENV/bin/companion pin --config $CONFIG)"
  say "  Config:    $CONFIG (then: sudo systemctl restart $NAME)"
  say "  Check:     sudo -u $SERVICE_USER $VENV/bin/companion doctor --config $CONFIG"
  say "  Logs:      journalctl -u $NAME -f"
  say "  Upgrade:   git pull && sudo ./deploy/install.sh"
  say "  Uninstall: sudo ./deploy/install.sh --uninstall   (keeps the config and the journal)"
}

uninstall() {
  local purge=$1
  say "== Removing the tabletop companion"
  if [ -e "$UNIT" ] && command -v systemctl >/dev/null; then
    if systemd_running; then
      systemctl disable --now --quiet "$NAME" || true
    else
      systemctl disable --quiet "$NAME" || true
    fi
  fi
  rm -f "$UNIT" "$SUDOERS"
  rm -rf "$PREFIX"
  if systemd_running; then
    systemctl daemon-reload
    systemctl reset-failed "$NAME" 2>/dev/null || true
  fi
  say "removed the service, the shutdown rule and $PREFIX"
  if [ "$purge" = yes ]; then
    rm -rf "$CONFIG_DIR" "$DATA_DIR"
    if id -u "$SERVICE_USER" >/dev/null 2>&1; then userdel "$SERVICE_USER"; fi
    if getent group "$SERVICE_USER" >/dev/null; then groupdel "$SERVICE_USER"; fi
    say "removed the config $CONFIG_DIR, the journal $DATA_DIR and the user $SERVICE_USER"
  else
    say "kept the config $CONFIG_DIR, the journal $DATA_DIR and the user $SERVICE_USER"
    say "(to remove them too: sudo $0 --uninstall --purge)"
  fi
  say "The system packages (espeak-ng, alsa-utils, ...) stay installed."
}

main() {
  local mode=install purge=no arg
  for arg in "$@"; do
    case $arg in
      --uninstall) mode=uninstall ;;
      --purge) purge=yes ;;
      --voices=*) VOICES_FROM=${arg#--voices=} ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown option: $arg" ;;
    esac
  done
  if [ "$purge" = yes ] && [ "$mode" != uninstall ]; then
    die "--purge goes with --uninstall: sudo $0 --uninstall --purge"
  fi
  [ "$(id -u)" -eq 0 ] || die "run it with sudo: sudo $0 $*"
  if [ "$mode" = uninstall ]; then
    uninstall "$purge"
    return
  fi
  command -v apt-get >/dev/null ||
    die "this installer is for Raspberry Pi OS or Debian (apt-get was not found)"
  command -v systemctl >/dev/null ||
    die "this installer needs systemd (systemctl was not found)"
  if [ ! -f "$SRC/pyproject.toml" ] || [ ! -f "$SRC/deploy/$NAME.service" ]; then
    die "run it from a clone of the repository: sudo ./deploy/install.sh"
  fi

  install_packages
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "Python 3.11 or newer is needed, this system has $(python3 -V 2>&1):" \
      "use Raspberry Pi OS Bookworm (or newer)"
  create_user
  install_venv
  install_files
  install_voices
  report
}

main "$@"
