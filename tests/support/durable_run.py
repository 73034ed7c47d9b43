"""A research run with slow, logging fakes, driven in a child process so that tests can kill it.

    python tests/support/durable_run.py DB_DIR LOG_FILE start|resume

Every model call and every read appends a line to LOG_FILE (flushed and
synced before the call returns), so the test can tell what finished before
the kill and what ran again after it. Reading the depot takes a while, which
leaves time to kill the run in the middle of its browse step.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research_assistant.runner import resume_research, run_research
from research_assistant.runs.store import RunStore
from research_assistant.schemas import SourceRecord, SourceType
from support.fakes import FakeReader, FakeReasoner, fake_context, fake_services

RUN_ID = "killable-run"
QUESTION = "tram fare depot history"
SLOW_SOURCE = "depot"


def log(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as file:
        file.write(line + "\n")
        file.flush()
        os.fsync(file.fileno())


class LoggingReasoner(FakeReasoner):
    def __init__(self, log_file: Path) -> None:
        super().__init__(sub_questions=["tram fare", "tram depot", "tram network history"], confidence=95)
        self.log_file = log_file

    async def analyze(self, *args: Any) -> Any:
        log(self.log_file, "call analyze")
        return await super().analyze(*args)

    async def plan(self, *args: Any) -> Any:
        log(self.log_file, "call plan")
        return await super().plan(*args)

    async def extract(self, question: str, sub_question: Any, *args: Any) -> Any:
        log(self.log_file, f"call extract {sub_question.id}")
        return await super().extract(question, sub_question, *args)

    async def evaluate(self, *args: Any) -> Any:
        log(self.log_file, "call evaluate")
        return await super().evaluate(*args)

    async def synthesize(self, *args: Any) -> Any:
        log(self.log_file, "call synthesize")
        return await super().synthesize(*args)


class SlowReader(FakeReader):
    log_file: Path

    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> Any:
        await asyncio.sleep(1.5 if SLOW_SOURCE in source.locator else 0.05)
        document = await super().read(source, run_id=run_id, refresh=refresh)
        log(self.log_file, f"read {source.locator}")
        return document


def context(db_dir: Path, log_file: Path) -> Any:
    services = fake_services(LoggingReasoner(log_file))
    reader = SlowReader(services.readers[SourceType.LOCAL].documents)  # type: ignore[attr-defined]
    reader.log_file = log_file
    services.readers[SourceType.LOCAL] = reader
    return fake_context(services, db_dir=db_dir)


async def main(db_dir: Path, log_file: Path, mode: str) -> None:
    ctx = context(db_dir, log_file)
    if mode == "start":
        result = await run_research(QUESTION, ctx, run_id=RUN_ID)
    else:
        record = RunStore.at(db_dir).find(RUN_ID)
        result = await resume_research(record, ctx)
    (db_dir / "report.md").write_text(result["report_markdown"], encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
