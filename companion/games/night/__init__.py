"""Game night: dice reader, turn timer, score pad and who starts, for any game."""

from companion.games.night.engine import Night, pick, timed
from companion.games.night.state import (
    ACTIONS,
    CorrectDie,
    CountByColor,
    EndEvening,
    NewSheet,
    NightState,
    Options,
    PassTurn,
    PickStarter,
    ReadDice,
    SayLeader,
    Screen,
    ShowScreen,
    StartTimer,
    StopTimer,
    WriteScore,
)

__all__ = [
    "ACTIONS",
    "CorrectDie",
    "CountByColor",
    "EndEvening",
    "NewSheet",
    "Night",
    "NightState",
    "Options",
    "PassTurn",
    "PickStarter",
    "ReadDice",
    "SayLeader",
    "Screen",
    "ShowScreen",
    "StartTimer",
    "StopTimer",
    "WriteScore",
    "pick",
    "timed",
]
