"""The research page (`streamlit_app.py`) with every research held at its first progress judgement for as long as
the file named by `PAGE_TEST_HOLD_FILE` exists.

The browser test serves this instead of `streamlit_app.py` when it needs a run that is still going when it
looks (to reload the page mid-run and stop it): a run of the sample corpus otherwise ends in seconds, and a test
that raced it would fail on a busy machine. The hold is an `asyncio.sleep` loop, so Stop cancels it as it
cancels any step. Streamlit runs this script again on every rerun: the reasoner is wrapped once.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from research_assistant.page.app import main
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner

HOLD_FILE = "PAGE_TEST_HOLD_FILE"
POLL_SECONDS = 0.05


def hold_research() -> None:
    """Wrap the offline reasoner's progress judgement: it waits while the hold file exists."""
    if getattr(ExtractiveReasoner.evaluate, "held", False):
        return
    hold = Path(os.environ[HOLD_FILE])
    judge = ExtractiveReasoner.evaluate

    async def held(self: ExtractiveReasoner, *args: Any, **kwargs: Any) -> Any:
        # The hold is lifted by another process (the test), so it is polled: an asyncio.Event cannot see it.
        while await asyncio.to_thread(hold.exists):  # noqa: ASYNC110
            await asyncio.sleep(POLL_SECONDS)
        return await judge(self, *args, **kwargs)

    held.held = True  # type: ignore[attr-defined]
    ExtractiveReasoner.evaluate = held  # type: ignore[method-assign]


hold_research()
main()
