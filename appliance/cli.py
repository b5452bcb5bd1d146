"""The ``companion`` command."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A game-table moderator: voice, buttons, camera and a live page.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the companion (simulated buttons when not on a Pi)")
    listen = serve.add_mutually_exclusive_group()
    listen.add_argument("--host", help="address to listen on (default from config: 127.0.0.1)")
    listen.add_argument(
        "--lan",
        action="store_const",
        const="0.0.0.0",
        dest="host",
        help="listen on the local network (0.0.0.0), so that phones on the same Wi-Fi can open "
        "the page",
    )
    serve.add_argument("--port", type=int, help="port to listen on (default from config: 5000)")
    serve.add_argument("--config", type=Path, help="TOML config file (see companion.example.toml)")

    replay = sub.add_parser("replay", help="print the final public state of a game record")
    replay.add_argument("record", type=Path, help="a JSON Lines record (from export)")

    export = sub.add_parser("export", help="write a game of the journal as a JSON Lines record")
    export.add_argument("--config", type=Path, help="TOML config file (for the data directory)")
    export.add_argument("--game", type=int, help="game number (default: the latest)")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    say = sub.add_parser("say", help="speak a sentence, or write it to a WAV file")
    say.add_argument("text")
    say.add_argument("--lang", choices=("fr", "en"), default="en")
    say.add_argument("--wav", type=Path, help="write the speech to this WAV file")
    say.add_argument("--rate", type=int, help="words per minute (default from config: 165)")
    say.add_argument("--config", type=Path, help="TOML config file (for [voice])")
    say.add_argument(
        "--engine",
        choices=("auto", "piper", "pyttsx3"),
        help="the speech engine (default from config: auto, Piper where a voice is installed)",
    )

    voices = sub.add_parser(
        "voices", help="the Piper voices: which speaks each language; install; warm the cache"
    )
    voices.add_argument("--config", type=Path, help="TOML config file (for [voice.piper])")
    voices.set_defaults(action="list")
    actions = voices.add_subparsers(dest="action", metavar="ACTION")
    listed = actions.add_parser("list", help="each language's voice (what `voices` alone does)")
    added = actions.add_parser("install", help="install the pinned voices, checked by MD5")
    added.add_argument("names", nargs="*", help="voices to install (default: the configured)")
    added.add_argument(
        "--from",
        dest="source",
        type=Path,
        metavar="FOLDER",
        help="install from this folder (NAME.onnx and NAME.onnx.json), not the internet",
    )
    added.add_argument(
        "--offline", action="store_true", help="install only from a folder or a package"
    )
    warmed = actions.add_parser("warm", help="synthesize the fixed lines into the cache now")
    for action in (listed, added, warmed):  # before or after the action; SUPPRESS: either
        action.add_argument("--config", type=Path, default=argparse.SUPPRESS, help="TOML config")

    pin = sub.add_parser("pin", help="show the host PIN (on the companion's own computer)")
    pin.add_argument("--config", type=Path, help="TOML config file (for the data directory)")
    pin.add_argument("--new", action="store_true", help="make a new PIN: every host is logged out")

    check = sub.add_parser("check-config", help="check a config file and print what it sets")
    check.add_argument("config", type=Path)

    doctor = sub.add_parser("doctor", help="is the table ready? buttons, camera, sound, disk…")
    doctor.add_argument("--config", type=Path, help="TOML config file (see companion.example.toml)")
    doctor.add_argument(
        "--no-buttons",
        action="store_true",
        help="skip the guided button test (e.g. while the service holds the pins)",
    )
    doctor.add_argument(
        "--timeout",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="how long to wait for each press in the button test (default 15)",
    )
    doctor.add_argument(
        "--no-sound", action="store_true", help="play nothing (prompts are printed only)"
    )

    args_list = sys.argv[1:] if argv is None else argv
    if args_list[:1] == ["oraklos"]:
        from appliance.oraklos import add_parser

        add_parser(sub)
    else:  # importing the games loads every engine: not worth it for other commands
        sub.add_parser("oraklos", help="Oraklos referee: true predictions in a throw")
    if args_list[:1] == ["vision"]:
        from vision.cli import add_parser as add_vision_parser

        add_vision_parser(sub)
    else:  # OpenCV takes a while to import: only for the camera's commands
        sub.add_parser("vision", help="the overhead camera: read dice, tessons, calibrate")

    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    handler = {
        "serve": _serve,
        "replay": _replay,
        "export": _export,
        "say": _say,
        "voices": _voices,
        "check-config": _check_config,
        "pin": _pin,
        "doctor": _doctor,
        "oraklos": _oraklos,
        "vision": _vision,
    }[args.command]
    return handler(args)


def _load_config(path: Path | None) -> object:
    from companion.config import ConfigError, load

    try:
        return load(path)
    except ConfigError as exc:
        print(f"companion: config error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _serve(args: argparse.Namespace) -> int:
    import dataclasses

    from appliance.wiring import build
    from companion.config import Config
    from companion.journal import JournalError, Trouble

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    config = _load_config(args.config)
    assert isinstance(config, Config)
    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    config = dataclasses.replace(config, **overrides)
    try:
        companion = build(config, stop=lambda: os.kill(os.getpid(), signal.SIGTERM))
    except JournalError as exc:
        advice = {
            Trouble.FULL: "its disk is full: free some space, then start again",
            Trouble.READ_ONLY: "its disk is read-only (an SD card failing turns read-only): "
            "check it with `companion doctor`, or set data_dir to a writable folder",
            Trouble.FAILED: "check its disk with `companion doctor`, or set data_dir to another "
            "folder",
        }[exc.reason]
        print(f"companion: {exc}\ncompanion: {advice}", file=sys.stderr)
        return 1

    def stop(*_: object) -> None:
        # The live pages' streams end now: waitress waits up to 5 s for its threads to finish.
        companion.broadcaster.close()
        raise SystemExit(0)  # in the main thread, out of waitress's loop, into ``finally``

    signal.signal(signal.SIGTERM, stop)  # systemd's stop, and the companion's own shutdown
    mode = (
        "simulation: virtual button panel on the host page"
        if companion.simulated
        else "GPIO buttons"
    )
    url = f"http://{config.host}:{config.port}"
    lines = [
        f"Companion ready at {url}/ (host page {url}/host; {mode}); journal {config.journal_path}"
    ]
    page = companion.page
    if page.address is None:
        lines.append("No network address yet: connect to the network for phones to open the page")
    elif not page.local_only:
        lines.append(f"Phones open {page.url(page.address)} (and its .local name, once published)")
    else:
        lines.append(
            "Phones cannot open this page: it listens on this computer only. To let phones in, "
            "start it with ./scripts/serve.sh --lan (companion serve --lan)"
        )
    if not companion.lock.generated:
        lines.append("Host PIN: the one set in the config ([host] pin)")
    elif sys.stdout.isatty():  # the host's own terminal; never a log (systemd's journal)
        lines.append(f"Host PIN: {companion.lock.pin} (`companion pin --new` changes it)")
    else:
        lines.append("Host PIN: run `companion pin` on this computer to see it")
    if not page.local_only and not config.secure_cookies:
        lines.append(
            "Note: the host's session cookie travels in clear on the network (plain HTTP); "
            "see docs/SECURITY.md"
        )
    sys.stdout.write("".join(line + "\n" for line in lines))  # one write: the narrator's
    sys.stdout.flush()  # console lines (another thread) cannot fall in between
    from web.server import serve

    try:
        # waitress with caps on streams, connections and bodies: floods do not stop a game
        serve(companion.app, host=config.host, port=config.port)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # closing is not to be cut short
        companion.close()
        companion.shutdown.power_off()  # when one was asked for: everything is closed by now
    return 0


def _replay(args: argparse.Namespace) -> int:
    from companion.record import RecordError, replay

    try:
        with args.record.open(encoding="utf-8") as lines:
            state = replay(lines)
    except OSError as exc:
        print(f"companion replay: cannot read {args.record}: {exc.strerror}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"companion replay: {args.record}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(state, indent=2, ensure_ascii=False))
    return 0


def _export(args: argparse.Namespace) -> int:
    from companion.config import Config
    from companion.journal import Journal
    from companion.record import export_lines

    config = _load_config(args.config)
    assert isinstance(config, Config)
    if not config.journal_path.exists():
        print(f"companion export: no journal at {config.journal_path}", file=sys.stderr)
        return 2
    journal = Journal(config.journal_path)
    entry = journal.game(args.game) if args.game is not None else journal.latest_game()
    if entry is None:
        print("companion export: no such game in the journal", file=sys.stderr)
        return 2
    text = "\n".join(export_lines(journal, entry)) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _say(args: argparse.Namespace) -> int:
    import dataclasses

    from appliance.voices import open_voice, say_to_wav
    from companion.config import Config
    from voice.speech import SpeechUnavailable
    from voice.wav import measure

    config = _load_config(args.config)
    assert isinstance(config, Config)
    changes = {"speech": args.engine, "speech_rate": args.rate}
    config = dataclasses.replace(config, **{k: v for k, v in changes.items() if v is not None})
    try:
        if args.wav:
            engine = say_to_wav(config, args.text, args.lang, args.wav)
            loud = measure(args.wav)
            print(f"wrote {args.wav} with {engine}: {loud.seconds:.2f} s, rms {loud.rms:.3f}")
        else:
            open_voice(config).speak(args.text, args.lang)
    except SpeechUnavailable as exc:
        print(f"companion say: {exc}", file=sys.stderr)
        return 2
    return 0


def _voices(args: argparse.Namespace) -> int:
    from appliance import voices as commands
    from appliance.wiring import lines_to_warm
    from companion.config import Config

    config = _load_config(args.config)
    assert isinstance(config, Config)
    if args.action == "install":
        return commands.install(config, print, args.names, args.source, args.offline)
    if args.action == "warm":
        return commands.warm(config, print, lines_to_warm(config.language))
    return commands.describe(config, print)


def _doctor(args: argparse.Namespace) -> int:
    from appliance.doctor import (
        Machine,
        exit_status,
        format_finding,
        run_checks,
        summary,
        table_voice,
    )
    from companion.config import Config

    config = _load_config(args.config)
    assert isinstance(config, Config)
    if args.timeout <= 0:
        print("companion doctor: --timeout must be a number of seconds above 0", file=sys.stderr)
        return 2
    findings = run_checks(
        config,
        Machine(say=table_voice(config, sound=not args.no_sound)),
        buttons=not args.no_buttons,
        sound=not args.no_sound,
        timeout=args.timeout,
        report=lambda finding: print(format_finding(finding), flush=True),
    )
    print(summary(findings))
    return exit_status(findings)


def _oraklos(args: argparse.Namespace) -> int:
    from appliance.oraklos import run

    return run(args)


def _vision(args: argparse.Namespace) -> int:
    from vision.cli import run

    return run(args)


def _pin(args: argparse.Namespace) -> int:
    """The host PIN, for the host alone: whoever runs this can read the companion's files."""
    from companion.config import Config
    from web.auth import stored_pin

    config = _load_config(args.config)
    assert isinstance(config, Config)
    if config.host_pin is not None:
        if args.new:
            print("companion pin: the PIN is set in the config ([host] pin): change it there")
            return 2
        print(f"Host PIN: {config.host_pin} (set in the config)")
        return 0
    try:
        pin = stored_pin(config.data_dir, renew=args.new)
    except OSError as exc:
        print(
            f"companion pin: cannot read or write {config.data_dir}: {exc.strerror} "
            "(run it as the companion's user, or with sudo)",
            file=sys.stderr,
        )
        return 2
    told = " (new: every host is logged out)" if args.new else ""
    print(f"Host PIN: {pin}{told}")
    return 0


