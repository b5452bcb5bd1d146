"""``benchmarks/voice.py`` runs and prints its table: one run per figure, no warmed cache. A
smoke test: the times themselves are docs/PERFORMANCE.md's, never checked here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "voice.py"


def load_benchmark() -> ModuleType:
    """benchmarks/voice.py under a name of its own: ``voice`` is the project's package, which
    putting benchmarks/ on ``sys.path`` would hide from every later test."""
    spec = importlib.util.spec_from_file_location("voice_benchmark", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_the_voice_benchmark_prints_a_table_of_piper_and_espeak_ng(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert load_benchmark().main(["--repeat", "1"]) == 0

    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| engine | line | first audio")
    engines = {row.split(" | ")[0].removeprefix("| ") for row in rows[1:]}
    assert "piper en_US-joe-medium" in engines
    assert "piper en_US-joe-medium, cached" in engines
    assert {"espeak-ng en", "espeak-ng fr", "espeak-ng CLI en", "espeak-ng CLI fr"} <= engines
    assert "warm the whole cache" not in out
    assert "load average" in out.lower()
