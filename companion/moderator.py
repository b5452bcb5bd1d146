"""The moderator runs one table: it applies actions, journals them, narrates, and publishes.

Every change goes through ``Table``: an action is checked by the engine, written to the journal,
and only then announced (voice, page, LEDs). The outside world sees the table only through
``snapshot()``, which holds the public view and the public narration and nothing else.

``Table`` holds the game and its lock, and hands each concern to its own part: the turns and
the journal to ``Running`` (``companion.playing``), what is said to ``Announcer``
(``companion.announcing``), the hourglass's timers to ``Hourglass`` (``companion.hourglass``),
and the seats on phones to ``Phones`` (``companion.phones``).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from companion.announcing import Announcer, Voice
from companion.at_table import RULES
from companion.broadcast import Broadcast
from companion.chance import RECORD_ONLY_OPTIONS, new_seed
from companion.config import DEFAULT_PAUSES, NAME_LIMIT
from companion.ending import ending
from companion.game import JSON, Action, Event, IllegalAction, MalformedAction
from companion.games.sand import PauseHourglass, ResumeHourglass
from companion.games.titles import game_for
from companion.hourglass import Hourglass
from companion.journal import Journal, JournalError, Thread
from companion.narration import Catalog
from companion.phones import Phones
from companion.playing import Running
from companion.record import export_lines
from companion.seat_input import Press
from companion.timers import REAL_CLOCK, Clock, in_background

log = logging.getLogger(__name__)

REQUESTS_KEPT = 64  # the host page's last start requests remembered (one game per click)
# options a rematch cannot take over: a secret chosen by hand that the end revealed (an Eleusis
# rule typed or picked by the host); such a game is set up anew on the host page
SECRET_CHOICES = frozenset({"rule", "rule_id"})


class Lights(Protocol):
    def set_led(self, seat: int, lit: bool) -> None: ...


class NoGame(RuntimeError):
    pass


def public_snapshot(
    revision: int,
    running: Running[Any, Any] | None,
    language: str,
    narration: Sequence[str],
    message: str | None,
    state: Any = None,
    picture: JSON | None = None,
    hourglass: JSON | None = None,
    camera_lost: bool = False,
    phones: Sequence[int] = (),
    undo: JSON | None = None,
) -> JSON:
    """Compose what the world may see from the public view and what was said aloud.

    ``state`` overrides the running game's state (the secrecy tests compose the snapshot of a
    twin state whose secrets differ, and check the two are identical).
    """
    if running is not None and state is None:
        state = running.state
    return {
        "revision": revision,
        "game": None if running is None else running.entry.title,
        "game_id": None if running is None else running.entry.id,
        "version": 0 if running is None else running.public_version,
        "language": language,
        "names": [] if running is None else list(running.catalog.names),
        "state": None if running is None else running.game.public_view(state),
        "naming": None if running is None else running.rules.show_input(running.pending_input),
        "narration": list(narration),
        "message": message,
        "picture": picture,
        "hourglass": hourglass,
        "camera_lost": camera_lost,
        "phones": list(phones),  # the seats whose phone has opened its link
        "undo": undo,  # what the host may take back now: {"seq", "what"}, or None
        # once the game is over, and only then: who won and why, what the end reveals, a summary
        "ending": None
        if running is None
        else ending(running.game, state, running.catalog, running.ending_said),
    }


def undo_view(running: Running[Any, Any]) -> JSON | None:
    """What the host may take back now, for the page: its journal row and its words."""
    step = running.undo_offer()
    return None if step is None else {"seq": step.seq, "what": running.undo_words(step)}


@dataclass(frozen=True)
class PressResult:
    accepted: Action | None
    messages: tuple[str, ...] = ()


@dataclass
class Table:
    journal: Journal
    voice: Voice
    default_language: str = "en"
    seats: int = 10
    seat_names: Sequence[str] = ()
    pauses: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_PAUSES))
    lights: Lights | None = None
    clock: Clock = REAL_CLOCK  # the hourglass's timers, Ostrakon's contest window
    background: Callable[[Callable[[], None]], None] = in_background  # the companion thinking
    wall_clock: Callable[[], float] = time.time  # the hourglass's end, shown on the pages

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self._running: Running[Any, Any] | None = None
        self._pages = Broadcast(self._lock)
        self._announcer = Announcer(self.voice, self.default_language)
        self._picture: JSON | None = None
        self._camera_lost = False
        self._hourglass = Hourglass(
            lambda: self.clock, lambda: self.wall_clock(), self._warn, self._expire
        )
        self._stopped = False
        self._kept: tuple[int, Thread] | None = None  # the thread last journalled, and its game
        self.phones = Phones(self, self._lock, self.journal, self._pages)
        # the host page's start requests that started a game: key -> its journal id
        self._requests: OrderedDict[str, int] = OrderedDict()

    # -- starting and resuming ----------------------------------------------------------------

    def new_game(
        self,
        title: str,
        options: Mapping[str, Any],
        names: Sequence[str] = (),
        language: str | None = None,
        seed: int | None = None,
        *,
        replace: int | Literal["any"] | None = "any",
        request: str | None = None,
        links_from: int | None = None,
    ) -> bool:
        """Start a game. Raises IllegalAction (bad options or names) and leaves the table as it
        was. The set-up is checked before anything else, so a refusal never ends a game.

        ``replace`` guards a running, unfinished game: None refuses to end it
        (``IllegalAction("game_running")``, naming it); its journal id ends it (an older game's
        id, sent by a page that has not seen the newer one, is refused like None); "any" ends
        whatever runs (the engine's own callers: tests, benchmarks). The game ended says
        nothing more: what its narration had queued is dropped at once.

        ``request`` is the host page's key for one click: a key that already started a game
        starts nothing and returns False (a double click, a request sent again); True when a
        game was started.

        ``links_from``: a finished game whose seat links the new game takes over (a rematch:
        each phone keeps its seat); otherwise, or if they are gone, new links are minted."""
        self._refuse_if_stopped()
        if seed is None:  # the table draws the seed: nobody may choose a hidden order
            for option in sorted(RECORD_ONLY_OPTIONS & set(options)):
                raise IllegalAction("record_only_option", option=option)
        game = game_for(title)
        seed = new_seed() if seed is None else seed
        state = game.new(options, seed)
        players = int(game.public_view(state).get("players", 0))
        if players > self.seats:
            raise IllegalAction("not_enough_seats", players=players, seats=self.seats)
        lang = language or self.default_language
        setup = {"names": self._names(names, players, lang), "language": lang}
        catalog = Catalog(lang, setup["names"])
        with self._lock:
            if request is not None and request in self._requests:
                return False
            ended = self._running
            if ended is not None and ended.game.outcome(ended.state) is not None:
                ended = None  # a finished game ends nothing by being replaced
            if ended is not None and replace != "any" and replace != ended.entry.id:
                raise IllegalAction(
                    "game_running",
                    game=ended.catalog.text(f"games.{ended.entry.title}"),
                    id=ended.entry.id,
                )
            entry = self.journal.start_game(title, game.options_json(state), seed, setup)
            if request is not None:
                self._requests[request] = entry.id
                while len(self._requests) > REQUESTS_KEPT:
                    self._requests.popitem(last=False)
            if ended is not None:
                self._announcer.hush()  # the abandoned game's night is not narrated on
            links = self.phones.links
            if links_from is None or not links.carry(links_from, entry.id, players):
                links.mint(entry.id, players)  # the last game's links stop working
            self._announcer.said.clear()
            self._picture = None
            started = catalog.text(
                f"general.started_{title}"
                if catalog.has(f"general.started_{title}")
                else "general.game_started",
                game=catalog.text(f"games.{title}"),
                players=players,
            )
            rules = RULES[title](self.clock)
            running = Running(entry, game, rules, state, catalog, rules.blank_input)
            self._take_over(running, started, introduce=True)
            return True

    def rematch(self, game_id: int, *, request: str | None = None) -> bool:
        """The host's "play again": a new game of the finished game ``game_id`` (the table's
        last), with its options, names and language, a new secret seed (a new deal), and its
        seat links (each phone keeps its own seat, and only its own). Raises IllegalAction
        when ``game_id`` is not the table's game or is not over. ``request`` as in
        ``new_game``: the same key again starts nothing and returns False."""
        with self._lock:
            if request is not None and request in self._requests:
                return False
            running = self._running
            if running is None or running.entry.id != game_id:
                raise IllegalAction("rematch_not_last")
            if running.game.outcome(running.state) is None:
                raise IllegalAction("rematch_not_over")
            entry = running.entry
            for option in sorted(SECRET_CHOICES & set(entry.options)):
                raise IllegalAction("rematch_secret_choice", option=option)
            options = {k: v for k, v in entry.options.items() if k not in RECORD_ONLY_OPTIONS}
            return self.new_game(
                entry.title,
                options,
                list(running.catalog.names),
                running.catalog.lang,
                replace=None,
                request=request,
                links_from=game_id,
            )

    def resume(self) -> bool:
        """Pick up the journal's last unfinished game, if any, replaying its actions. A game this
        version cannot replay (its options or an action refused by rules that changed since) is
        left in the journal, and the table is told to start a new one: the companion starts."""
        entry = self.journal.latest_game()
        if entry is None or entry.finished:
            return False
        catalog = Catalog(
            entry.setup.get("language", self.default_language), entry.setup.get("names", ())
        )
        try:
            running = Running.resumed(self.journal, entry, RULES[entry.title](self.clock), catalog)
        except (IllegalAction, MalformedAction) as exc:
            # the code alone: a refusal's details may quote a secret (an Eleusis rule as typed)
            why = exc.code if isinstance(exc, IllegalAction) else "a malformed action"
            log.error("game %s cannot be resumed by this version: %s", entry.id, why)
            words = Catalog(entry.setup.get("language", self.default_language))
            told = words.text("general.resume_failed", game=words.text(f"games.{entry.title}"))
            with self._lock:
                self._announcer.said.speak([told], words.lang)
                self.publish()
            return False
        resumed = catalog.text("general.game_resumed", game=catalog.text(f"games.{entry.title}"))
        thread = self.journal.thread(entry.id) or Thread(running.version, (), None)
        with self._lock:
            self.phones.links.load(entry.id)  # the phones' links survive the restart
            self._take_over(running, resumed, thread=thread)
        return True

    def _pick_up(self, running: Running[Any, Any], thread: Thread) -> None:
        """A restart picks up the thread: the narration the page showed comes back, and the
        input half made (a squad half named) if no action was journalled after it."""
        self._announcer.said.pick_up(thread.narration)
        restore = running.rules.restore_input
        if restore is None or thread.pending is None or thread.version != running.version:
            return
        try:
            running.pending_input = restore(thread.pending)
        except (TypeError, ValueError) as exc:
            log.warning("the input half made before the restart is dropped: %s", exc)

    def _take_over(
        self,
        running: Running[Any, Any],
        first_line: str,
        introduce: bool = False,
        thread: Thread | None = None,
    ) -> None:
        """Make ``running`` the table's game, say ``first_line``, then either its opening script
        or (for a new game without one, if ``introduce``) its starting situation. A game
        resumed after a restart picks up its ``thread`` and says what it awaits."""
        running.pending_input = running.rules.blank_input
        if thread is not None:
            self._pick_up(running, thread)
        self._running = running
        self._speak([first_line])
        if introduce and not running.rules.in_opening(running.state):
            self._announcer.tell(running, running.rules.introduce(running.state))
        if thread is not None and not running.rules.in_opening(running.state):
            self._announcer.tell(
                running, running.rules.awaiting(running.state, running.pending_input)
            )
        self._refresh_lights()
        self._await_move()  # before publishing: the snapshot shows the hourglass now running
        self.publish()
        self._begin_opening()

    def _names(self, names: Sequence[str], players: int, lang: str) -> list[str]:
        """The players' names: none given means the seats' own names; otherwise exactly one
        per player, all different (ignoring case and spaces around), none too long."""
        given = [n.strip() for n in names if n.strip()]
        if given and len(given) != players:
            raise IllegalAction("names_count", given=len(given), players=players)
        seen: dict[str, int] = {}
        for number, name in enumerate(given, start=1):
            if len(name) > NAME_LIMIT:
                raise IllegalAction("name_too_long", limit=NAME_LIMIT, number=number)
            twin = seen.setdefault(name.casefold(), number)
            if twin != number:
                raise IllegalAction("names_twice", name=name, first=twin, number=number)
        defaults = list(self.seat_names)
        fallback = Catalog(lang)
        out = []
        for seat in range(players):
            if seat < len(given):
                out.append(given[seat])
            elif seat < len(defaults):
                out.append(defaults[seat])
            else:
                out.append(fallback.text("general.seat_fallback", number=seat + 1).capitalize())
        return out

    def _begin_opening(self) -> None:
        """The opening script of the game now running, if it has one; at its end, the opening's
        end is submitted, if the game is still in its opening."""
        running = self._running
        assert running is not None
        rules, game_id = running.rules, running.entry.id

        def done() -> None:
            with self._lock:
                current = self._running
                if current is None or current.entry.id != game_id:
                    return
                if rules.in_opening(current.state) and rules.end_opening is not None:
                    self.submit(rules.end_opening())

        shown = functools.partial(self._shown, game_id)
        self._announcer.opening(running, self.pauses, shown, done)

    def _shown(self, game_id: int, line: str) -> None:
        with self._lock:
            if self._running is None or self._running.entry.id != game_id:
                return  # a replaced game's line, in the air as the new game began
            self._announcer.said.show(line)
            self.publish()

    # -- acting -------------------------------------------------------------------------------

    def submit(self, action: Action) -> list[Event]:
        """Apply, journal, then announce. Raises IllegalAction, NoGame or JournalError; in every
        such case nothing changed."""
        with self._lock:
            running = self.live()
            events = running.play(action, self.journal)
            self.phones.forget_notes()
            if running.over:
                self.phones.links.revoke()
            self._announcer.tell_move(running, events)
            self._refresh_lights()
            self._await_move()  # before publishing: the snapshot shows the hourglass now running
            self.publish()
            return events

    def press(self, press: Press) -> PressResult:
        """A seat pressed A or B. Never raises for a rule problem: it answers with a message."""
        with self._lock:
            running = self._running
            if self._stopped:
                return PressResult(None)  # the table has been told it is shutting down
            if press.long and (running is None or not running.rules.long_presses):
                return PressResult(None)  # the press itself was reported on the way down
            if running is None:
                return self._tell([Catalog(self.default_language).text("ignored.no_game")])
            result = running.rules.interpret(running.state, running.pending_input, press)
            running.pending_input = result.pending
            said = self._announcer.tell(running, result.feedback)
            if result.action is None:
                self.publish()
                return PressResult(None, tuple(said))
            try:
                self.submit(result.action)
            except IllegalAction as exc:
                private = exc.params.get("private_to")
                if isinstance(private, int):  # for that seat's own page alone: never said
                    self.phones.tell(private, self.explain(exc))
                    return PressResult(None)
                return self._tell([self.explain(exc)])
            except JournalError as exc:
                log.error("%s", exc)
                return self._tell([self.refusal(exc)])
            return PressResult(result.action, tuple(said))

    def undo(self, seq: int) -> None:
        """The host takes back the last action, row ``seq`` of the journal: the one the page
        offered (``snapshot()["undo"]``). Refused unless it is still the last action standing and
        may be taken back (``Running.undo_offer``): a second click, or a page that has not seen
        a newer action, takes back nothing. Journalled as an undo row (the action stays in the
        journal), then said, with what the table awaits again. Raises IllegalAction, NoGame or
        JournalError; in every such case nothing changed."""
        with self._lock:
            running = self.live()
            step = running.take_back(seq, self.journal)
            self.phones.forget_notes()
            self._speak([running.catalog.text("undo.taken_back", what=running.undo_words(step))])
            self._announcer.tell(
                running, running.rules.awaiting(running.state, running.pending_input)
            )
            self._refresh_lights()
            self._await_move()
            self.publish()

    def stop_play(self) -> None:
        """Refuse every action from now on (the companion is shutting down) and stop the sand.
        Everything accepted is in the journal already: the next start resumes from it, with
        the same state."""
        with self._lock:
            self._stopped = True
            self._hourglass.stop()

    def _refuse_if_stopped(self) -> None:
        if self._stopped:
            raise IllegalAction("shutting_down")

    def refusal_for(self, exc: IllegalAction, seat: int | None = None) -> str:
        """The one place that decides who may read why an action was refused: a refusal meant
        for one seat alone (``private_to``: its wording may tell that seat's identity or hand)
        is worded for that seat's own page; anyone else (the host page, the table) is told
        only that it was refused."""
        private = exc.params.get("private_to")
        if private is None or private == seat:
            return self.explain(exc)
        return self.text("errors.private_refusal")

    def explain(self, exc: IllegalAction) -> str:
        running = self._running
        catalog = running.catalog if running else Catalog(self.default_language, self.seat_names)
        return catalog.explain(exc)

    def text(self, key: str, **params: Any) -> str:
        """A catalog sentence in the running game's language (the table's own without one)."""
        running = self._running
        catalog = running.catalog if running else Catalog(self.default_language, self.seat_names)
        return catalog.text(key, **params)

    def refusal(self, exc: JournalError) -> str:
        """Why an action was refused when the journal could not take it (a full or read-only
        disk), as a sentence for the table, in its language."""
        return self.text(exc.key)

    def notice(self, text: str) -> None:
        """Say and show something that is not a game event (a camera that stopped...)."""
        with self._lock:
            self._speak([text])
            self.publish()

    def camera_lost(self, lost: bool) -> None:
        """The camera has stopped (``lost``) or is back: said once each way, and the pages
        offer to enter by hand what the camera would have read while it is lost."""
        with self._lock:
            if lost == self._camera_lost:
                return
            self._camera_lost = lost
            self._speak([self.text("camera.stopped" if lost else "camera.back")])
            self.publish()

    def show(self, text: str) -> None:
        """Show, without saying, something that is not a game event: what the voice itself
        cannot say (it has stopped), so that it never asks the narrator to speak."""
        with self._lock:
            self._announcer.said.show(text)
            self.publish()

    def button_stuck(self, seat: int) -> None:
        """A seat's button has stayed down too long: say so, and send the seat to its phone.
        Which button is never said: the one held down may be a secret vote (A or B)."""
        self.notice(self.text("general.button_stuck", seat=seat))

    def _tell(self, messages: list[str]) -> PressResult:
        self._speak(messages)
        self.publish()
        return PressResult(None, tuple(messages))

    # -- the companion's own moves and the hourglass ---------------------------------------------

    def _await_move(self) -> None:
        """After each change: run the hourglass on the move now awaited, if the game has one (a
        new countdown unless the game says the same one runs on), and let the companion think
        if the move is its own. What they send is submitted only if still awaited then."""
        running = self._running
        assert running is not None
        live = running.game.outcome(running.state) is None and not running.rules.in_opening(
            running.state
        )
        timed = running.rules.timed_move(running.state) if live else None
        self._hourglass.follow(running.entry.id, timed)
        think = running.rules.companion_move
        if live and think is not None:
            still = functools.partial(self._unchanged, running.entry.id, running.version)
            state = running.state
            self.background(functools.partial(self._act_if, still, lambda: think(state)))

    def pause_hourglass(self) -> list[Event]:
        """Stop the running countdown, journalling the seconds left (the host's pause; see
        ``companion.games.sand``). Raises IllegalAction when no countdown runs."""
        with self._lock:
            self.require()
            left = self._hourglass.left()
            if left is None:
                raise IllegalAction("no_hourglass_running")
            return self.submit(PauseHourglass(round(left, 1)))

    def resume_hourglass(self) -> list[Event]:
        """Run the paused countdown on from the seconds it had left."""
        return self.submit(ResumeHourglass())

    def _unchanged(self, game_id: int, version: int) -> bool:
        running = self._running
        return running is not None and running.entry.id == game_id and running.version == version

    def _warn(self, still: Callable[[], bool], seat: int, left: int) -> None:
        with self._lock:
            running = self._running
            if running is None or not still():
                return
            self._speak([running.catalog.text("general.hourglass_left", seat=seat, seconds=left)])
            self.publish()

    def _expire(self, still: Callable[[], bool], action: Action) -> None:
        """The sand ran out: send the move it awaited, if that countdown still runs."""
        self._act_if(still, lambda: action)

    def _act_if(self, still: Callable[[], bool], decide: Callable[[], Action | None]) -> None:
        """Submit what ``decide`` returns (computed off the lock), if the table has not moved."""
        action = decide()
        if action is None:
            return
        with self._lock:
            if not still():
                return
            try:
                self.submit(action)
            except (IllegalAction, JournalError) as exc:
                log.error("the companion's own action was refused: %s", exc)

    def _speak(self, lines: list[str]) -> None:
        self._announcer.speak(self._running, lines)

    def require(self) -> Running[Any, Any]:
        """The running game: raises NoGame when none runs."""
        if self._running is None:
            raise NoGame("no game is running: start one on the host page")
        return self._running

    def live(self) -> Running[Any, Any]:
        """The running game, while the table still takes actions: raises IllegalAction when
        the companion is shutting down, NoGame when no game runs."""
        self._refuse_if_stopped()
        return self.require()

    def _refresh_lights(self) -> None:
        """An LED says "your vote (or card) is in", never which."""
        if self.lights is None or self._running is None:
            return
        view = self._running.game.public_view(self._running.state)
        done = {
            seat
            for key in ("voted", "played")  # lists of seats (Eleusis's "played" is a count)
            if isinstance(view.get(key), list)
            for seat in view[key]
        }
        for seat in range(self.seats):
            self.lights.set_led(seat, seat in done)

    # -- what the world may see ---------------------------------------------------------------

    def subscribe(self, listener: Callable[[JSON], None]) -> Callable[[], None]:
        """``listener(snapshot)`` is called with each public snapshot published."""
        return self._pages.subscribe(listener)

    def snapshot(self) -> JSON:
        """The public state of the table: the only thing the page, the API and SSE ever see."""
        with self._lock:
            running = self._running
            if running is None:
                return public_snapshot(
                    self._pages.revision,
                    None,
                    self.default_language,
                    self._announcer.said.lines,
                    self._announcer.said.message,
                )
            return public_snapshot(
                self._pages.revision,
                running,
                running.catalog.lang,
                self._announcer.said.lines,
                self._announcer.said.message,
                picture=self._picture,
                hourglass=self._hourglass.view(),
                camera_lost=self._camera_lost,
                phones=self.phones.links.phones(),
                undo=undo_view(running),
            )

    def show_picture(self, picture: JSON | None) -> None:
        """What the camera saw of the table (public: the dice lie face up), shown on the page:
        where to fetch the image and how table units map to its pixels."""
        with self._lock:
            self._picture = picture
            self.publish()

    def publish(self) -> None:
        """Tell the pages of a change (``Broadcast.publish``), the thread journalled first."""
        self._pages.publish(self.snapshot(), self._keep_thread)

    def _keep_thread(self) -> None:
        """Journal what the page now shows of the thread (its narration, the squad half named)
        when it has changed, for a restart to pick up. Public alone, like the page; derived,
        not an action: a journal that cannot take it loses the thread, never a move."""
        running = self._running
        if running is None:
            return
        thread = Thread(
            running.version,
            tuple(self._announcer.said.lines),
            running.rules.keep_input(running.pending_input),
        )
        kept = (running.entry.id, thread)
        if kept == self._kept:
            return
        try:
            self.journal.save_thread(running.entry.id, thread)
        except JournalError as exc:
            log.warning("the narration could not be kept for a restart: %s", exc)
            return
        self._kept = kept

    @property
    def running(self) -> Running[Any, Any] | None:
        return self._running

    def playing(self, title: str, refusal: str) -> Running[Any, Any]:
        """The running game, if it is ``title`` (what a camera desk reads for): ``NoGame`` when
        none runs, ``IllegalAction(refusal)`` when another game does."""
        running = self.require()
        if running.entry.title != title:
            raise IllegalAction(refusal, game=running.entry.title)
        return running

    def export(self) -> list[str]:
        with self._lock:
            running = self.require()
            return list(export_lines(self.journal, running.entry))
