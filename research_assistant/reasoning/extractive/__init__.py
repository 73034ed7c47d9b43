"""The extractive reasoner: offline, deterministic, classical NLP (see `reasoner.ExtractiveReasoner`).

Modules, one concern each: `sentences` (splitting), `phrases` and `analysis` (the question),
`templates`, `slots`, `parts` and `planning` (the plan), `candidates`, `query`, `shapes`, `scoring` and
`extraction` (evidence), `measures` and `relations` (consensus and conflicts), `reformulation` and
`progress` (evaluation), `synthesis` (the report); helpers `lexicon`, `signals`, `bm25` and `vectors`.
`ExtractiveReasoner` is imported lazily, so importing one module stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner

__all__ = ["ExtractiveReasoner"]


def __getattr__(name: str) -> Any:
    if name == "ExtractiveReasoner":
        from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner

        return ExtractiveReasoner
    raise AttributeError(name)
