"""The Raspberry Pi installer, ``deploy/install.sh``, run for real.

A Debian Bookworm root made by ``debootstrap --variant=minbase`` stands in for a fresh Raspberry
Pi OS (with systemd added: Pi OS always has it, minbase has not). The repository's files are
copied into it as a clone would be, and the installer runs in it as root: apt, the user, the
venv (its packages from PyPI), the config, the sudoers rule, the enabled unit. systemd cannot
boot in a chroot, so the unit is checked by ``systemd-analyze verify`` inside the root (where
ExecStart's path exists), and the companion is started the way the unit says: its ExecStart, as
its User= with its WorkingDirectory=, Environment= and AmbientCapabilities= (port 80). Then
the installer runs again (an upgrade: config and journal untouched), and uninstalls.

Every command in the root runs in a mount namespace of its own (``unshare --mount``) in which
/proc, /sys and /dev are mounted: the mounts end with the command, even when a test is killed,
so nothing is left mounted under the root that the teardown deletes.

Needs root, debootstrap, shellcheck, unshare and setpriv (``scripts/test.sh`` installs them),
deb.debian.org and PyPI. The tests run in order: install, check, start, reinstall, uninstall.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CACHE = Path("/var/cache/tabletop-companion-tests/bookworm-minbase.tar")
MIRROR = "http://deb.debian.org/debian"
CLONE = "/root/tabletop-companion"  # where the "clone" is in the root
UNIT = "/etc/systemd/system/tabletop-companion.service"
WANTS = "/etc/systemd/system/multi-user.target.wants/tabletop-companion.service"
SUDOERS = "/etc/sudoers.d/tabletop-companion"
VENV = "/opt/tabletop-companion/venv"
CONFIG = "/etc/tabletop-companion/companion.toml"
DATA = "/var/lib/tabletop-companion"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# The root shares this machine's network: it uses its proxy and trusts the same authorities.
PASSED_ON = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")
CA_FILES = ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")
ENTER = (  # sh -c: mount what a system needs, in this command's own mount namespace; chroot
    'set -e; root=$1; shift; mount -t proc proc "$root/proc"; '
    'mount --rbind /sys "$root/sys"; mount --rbind /dev "$root/dev"; exec chroot "$root" "$@"'
)
STARTS_WITHIN = 60.0
STOPS_WITHIN = 30.0


class PiRoot:
    """The debootstrap root, and commands run in it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8"}
        self.servers: list[subprocess.Popen[bytes]] = []
        self.first_install: subprocess.CompletedProcess[str] | None = None

    def path(self, inside: str) -> Path:
        return self.root / inside.lstrip("/")

    def argv(self, argv: Sequence[str], env: dict[str, str] | None = None) -> list[str]:
        items = [f"{k}={v}" for k, v in (env if env is not None else self.env).items()]
        prefix = ["unshare", "--mount", "--propagation", "private", "sh", "-c", ENTER, "sh"]
        return [*prefix, str(self.root), "env", "-i", *items, *argv]

    def run(
        self, argv: Sequence[str], check: bool = True, timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            self.argv(argv), capture_output=True, text=True, timeout=timeout, check=False
        )
        if check and done.returncode != 0:
            pytest.fail(f"{shlex.join(argv)} failed ({done.returncode}):\n{output(done)}")
        return done

    def sh(self, script: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(["sh", "-c", script], check=check)

    def install(self, *options: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """What the README says: ``sudo ./deploy/install.sh`` in the clone (as root already)."""
        return self.sh(f"cd {CLONE} && ./deploy/install.sh {' '.join(options)}", check=check)

    def user(self, name: str) -> pwd.struct_passwd | None:
        """The root's /etc/passwd entry (not this machine's)."""
        for line in self.path("/etc/passwd").read_text().splitlines():
            fields = line.split(":")
            if fields[0] == name:
                return pwd.struct_passwd((*fields[:2], int(fields[2]), int(fields[3]), *fields[4:]))
        return None

    def companion(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run([f"{VENV}/bin/companion", *args])


def output(done: subprocess.CompletedProcess[str]) -> str:
    return f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


def unit_settings(text: str) -> dict[str, dict[str, list[str]]]:
    """A unit file's sections: each key with its values in order (keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        assert not line.endswith("\\"), f"continued lines are not read here: {line}"
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def mounted_under(root: Path) -> list[str]:
    points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    return [p for p in points if p == str(root) or p.startswith(f"{root}/")]


def processes_in(root: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "root") == str(root):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def make_root(root: Path) -> None:
    """A pristine ``debootstrap --variant=minbase bookworm`` root (kept as a tarball)."""
    if not CACHE.exists():
        subprocess.run(
            ["debootstrap", "--variant=minbase", "bookworm", str(root), MIRROR],
            check=True,
            capture_output=True,
            timeout=900,
        )
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        partial = CACHE.with_suffix(f".{os.getpid()}.partial")
        subprocess.run(["tar", "--numeric-owner", "-C", root, "-cf", partial, "."], check=True)
        partial.rename(CACHE)
        return
    subprocess.run(
        ["tar", "--numeric-owner", "--same-permissions", "-C", root, "-xf", CACHE], check=True
    )


def copy_clone(target: Path) -> None:
    """The repository's files as a clone has them (the working tree, uncommitted changes and
    new files included; ignored files such as .venv left out)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a file deleted in the working tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def pass_on_network_settings(pi: PiRoot) -> None:
    for name in PASSED_ON:
        if name in os.environ:
            pi.env[name] = os.environ[name]
    for name in CA_FILES:
        value = os.environ.get(name, "")
        if value and Path(value).is_file():
            inside = f"/root/host-ca/{name}.pem"
            pi.path(inside).parent.mkdir(exist_ok=True)
            shutil.copyfile(value, pi.path(inside))
            pi.env[name] = inside


@pytest.fixture(scope="module")
def pi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiRoot]:
    """A fresh root in which ``./deploy/install.sh`` has run once."""
    if os.geteuid() != 0:
        pytest.fail("the installer tests run as root (debootstrap, chroot), as CI does")
    for tool in ("debootstrap", "shellcheck", "unshare", "setpriv", "git"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: scripts/test.sh installs it")
    root = tmp_path_factory.mktemp("pi-root")
    root.chmod(0o755)  # a system's / (pytest makes its folders 0700)
    pi = PiRoot(root)
    try:
        started = time.monotonic()
        make_root(root)
        copy_clone(pi.path(CLONE))
        shutil.copyfile("/etc/resolv.conf", pi.path("/etc/resolv.conf"))
        pass_on_network_settings(pi)
        pi.sh(  # what Raspberry Pi OS has and minbase has not
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive "
            "apt-get install -y -qq --no-install-recommends systemd >/dev/null"
        )
        prepared = time.monotonic()
        pi.first_install = pi.install()
        print(
            f"\nroot ready in {prepared - started:.0f} s, "
            f"installed in {time.monotonic() - prepared:.0f} s"
        )
        yield pi
    finally:
        for server in pi.servers:
            if server.poll() is None:
                server.kill()
                server.wait(10)
        for pid in processes_in(root):  # anything started in the root by these tests
            os.kill(pid, signal.SIGKILL)
        left = mounted_under(root)
        assert not left, f"still mounted, so {root} is not deleted: {left}"
        shutil.rmtree(root)


def test_every_shell_script_passes_shellcheck() -> None:
    scripts = sorted([*REPO.glob("*/*.sh"), REPO / ".ci/run"])
    assert REPO / "deploy/install.sh" in scripts
    done = subprocess.run(
        ["shellcheck", "-x", *map(str, scripts)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_installer_says_what_it_did(pi: PiRoot) -> None:
    assert pi.first_install is not None
    said = pi.first_install.stdout
    assert "python3-picamera2 is not in this system's archives" in said  # plain Debian
    assert "created the system user companion" in said
    assert f"wrote the config {CONFIG}" in said
    assert "systemd is not running here: not started" in said
    assert "http://companion.local/" in said
    assert "journalctl -u tabletop-companion -f" in said
    assert f"sudo -u companion {VENV}/bin/companion doctor --config {CONFIG}" in said


def test_the_venv_sees_the_system_packages_and_runs_the_companion(pi: PiRoot) -> None:
    assert "include-system-site-packages = true" in pi.path(f"{VENV}/pyvenv.cfg").read_text()
    assert "serve" in pi.companion("--help").stdout
    where = pi.run([f"{VENV}/bin/python", "-c", "import companion; print(companion.__file__)"])
    assert where.stdout.startswith(f"{VENV}/lib/")  # installed, not a link to the clone


def test_the_service_user_and_its_data_folder(pi: PiRoot) -> None:
    user = pi.user("companion")
    assert user is not None
    assert (user.pw_dir, user.pw_shell) == (DATA, "/usr/sbin/nologin")
    assert user.pw_uid < 1000  # a system user
    groups = pi.run(["id", "-nG", "companion"]).stdout.split()
    assert {"audio", "video"} <= set(groups)  # the Pi's gpio, i2c, spi: absent on Debian
    data = pi.path(DATA).stat()
    assert (data.st_uid, data.st_gid, data.st_mode & 0o777) == (user.pw_uid, user.pw_gid, 0o750)


def test_the_config_is_the_appliance_one_and_parses(pi: PiRoot) -> None:
    assert pi.path(CONFIG).read_bytes() == (REPO / "deploy/companion.toml").read_bytes()
    said = pi.companion("check-config", CONFIG).stdout
    assert "OK" in said and "server 0.0.0.0:80" in said
    assert f"journal: {DATA}/journal.sqlite3" in said


def test_the_sudoers_rule_is_valid_and_allows_only_poweroff(pi: PiRoot) -> None:
    mode = pi.path(SUDOERS).stat()
    assert (mode.st_uid, mode.st_mode & 0o777) == (0, 0o440)
    pi.run(["visudo", "-cf", SUDOERS])
    allowed = pi.run(["sudo", "-l", "-U", "companion"]).stdout
    assert "(root) NOPASSWD: /usr/bin/systemctl poweroff" in allowed
    assert allowed.count("NOPASSWD") == 1


def test_the_unit_is_enabled_and_systemd_accepts_it(pi: PiRoot) -> None:
    assert os.readlink(pi.path(WANTS)) == UNIT
    assert pi.path(UNIT).read_bytes() == (REPO / "deploy/tabletop-companion.service").read_bytes()
    verified = pi.run(["systemd-analyze", "verify", UNIT], check=False)
    assert verified.returncode == 0 and not verified.stdout + verified.stderr, output(verified)
    service = unit_settings(pi.path(UNIT).read_text())["Service"]
    assert service["Restart"] == ["on-failure"] and service["User"] == ["companion"]
    assert "NoNewPrivileges" not in service and "PrivateDevices" not in service


def test_systemd_analyze_refuses_a_broken_copy(pi: PiRoot) -> None:
    """The check above can fail: a unit whose ExecStart does not exist is refused."""
    broken = pi.path(UNIT).read_text().replace("/venv/bin/companion", "/venv/bin/nothing")
    pi.path("/tmp/broken.service").write_text(broken)
    verified = pi.run(["systemd-analyze", "verify", "/tmp/broken.service"], check=False)
    assert verified.returncode != 0 and "/venv/bin/nothing" in verified.stderr


def serve_like_the_unit(pi: PiRoot, log: Path) -> subprocess.Popen[bytes]:
    """The installed unit's ExecStart, as its User=/Group=, in its WorkingDirectory= with its
    Environment= and its AmbientCapabilities= (read from the unit, not repeated here)."""
    service = unit_settings(pi.path(UNIT).read_text())["Service"]
    (command,) = service["ExecStart"]
    argv = shlex.split(command)
    assert argv[0].startswith("/"), "no ExecStart prefixes (-, @, +, !) are used"
    (name,) = service["User"]
    user = pi.user(name)
    assert user is not None
    caps = ",".join(
        f"+{cap.removeprefix('CAP_').lower()}"
        for value in service.get("AmbientCapabilities", [])
        for cap in value.split()
    )
    env = {"PATH": PATH, "HOME": user.pw_dir, "USER": name, "LOGNAME": name}
    env["SHELL"] = user.pw_shell
    for value in service.get("Environment", []):
        env.update(item.split("=", 1) for item in shlex.split(value))
    (workdir,) = service["WorkingDirectory"]
    setpriv = ["setpriv", f"--reuid={name}", f"--regid={service.get('Group', [name])[0]}"]
    setpriv += ["--init-groups", f"--inh-caps={caps}", f"--ambient-caps={caps}"]
    items = [f"{k}={v}" for k, v in env.items()]
    inner = [*setpriv, "env", "-i", f"--chdir={workdir}", *items, *argv]
    with log.open("wb") as out:
        server = subprocess.Popen(
            pi.argv(inner, env={"PATH": PATH}), stdout=out, stderr=subprocess.STDOUT
        )
    pi.servers.append(server)
    return server


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


# Port 80 is the machine's, and the root shares it: two suites run side by side (a busy machine,
# docs/ARCHITECTURE.md) take turns with it under this lock, held while a server runs.
PORT_80_LOCK = Path("/tmp/tabletop-companion-tests-port-80.lock")


def serves_then_stops(pi: PiRoot, log: Path) -> str:
    """Start the companion as the unit says, see its pages answer, stop it as systemd does;
    what it printed. Port 80 is this suite's alone meanwhile (``PORT_80_LOCK``)."""
    with PORT_80_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        return _serves_then_stops(pi, log)


def _serves_then_stops(pi: PiRoot, log: Path) -> str:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 80)) == 0:
            pytest.fail(
                "port 80 is taken on this machine, and the root shares its network: the test "
                "starts the companion on the port its config gives (80); free port 80"
            )
    server = serve_like_the_unit(pi, log)
    deadline = time.monotonic() + STARTS_WITHIN
    while True:
        if server.poll() is not None:
            pytest.fail(f"companion serve exited ({server.returncode}):\n{log.read_text()}")
        try:
            if status("http://127.0.0.1:80/api/state") == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"no answer on port 80 in {STARTS_WITHIN:.0f} s:\n{log.read_text()}")
        time.sleep(0.5)
    assert status("http://127.0.0.1:80/host") == 200
    server.send_signal(signal.SIGTERM)  # what `systemctl stop` sends
    assert server.wait(STOPS_WITHIN) == 0, log.read_text()  # 0: Restart=on-failure stays down
    return log.read_text()


def test_the_companion_starts_as_the_unit_says_and_stops_on_sigterm(
    pi: PiRoot, tmp_path: Path
) -> None:
    said = serves_then_stops(pi, tmp_path / "serve.log")
    assert "Companion ready at http://0.0.0.0:80/" in said
    journal = pi.path(f"{DATA}/journal.sqlite3")
    user = pi.user("companion")
    assert user is not None and journal.stat().st_uid == user.pw_uid


def test_running_it_again_upgrades_in_place_and_keeps_config_and_journal(pi: PiRoot) -> None:
    if not pi.path(f"{DATA}/journal.sqlite3").exists():
        pytest.fail("the journal is made by the start test above: run the whole file")
    config = pi.path(CONFIG)
    config.write_text(config.read_text().replace('language = "en"', 'language = "fr"'))
    kept = {"config": config.read_bytes(), "data": digests(pi.path(DATA))}
    venv = pi.path(f"{VENV}/pyvenv.cfg").stat()
    # a `git pull` that brings a change to the companion
    init = pi.path(f"{CLONE}/companion/__init__.py")
    init.write_text(init.read_text() + "\nUPGRADED = True\n")

    said = pi.install().stdout

    assert f"kept your config {CONFIG}" in said and "user companion exists" in said
    assert {"config": config.read_bytes(), "data": digests(pi.path(DATA))} == kept
    assert pi.path(f"{VENV}/pyvenv.cfg").stat().st_ino == venv.st_ino  # the same venv
    upgraded = pi.run([f"{VENV}/bin/python", "-c", "import companion; print(companion.UPGRADED)"])
    assert upgraded.stdout == "True\n"
    assert "language fr" in pi.companion("check-config", CONFIG).stdout
    assert os.readlink(pi.path(WANTS)) == UNIT


def test_a_system_numpy_is_kept_for_picamera2(pi: PiRoot, tmp_path: Path) -> None:
    """On Raspberry Pi OS python3-picamera2 brings Debian's numpy 1.24, which its compiled parts
    (simplejpeg) need: a numpy 2 from PyPI in the venv would break `import picamera2`
    (picamera2 issues #1088, #1211). Debian has no picamera2, but has that numpy."""
    pi.sh(
        "DEBIAN_FRONTEND=noninteractive "
        "apt-get install -y -qq --no-install-recommends python3-numpy >/dev/null"
    )
    said = pi.install().stdout
    assert "keeping the system's numpy 1." in said
    used = pi.run([f"{VENV}/bin/python", "-c", "import cv2, numpy; print(numpy.__file__)"])
    assert used.stdout.startswith("/usr/lib/python3/dist-packages/numpy/")
    # OpenCV 4 then (numpy 1): the camera's "auto" looks for device 0 with OpenCV 4's logging
    assert pi.run([f"{VENV}/bin/python", "-c", "import cv2; print(cv2.__version__)"]).stdout < "5"
    serves_then_stops(pi, tmp_path / "serve.log")


def test_it_refuses_without_root_or_apt(pi: PiRoot) -> None:
    pi.sh(f"mkdir -p /tmp/clone && cp -r {CLONE}/deploy /tmp/clone/ && chmod -R a+rX /tmp/clone")
    nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    as_nobody = pi.run([*nobody, "bash", "/tmp/clone/deploy/install.sh"], check=False)
    assert as_nobody.returncode == 1 and "run it with sudo" in as_nobody.stderr
    apt = pi.path("/usr/bin/apt-get")
    apt.rename(apt.with_name("apt-get.hidden"))
    try:
        no_apt = pi.install(check=False)
    finally:
        apt.with_name("apt-get.hidden").rename(apt)
    assert no_apt.returncode == 1 and "apt-get was not found" in no_apt.stderr


def test_uninstall_keeps_config_and_journal(pi: PiRoot) -> None:
    said = pi.install("--uninstall").stdout
    for gone in (UNIT, WANTS, SUDOERS, "/opt/tabletop-companion"):
        assert not pi.path(gone).exists() and not pi.path(gone).is_symlink(), gone
    assert pi.path(CONFIG).is_file() and pi.path(f"{DATA}/journal.sqlite3").is_file()
    assert pi.user("companion") is not None
    assert "kept the config" in said and "--uninstall --purge" in said


def test_purge_removes_config_journal_and_user(pi: PiRoot) -> None:
    said = pi.install("--uninstall", "--purge").stdout
    for gone in (UNIT, WANTS, SUDOERS, "/opt/tabletop-companion", CONFIG, DATA):
        assert not pi.path(gone).exists(), gone
    assert pi.user("companion") is None
    assert "companion:" not in pi.path("/etc/group").read_text()
    assert "removed the config" in said
