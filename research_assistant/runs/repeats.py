"""Repeated warnings, shown once: a dead search service fails every query of a run with the same words.

An interface that prints the trace as it comes (the command line) shows a warning the first time and holds
back its repeats; at the end of the run, `held_back` gives each repeated warning once with how many times it
was said in all.
"""

from __future__ import annotations

from research_assistant.runs.records import EventKind, TraceEvent

_COUNTED = frozenset({EventKind.PROGRESS, EventKind.SOURCE})


class Repeats:
    def __init__(self) -> None:
        self._said: dict[tuple[str, str, str], int] = {}

    def first(self, event: TraceEvent) -> bool:
        """Whether to show `event` now: anything but a warning (or error) already shown in this run."""
        if event.kind not in _COUNTED or event.level not in ("warning", "error"):
            return True
        key = (event.node, event.level, event.message)
        self._said[key] = self._said.get(key, 0) + 1
        return self._said[key] == 1

    def held_back(self) -> list[tuple[str, str, str, int]]:
        """(node, level, message, times said) for each warning said more than once; counting starts anew."""
        repeated = [(*key, times) for key, times in self._said.items() if times > 1]
        self._said.clear()
        return repeated