def _check_config(args: argparse.Namespace) -> int:
    from companion.config import Config

    config = _load_config(args.config)
    assert isinstance(config, Config)
    names = ", ".join(config.seat_names) or "default names"
    print(f"{args.config}: OK")
    print(f"  language {config.language}; server {config.host}:{config.port}")
    print(
        f"  {config.seats} seats ({names}); {len(config.leds)} LEDs; "
        f"debounce {config.bounce_ms} ms; pins: {config.pin_factory}"
    )
    print(
        f"  voice: {config.speech}, {config.speech_rate} words/min; night pauses (s): "
        + ", ".join(f"{k} {v:g}" for k, v in config.pauses.items())
    )
    voices = ", ".join(f"{lang} {choice}" for lang, choice in config.piper_voices.items())
    print(f"  Piper voices: {voices} (in {config.voices_folder})")
    camera = config.camera
    calibration = camera.calibration or "none (readings in pixels)"
    colors = camera.colors or "the usual ones (no colour check)"
    print(
        f"  camera: {camera.source}, {camera.width}×{camera.height}; calibration: {calibration}; "
        f"cube colours: {colors}; settled after {camera.settle_frames} still frames"
    )
    pin = "set here" if config.host_pin is not None else "generated once (companion pin)"
    cookies = "HTTPS only" if config.secure_cookies else "plain HTTP too"
    print(f"  host PIN: {pin}; session cookies: {cookies}")
    print(f"  journal: {config.journal_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
