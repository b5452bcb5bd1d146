"""The companion's voice: speech engines (pyttsx3 + espeak-ng, or the console) and the narrator.

The voice knows no rules: it speaks sentences and keeps fixed pauses, in the order given.
"""

from voice.narrator import Narrator
from voice.speech import ConsoleSpeech, Pyttsx3Speech, Speech, SpeechUnavailable, choose_speech

__all__ = [
    "ConsoleSpeech",
    "Narrator",
    "Pyttsx3Speech",
    "Speech",
    "SpeechUnavailable",
    "choose_speech",
]
