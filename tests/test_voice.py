"""The voice: real espeak-ng speech measured in WAV files, the narrator's order and pauses, the
choice of engine, and a night phase whose sound and timing say nothing about the Cylons."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import wave
from collections.abc import Callable
from pathlib import Path

import pytest
import pyttsx3

import voice.speech
from companion.journal import Journal
from companion.moderator import Table
from companion.narration import Catalog, Line, Pause
from companion.narration.resistance import night_script
from voice.narrator import Narrator
from voice.speech import (
    ConsoleSpeech,
    Pyttsx3Speech,
    Speech,
    SpeechUnavailable,
    choose_speech,
)
from voice.wav import Loudness, measure, write_wav

FR_LINE = Catalog("fr").text("resistance.night.close_eyes")
EN_LINE = Catalog("en").text("resistance.night.close_eyes")
PAUSES = {"intro": 4.5, "close_eyes": 2.0, "cylons_open": 7.25, "cylons_close": 3.5}


def sounds_like_speech(loud: Loudness) -> bool:
    """A sentence read aloud: a plausible length, clearly above silence, mostly voiced."""
    return 0.8 <= loud.seconds <= 10 and loud.rms > 0.01 and loud.voiced_share > 0.3


def write_silence(path: Path, seconds: float = 1.0, rate: int = 22050) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(b"\x00\x00" * int(rate * seconds))


class Recorder:
    """A Speech (the project's own protocol) that writes down what it is asked to say, and an
    injected ``sleep`` that writes down the pauses, both in one log so their order shows."""

    name = "recorder"

    def __init__(self, fail_on: str | None = None) -> None:
        self.log: list[tuple[str, object]] = []
        self.fail_on = fail_on

    def speak(self, text: str, lang: str) -> None:
        if text == self.fail_on:
            raise RuntimeError("the loudspeaker fell off the table")
        self.log.append(("line", text))

    def sleep(self, seconds: float) -> None:
        self.log.append(("pause", seconds))

    def lines(self) -> list[object]:
        return [value for kind, value in self.log if kind == "line"]


# -- real speech, measured ------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "text"), [("fr", FR_LINE), ("en", EN_LINE)])
def test_espeak_ng_speaks_the_night_line_into_a_wav(tmp_path: Path, lang: str, text: str) -> None:
    loud = write_wav(text, lang, tmp_path / f"{lang}.wav")

    assert 0.8 <= loud.seconds <= 10
    assert loud.rms > 0.01
    assert loud.voiced_share > 0.3
    assert sounds_like_speech(loud)
    assert measure(tmp_path / f"{lang}.wav") == loud


def test_a_silent_wav_measures_as_silent(tmp_path: Path) -> None:
    write_silence(tmp_path / "silence.wav", seconds=1.0)

    loud = measure(tmp_path / "silence.wav")

    assert loud == Loudness(1.0, 0.0, 0.0)
    assert not sounds_like_speech(loud)


@pytest.mark.parametrize(("lang", "region"), [("fr", "fr-fr"), ("en", "en-gb")])
def test_the_voice_for_a_language_speaks_that_language(lang: str, region: str) -> None:
    speech = Pyttsx3Speech()
    chosen = speech.voice_for(lang)

    voices = {v.id: v for v in pyttsx3.init().getProperty("voices")}
    languages = [str(code).lower() for code in voices[chosen].languages]
    assert languages and all(code.startswith(lang) for code in languages)
    assert region in languages  # the main variety, not Belgian French or Caribbean English


def test_a_french_line_keeps_the_french_voice_after_another_speaker_used_english(
    tmp_path: Path,
) -> None:
    """pyttsx3 gives every instance in the process the same engine: a voice set by one is the
    voice of all, so each utterance must set its own."""
    narrator_voice, other = Pyttsx3Speech(), Pyttsx3Speech()
    narrator_voice.save(FR_LINE, "fr", tmp_path / "fr1.wav")
    other.save(FR_LINE, "en", tmp_path / "read_in_english.wav")
    narrator_voice.save(FR_LINE, "fr", tmp_path / "fr2.wav")

    french = measure(tmp_path / "fr1.wav").seconds
    english = measure(tmp_path / "read_in_english.wav").seconds
    again = measure(tmp_path / "fr2.wav").seconds
    assert abs(english - french) > 0.2  # the two voices are told apart by their length
    assert abs(again - french) < 0.05


def test_each_speaker_keeps_its_own_rate(tmp_path: Path) -> None:
    """Each instance sets its rate on the shared engine before every line, and espeak-ng must
    have applied it before pyttsx3 starts speaking (else the change is randomly cancelled)."""
    slow, fast = Pyttsx3Speech(rate=110), Pyttsx3Speech(rate=250)
    seconds: dict[str, list[float]] = {"slow": [], "fast": []}

    for turn in range(3):
        for name, speech in (("slow", slow), ("fast", fast)):
            speech.save(EN_LINE, "en", tmp_path / f"{name}{turn}.wav")
            seconds[name].append(measure(tmp_path / f"{name}{turn}.wav").seconds)

    assert min(seconds["slow"]) > 1.5 * max(seconds["fast"])
    assert max(seconds["slow"]) - min(seconds["slow"]) < 0.05


def test_speaking_after_saving_does_not_overwrite_the_saved_wav(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyttsx3 2.99's espeak driver remembers the last file name and writes every later
    utterance into it instead of playing it."""
    speech = Pyttsx3Speech()
    speech.save(FR_LINE, "fr", tmp_path / "night.wav")
    saved = (tmp_path / "night.wav").read_bytes()
    monkeypatch.setenv("PATH", str(tmp_path))  # no aplay: nothing is played aloud here

    speech.speak("A much longer sentence, which must not end up in the night file.", "en")

    assert (tmp_path / "night.wav").read_bytes() == saved


def test_companion_say_writes_a_french_wav(tmp_path: Path) -> None:
    out = tmp_path / "out.wav"

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "appliance.cli",
            "say",
            "Tout le monde ferme les yeux.",
            "--lang",
            "fr",
            "--wav",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    assert sounds_like_speech(measure(out))


def ostrakon_turn_lines(lang: str) -> list[str]:
    """What the table hears of a real Ostrakon question: the dealer's announcement, the call to
    vote, and the count (from the engine's events, through the narration)."""
    from companion.games.ostrakon.engine import Ostrakon
    from companion.games.ostrakon.state import Ask, Vote
    from companion.narration.ostrakon import lines

    game = Ostrakon()
    catalog = Catalog(lang, ["Calippos", "Malia", "Nausicaa", "Doreminos", "Thalia"])
    state = game.new({"players": 5, "pile": [0, 1, 2, 3, 4]}, 3)
    events = game.opening_events(state)[-1:]
    for action in (Ask(0), *[Vote(seat, seat != 4) for seat in range(5)]):
        state, more = game.apply(state, action)
        events += more
    said = [line for event in events for line in lines(catalog, event)]
    assert said[0].startswith(("Day 1 of 6.", "Jour 1 sur 6."))
    assert any(line.startswith(("4 white, 1 black", "4 blancs, 1 noir")) for line in said)
    return said


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_espeak_ng_speaks_an_ostrakon_turn_into_wavs(tmp_path: Path, lang: str) -> None:
    said = ostrakon_turn_lines(lang)

    for n, line in enumerate(said):
        loud = write_wav(line, lang, tmp_path / f"{lang}{n}.wav")
        assert loud.seconds > 0.8, line  # some seconds of speech per line, never an empty file
        assert loud.rms > 0.01, line  # not silent
        assert loud.voiced_share > 0.3, line
        assert loud.seconds < 2 + 0.15 * len(line), line  # read, not stuck


def test_the_french_ostrakon_turn_is_read_by_the_french_voice(tmp_path: Path) -> None:
    """The same French sentence read by the English voice sounds different (another length)."""
    (line, *_) = ostrakon_turn_lines("fr")
    french = write_wav(line, "fr", tmp_path / "fr.wav").seconds
    english = write_wav(line, "en", tmp_path / "en.wav").seconds
    assert abs(french - english) > 0.2


# -- choosing an engine ---------------------------------------------------------------------------


def _unavailable(*args: object, **kwargs: object) -> Pyttsx3Speech:
    raise SpeechUnavailable("the speech engine does not start (no espeak): install espeak-ng")


def test_console_speech_prints_the_language_and_the_line() -> None:
    out = io.StringIO()

    ConsoleSpeech(out).speak("Tout le monde ferme les yeux.", "fr")

    assert out.getvalue() == "[fr] Tout le monde ferme les yeux.\n"


def test_console_speech_prints_to_stdout_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    ConsoleSpeech().speak("Everyone, open your eyes.", "en")

    assert capsys.readouterr().out == "[en] Everyone, open your eyes.\n"


def test_auto_falls_back_to_the_console_when_the_engine_does_not_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(voice.speech.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(voice.speech, "SOUND_CARDS", with_a_sound_card(tmp_path))
    monkeypatch.setattr(voice.speech, "Pyttsx3Speech", _unavailable)

    speech, warning = choose_speech("auto")

    assert isinstance(speech, ConsoleSpeech)
    assert warning is not None and "install espeak-ng" in warning


def with_a_sound_card(folder: Path) -> Path:
    cards = folder / "cards"
    cards.write_text(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")
    return cards


def test_auto_falls_back_to_the_console_without_a_sound_card(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(voice.speech.sys, "platform", "linux")
    monkeypatch.setattr(voice.speech.shutil, "which", lambda name: f"/usr/bin/{name}")
    cards = tmp_path / "cards"
    cards.write_text("--- no soundcards ---\n")
    monkeypatch.setattr(voice.speech, "SOUND_CARDS", cards)

    speech, warning = choose_speech("auto")

    assert isinstance(speech, ConsoleSpeech)
    assert warning is not None and "no sound card" in warning


def test_auto_falls_back_to_the_console_without_aplay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(voice.speech.sys, "platform", "linux")
    monkeypatch.setattr(voice.speech.shutil, "which", lambda name: None)

    speech, warning = choose_speech("auto")

    assert isinstance(speech, ConsoleSpeech)
    assert warning is not None and "aplay" in warning and "alsa-utils" in warning


def test_asking_for_pyttsx3_raises_when_it_cannot_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(voice.speech.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(voice.speech, "SOUND_CARDS", with_a_sound_card(tmp_path))
    monkeypatch.setattr(voice.speech, "Pyttsx3Speech", _unavailable)

    with pytest.raises(SpeechUnavailable, match="install espeak-ng"):
        choose_speech("pyttsx3")


def test_asking_for_pyttsx3_raises_without_aplay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(voice.speech.sys, "platform", "linux")
    monkeypatch.setattr(voice.speech.shutil, "which", lambda name: None)

    with pytest.raises(SpeechUnavailable, match="aplay"):
        choose_speech("pyttsx3")


def test_auto_uses_espeak_ng_when_it_can_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(voice.speech.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(voice.speech, "SOUND_CARDS", with_a_sound_card(tmp_path))

    speech, warning = choose_speech("auto")

    assert isinstance(speech, Pyttsx3Speech)
    assert warning is None


def test_console_is_chosen_without_a_warning_when_asked_for() -> None:
    speech, warning = choose_speech("console")

    assert isinstance(speech, ConsoleSpeech)
    assert warning is None


# -- the narrator ---------------------------------------------------------------------------------


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def make_narrator(speech: Speech, sleep: Callable[[float], None]) -> Narrator:
    return Narrator(lambda: speech, sleep=sleep)


def test_lines_and_pauses_are_kept_in_order_with_their_exact_lengths(recorder: Recorder) -> None:
    narrator = make_narrator(recorder, recorder.sleep)

    narrator.script(
        [Line("one"), Pause(5.0), Line("two"), Pause(0.25), Pause(7.5), Line("three")],
        "en",
        then=lambda: recorder.log.append(("then", None)),
    )
    narrator.say("four", "en")

    assert narrator.wait_idle(5)
    narrator.close()
    assert recorder.log == [
        ("line", "one"),
        ("pause", 5.0),
        ("line", "two"),
        ("pause", 0.25),
        ("pause", 7.5),
        ("line", "three"),
        ("then", None),
        ("line", "four"),
    ]


def test_say_and_script_return_while_a_slow_line_is_being_spoken() -> None:
    """Narration never blocks the buttons."""
    started, release = threading.Event(), threading.Event()
    spoken: list[str] = []

    class SlowSpeech:
        name = "slow"

        def speak(self, text: str, lang: str) -> None:
            started.set()
            release.wait(10)
            spoken.append(text)

    narrator = make_narrator(SlowSpeech(), lambda s: None)
    narrator.say("a long sentence", "fr")
    assert started.wait(5)

    def caller() -> None:
        narrator.say("next", "fr")
        narrator.script([Pause(3.0), Line("after the pause")], "fr")

    other = threading.Thread(target=caller)
    other.start()
    other.join(5)

    assert not other.is_alive()  # returned although the speech is still held
    assert not release.is_set() and spoken == []
    assert not narrator.wait_idle(0)
    release.set()
    assert narrator.wait_idle(5)
    assert spoken == ["a long sentence", "next", "after the pause"]
    narrator.close()


def test_a_failing_line_does_not_stop_the_narration(caplog: pytest.LogCaptureFixture) -> None:
    speech = Recorder(fail_on="boom")
    narrator = make_narrator(speech, speech.sleep)

    narrator.script(
        [Line("first"), Line("boom"), Pause(1.0), Line("third")],
        "en",
        then=lambda: speech.log.append(("then", None)),
    )
    narrator.say("fourth", "en")

    assert narrator.wait_idle(5)
    assert speech.log == [
        ("line", "first"),
        ("pause", 1.0),
        ("line", "third"),
        ("then", None),
        ("line", "fourth"),
    ]
    assert narrator.failures == 1
    assert "narration failed" in caplog.text
    narrator.close()


def test_a_failing_callback_does_not_stop_the_narration(recorder: Recorder) -> None:
    narrator = make_narrator(recorder, recorder.sleep)

    def broken() -> None:
        raise ValueError("no game")

    narrator.script([Line("one")], "en", then=broken)
    narrator.say("two", "en")

    assert narrator.wait_idle(5)
    assert recorder.lines() == ["one", "two"]
    assert narrator.failures == 1
    narrator.close()


def test_an_engine_that_does_not_start_falls_back_to_the_console(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Else the worker dies: nothing is said again and the night never ends."""

    def no_engine() -> ConsoleSpeech:
        raise SpeechUnavailable("the speech engine does not start")

    ran = threading.Event()
    narrator = Narrator(no_engine, sleep=lambda s: None)
    narrator.script([Line("Tout le monde ferme les yeux."), Pause(2.0)], "fr", then=ran.set)

    assert narrator.wait_idle(5)
    assert ran.is_set()
    assert "[fr] Tout le monde ferme les yeux." in capsys.readouterr().out
    assert narrator.failures == 1
    assert "speech engine does not start" in caplog.text
    narrator.close()


def test_close_ends_the_worker_after_what_was_queued(recorder: Recorder) -> None:
    narrator = make_narrator(recorder, recorder.sleep)
    narrator.say("last words", "en")

    narrator.close()

    assert not narrator._thread.is_alive()
    assert recorder.lines() == ["last words"]


# -- the night: sound and timing leak nothing -----------------------------------------------------


def expected_night(lang: str) -> list[tuple[str, object]]:
    return [
        ("line", item.text) if isinstance(item, Line) else ("pause", item.seconds)
        for item in night_script(Catalog(lang), PAUSES)
    ]


def narrated_opening(
    path: Path, lang: str, options: dict[str, object], seed: int
) -> list[tuple[str, object]]:
    """Everything a table hears from the start of a game until the night is over."""
    speech = Recorder()
    narrator = make_narrator(speech, speech.sleep)
    journal = Journal(path)
    table = Table(journal, narrator, default_language=lang, pauses=PAUSES)
    table.new_game("resistance", options, seed=seed)
    assert narrator.wait_idle(5)
    narrator.close()
    journal.close()
    assert table.snapshot()["state"]["phase"] == "propose"
    return speech.log


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_night_script_has_the_configured_pauses_and_nothing_else(lang: str) -> None:
    script = night_script(Catalog(lang), PAUSES)

    assert [item.seconds for item in script if isinstance(item, Pause)] == [4.5, 2.0, 7.25, 3.5]
    assert [item.text for item in script if isinstance(item, Line)] == [
        Catalog(lang).text(f"resistance.night.{step}")
        for step in ("intro", "close_eyes", "cylons_open", "cylons_close", "open_eyes")
    ]


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("players", range(5, 11))
def test_the_night_sounds_the_same_whatever_the_game(
    tmp_path: Path, lang: str, players: int
) -> None:
    night = expected_night(lang)
    games = [
        ({"players": players}, 1),
        ({"players": players}, 987654),
        ({"players": players, "targeting": True, "first_commander": players - 1}, 42),
    ]

    heard = [
        narrated_opening(tmp_path / f"{n}.sqlite3", lang, options, seed)
        for n, (options, seed) in enumerate(games)
    ]

    for log in heard:
        assert log[1 : 1 + len(night)] == night  # after "a game ... begins", before the commander
        assert [v for kind, v in log if kind == "pause"] == [4.5, 2.0, 7.25, 3.5]


def test_without_a_night_phase_nothing_is_paused(tmp_path: Path) -> None:
    log = narrated_opening(
        tmp_path / "j.sqlite3", "en", {"players": 7, "isolated_cylons": True}, seed=3
    )

    assert [kind for kind, _ in log if kind == "pause"] == []
    night_lines = {text for kind, text in expected_night("en") if kind == "line"}
    assert not night_lines & {text for _, text in log}
