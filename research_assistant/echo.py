"""Text echoed back to the analyst: progress lines, warnings, notices, error lines, the trace, the caveats.

Much of it quotes what a page, a provider or the analyst supplied (a URL, a title, an error message), and
any of that can be enormous: a 100 kB URL must not fill the terminal. `shorten` cuts every URL longer
than `URL_WIDTH` to that width with an ellipsis (other words, paths among them, at a more generous width),
and the whole text to `TEXT_WIDTH`. The models that carry such text (`Notice`, `TraceEvent`,
`SourceOutcome`, `RunRecord.error`) shorten it when they are made, so every interface shows it shortened.

A run may say the same thing many times (a dead search endpoint fails for every query): `counted` keeps
each message once, with how many times it was said.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Annotated

from pydantic import AfterValidator

from research_assistant.secrets import scrub

URL_WIDTH = 120
"""The most characters of one URL (or other word with "://" in it) that are echoed."""
WORD_WIDTH = 400
"""The most characters of any other word (a path, a token) that are echoed: more, as a path must stay usable."""
TEXT_WIDTH = 2000
"""The most characters of one message that are echoed."""
ELLIPSIS = "…"

_LONG_WORD = re.compile(rf"\S{{{URL_WIDTH + 1},}}")


def _cut(match: re.Match[str]) -> str:
    word = match.group()
    width = URL_WIDTH if "://" in word else WORD_WIDTH
    return word if len(word) <= width else word[: width - 1] + ELLIPSIS


def shorten(text: str) -> str:
    """`text` with each URL longer than `URL_WIDTH` (any other word longer than `WORD_WIDTH`) cut to that
    width, and all of it to `TEXT_WIDTH`; each cut ends with an ellipsis. Short text comes back as it is.

    Known keys are scrubbed first: a key cut in half would no longer be recognised.
    """
    if len(text) <= URL_WIDTH:
        return text
    text = _LONG_WORD.sub(_cut, scrub(text))
    return text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 1] + ELLIPSIS


Echoed = Annotated[str, AfterValidator(shorten)]
"""A model field of text shown to the analyst: shortened when the model is made."""


def repeated(message: str, times: int) -> str:
    """`message`, saying how many times it was said when that was more than once."""
    return message if times <= 1 else f"{message} (repeated {times} times)"


def counted(messages: Iterable[str]) -> list[str]:
    """Each distinct message once, in the order first said, with its count when it was said more than once."""
    counts = Counter(messages)
    return [repeated(message, times) for message, times in counts.items()]


def series(items: Sequence[str]) -> str:
    """Items as a reader lists them: 'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
