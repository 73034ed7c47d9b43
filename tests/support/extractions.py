"""Counting what the extractive reasoner itself extracts, beneath any remembering of it."""

from __future__ import annotations

from typing import Any

import pytest

from research_assistant.reasoning.base import Step
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.schemas import Evidence


def counted_extractions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sub-questions the extractive reasoner extracts evidence for, call by call, from now on."""
    calls: list[str] = []
    extract = ExtractiveReasoner.extract

    async def counted(self: ExtractiveReasoner, *args: Any, **options: Any) -> Step[list[Evidence]]:
        calls.append(args[1].text)
        return await extract(self, *args, **options)

    monkeypatch.setattr(ExtractiveReasoner, "extract", counted)
    return calls
