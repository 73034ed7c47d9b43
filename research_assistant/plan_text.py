"""A research plan as plain text an analyst can edit in any text editor, and back.

    What does a tram fare cost?
    - tram fare
    - ticket price

One block per sub-question: its text on the first line, then its search
queries, one per line after a dash. Blank lines separate blocks; lines
starting with '#' are comments.
"""

from __future__ import annotations

from research_assistant.schemas import ResearchPlan, SubQuestion

HEADER = """\
# The research plan. One block per sub-question: its text on the first line, then its search
# queries, one per line after "- ". Edit, delete or add blocks; save and close the editor to go on.
# Lines starting with '#' are ignored. Leave the file empty to keep the plan as proposed.
"""


def plan_to_text(plan: ResearchPlan) -> str:
    blocks = ["\n".join([s.text, *(f"- {q}" for q in s.queries)]) for s in plan.sub_questions]
    return HEADER + "\n" + "\n\n".join(blocks) + "\n"


def plan_from_text(text: str, original: ResearchPlan) -> ResearchPlan | None:
    """The edited plan; None when the text holds no sub-question (keep the original)."""
    blocks: list[list[str]] = [[]]
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            blocks.append([])
        else:
            blocks[-1].append(line)
    sub_questions: list[SubQuestion] = []
    for block in (b for b in blocks if b):
        first, *rest = block
        queries = [line[1:].strip() for line in rest if line.startswith("-") and line[1:].strip()]
        sub_questions.append(
            SubQuestion(id=f"q{len(sub_questions) + 1}", text=first.lstrip("- ").strip(), queries=queries)
        )
    if not sub_questions:
        return None
    return original.model_copy(update={"sub_questions": sub_questions})
