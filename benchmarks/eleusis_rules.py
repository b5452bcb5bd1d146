"""Time the Eleusis rule checker on every library rule and on a few heavy rules; print Markdown.

    .venv/bin/python benchmarks/eleusis_rules.py [--repeat 5] [--all]

Per rule: the median time of ``check_rule(rule)`` (default samples and seed) over ``--repeat``
calls, how it was decided (exhaustive search or random games), the states visited and the
measured acceptance. By default the library is summed up per level (median and slowest);
``--all`` prints one row per library rule. The heavy rules read whole cards (value and suit) up
to 4 cards back, where the states are too many to visit: the worst cases for the host page.
Also the time to parse a rule. Targets: a check under 0.5 s on the machine below.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.eleusis.rule_check import RuleReport, check_rule  # noqa: E402
from companion.games.eleusis.rule_language import Rule, parse_rule  # noqa: E402
from companion.games.eleusis.rule_library import LEVELS, LIBRARY  # noqa: E402

HEAVY = (
    "card.suit = prev2.suit or card.value = prev2.value",
    "card.value != prev3.value and card.suit != prev2.suit",
    "card.value != prev.value and card.value != prev2.value and card.value != prev3.value "
    "and card.value != prev4.value",
    "card.value > prev5.value or card is court or card.suit = prev3.suit",
    "(count red in last 12 >= 6) = (card is black)",
)


def timed(rule: Rule, repeat: int) -> tuple[float, RuleReport]:
    times, report = [], check_rule(rule)
    for _ in range(repeat):
        start = time.perf_counter()
        check_rule(rule)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), report


def method(report: RuleReport) -> str:
    return "exhaustive" if report.exhaustive else "random games"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description="Time the Eleusis rule checker.")
    parser.add_argument("--repeat", type=int, default=5, help="calls per rule (default 5)")
    parser.add_argument("--all", action="store_true", help="one row per library rule")
    args = parser.parse_args()
    print(f"{machine()}; median of {args.repeat} calls per rule")
    print()
    rows = [(entry, *timed(entry.rule, args.repeat)) for entry in LIBRARY]
    if args.all:
        print("| rule | level | check | method | states | acceptance |")
        print("|---|---|---|---|---|---|")
        for entry, ms, report in rows:
            print(
                f"| {entry.id} | {entry.level} | {ms:.1f} ms | {method(report)} "
                f"| {report.states} | {report.acceptance:.0%} |"
            )
        print()
    print("| library | rules | median check | slowest check | exhaustive | acceptance |")
    print("|---|---|---|---|---|---|")
    for level in (*LEVELS, "all"):
        chosen = [r for r in rows if level in (r[0].level, "all")]
        times = [ms for _, ms, _ in chosen]
        proven = sum(1 for *_, report in chosen if report.exhaustive)
        shares = [report.acceptance for *_, report in chosen]
        print(
            f"| {level} | {len(chosen)} | {statistics.median(times):.1f} ms "
            f"| {max(times):.1f} ms | {proven} of {len(chosen)} "
            f"| {min(shares):.0%} to {max(shares):.0%} |"
        )
    print()
    print("| heavy rule | check | method | states |")
    print("|---|---|---|---|")
    for text in HEAVY:
        ms, report = timed(parse_rule(text), args.repeat)
        print(f"| `{text}` | {ms:.1f} ms | {method(report)} | {report.states} |")
    print()
    start = time.perf_counter()
    for entry in LIBRARY:
        parse_rule(entry.text)
    per_rule = (time.perf_counter() - start) * 1e6 / len(LIBRARY)
    print(f"Parsing: {per_rule:.0f} µs per library rule.")


if __name__ == "__main__":
    main()
