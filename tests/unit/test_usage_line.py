"""The report's closing usage line and `show` say the same thing about a run's model calls."""

from __future__ import annotations

from research_assistant.report.summary import RunSummary, model_usage_text, render_run_summary
from research_assistant.runs.records import ModelCalls, RunMetrics
from research_assistant.runs.views import metrics_lines
from research_assistant.schemas import TokenUsage


def test_the_closing_usage_line_is_what_show_prints() -> None:
    metrics = RunMetrics(
        tokens={
            "extraction": TokenUsage(input_tokens=9_000, output_tokens=600, cost_usd=0.0042),
            "verification": TokenUsage(input_tokens=1_000, output_tokens=70, cost_usd=0.0005),
            "judge": TokenUsage(input_tokens=1_100, output_tokens=66, cost_usd=0.0005),
        },
        calls={
            "extraction": ModelCalls(calls=4, failed=1),
            "verification": ModelCalls(calls=1),
            "judge": ModelCalls(calls=1),
        },
    )
    summary = RunSummary(depth="quick", model_tokens=11_836, model_cost_usd=0.0052, model_calls=6, model_failed=1)
    footer = next(line for line in render_run_summary(summary) if "Model usage" in line)
    shown = next(line for line in metrics_lines(metrics) if line.startswith("Model usage"))
    assert footer == "- Model usage: 11,836 tokens, $0.0052 (6 calls, 1 failed)"
    assert shown.split(":", 1)[1].strip() == footer.split(":", 1)[1].strip()
    assert "Tokens:       extraction: 9,000 in, 600 out, $0.0042 (4 calls, 1 failed)" in metrics_lines(metrics)


def test_a_rerun_from_the_cache_says_so_instead_of_just_zero_tokens() -> None:
    assert model_usage_text(0, 0.0, 9, 9) == "0 tokens, $0.0000 (9 calls, all answered from the cache)"
    assert model_usage_text(120, 0.0001, 9, 7) == "120 tokens, $0.0001 (9 calls, 7 answered from the cache)"
    assert model_usage_text(0, 0.0) == "0 tokens, $0.0000"  # a run recorded before calls were counted
