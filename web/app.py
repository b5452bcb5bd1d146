"""The Flask application: pages and JSON API over one ``Table``."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from companion.game import IllegalAction, MalformedAction, action_from_json
from companion.journal import JournalError
from companion.moderator import NoGame, Table
from companion.narration.catalog import LANGUAGES, Catalog
from companion.seat_input import Button, Press
from web.sse import Broadcaster

VERDICTS = ("vote_approved", "vote_rejected")


def labels() -> dict[str, dict[str, str]]:
    """The page's words in every language, keyed like the catalog's ``ui`` table, plus the
    vote's verdict as the narrator says it (shown under the revealed votes)."""
    out: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        keys = Catalog.keys(lang)
        words = {k[3:]: v for k, v in keys.items() if k.startswith("ui.")}
        words.update({v: keys[f"resistance.say.{v}"] for v in VERDICTS})
        reasons = "oraklos.reasons."  # a judged claim's reason, shown under the throw
        words.update(
            {"reason_" + k[len(reasons) :]: v for k, v in keys.items() if k.startswith(reasons)}
        )
        out[lang] = words
    return out


def create_app(
    table: Table,
    broadcaster: Broadcaster,
    panel: Any = None,
    leds: Any = None,
    throws: Any = None,
    tessons: Any = None,
) -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]

    def error(status: int, message: str) -> tuple[Response, int]:
        return jsonify({"error": message}), status

    def bad_request(detail: str) -> tuple[Response, int]:
        catalog = Catalog(table.snapshot()["language"])
        return error(400, catalog.text("errors.malformed", detail=detail))

    @app.get("/")
    def public_page() -> str:
        return render_template(
            "table.html", labels=json.dumps(labels()), host=False, simulated=panel is not None
        )

    @app.get("/host")
    def host_page() -> str:
        return render_template(
            "table.html",
            labels=json.dumps(labels()),
            host=True,
            simulated=panel is not None,
            seats=table.seats,
        )

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(table.snapshot())

    @app.get("/api/events")
    def events() -> Response:
        return Response(
            broadcaster.stream(),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.post("/api/games")
    def new_game() -> Any:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return bad_request("send a JSON object with game, options, names and language")
        title = body.get("game", "resistance")
        options = body.get("options", {})
        names = body.get("names", [])
        language = body.get("language")
        if (
            not isinstance(options, dict)
            or not isinstance(names, list)
            or not all(isinstance(n, str) for n in names)
        ):
            return bad_request("options must be an object and names a list of texts")
        if language is not None and language not in LANGUAGES:
            return bad_request(f"language must be one of {', '.join(LANGUAGES)}")
        try:
            table.new_game(title, options, names, language)
        except KeyError:
            return error(
                400, Catalog(table.snapshot()["language"]).text("errors.unknown_game", game=title)
            )
        except IllegalAction as exc:
            return error(400, table.explain(exc))
        except JournalError as exc:
            return error(503, str(exc))
        return jsonify(table.snapshot()), 201

    @app.post("/api/press")
    def press() -> Any:
        if panel is None:
            return error(409, "the virtual panel exists only in simulation; use the buttons")
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return bad_request('send {"seat": number, "button": "A" or "B"}')
        seat, button = body.get("seat"), body.get("button")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < table.seats:
            return bad_request(f"seat must be a number from 0 to {table.seats - 1}")
        if button not in ("A", "B"):
            return bad_request('button must be "A" or "B"')
        panel.press(Press(seat, Button(button)))
        return jsonify(table.snapshot())

    @app.get("/api/panel")
    def panel_state() -> Any:
        return jsonify({"simulated": panel is not None, "leds": leds() if leds is not None else []})

    @app.post("/api/act")
    def act() -> Any:
        """An action typed on the host page: a marker taken, a claim, a correction..."""
        running = table.running
        if running is None:
            return error(409, Catalog(table.snapshot()["language"]).text("errors.no_game"))
        try:
            action = action_from_json(running.game.actions, request.get_json(silent=True))
        except MalformedAction as exc:
            return bad_request(str(exc))
        return submitted(lambda: table.submit(action))

    @app.post("/api/throw/read")
    def read_throw() -> Any:
        """Read the dice on the table now (a first reading, or a re-read)."""
        if throws is None:
            return error(409, Catalog(table.snapshot()["language"]).text("camera.missing"))
        return submitted(throws.read_now)

    @app.post("/api/tessons/read")
    def read_tessons() -> Any:
        """Ostrakon by camera: read the tessons turned face up at this step of the reveal."""
        if tessons is None:
            return error(409, Catalog(table.snapshot()["language"]).text("camera.missing"))
        return submitted(tessons.read_now)

    @app.get("/api/throw.jpg")
    def throw_picture() -> Any:
        jpeg = None if throws is None else throws.jpeg
        if jpeg is None:
            return error(404, Catalog(table.snapshot()["language"]).text("camera.no_picture"))
        return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    def submitted(do: Any) -> Any:
        from vision.readings import UnreadableFrame
        from vision.sources import CameraUnavailable

        try:
            do()
        except IllegalAction as exc:
            return error(400, table.explain(exc))
        except NoGame:
            return error(409, Catalog(table.snapshot()["language"]).text("errors.no_game"))
        except (CameraUnavailable, UnreadableFrame) as exc:
            return error(503, str(exc))
        except JournalError as exc:
            return error(503, str(exc))
        return jsonify(table.snapshot())

    @app.get("/api/record")
    def record() -> Any:
        try:
            lines = table.export()
        except NoGame as exc:
            return error(404, str(exc))
        return Response(
            "\n".join(lines) + "\n",
            mimetype="application/x-ndjson",
            headers={"Content-Disposition": "attachment; filename=game.jsonl"},
        )

    return app
