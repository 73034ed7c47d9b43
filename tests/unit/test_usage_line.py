"""The report's closing usage line and `show` say the same thing about a run's model calls."""

from __future__ import annotations

from research_assistant.report.summary import RunSummary, model_usage_text, render_run_summary
from research_assistant.runs.records import RunMetrics, RunRecord
from research_assistant.runs.views import metrics_lines
from research_assistant.schemas import ModelUsage, RoleUsage


def test_the_closing_usage_line_is_what_show_prints() -> None:
    metrics = RunMetrics(
        usage=ModelUsage(
            roles={
                "extraction": RoleUsage(input_tokens=9_000, output_tokens=600, cost_usd=0.0042, calls=4, failed=1),
                "verification": RoleUsage(input_tokens=1_000, output_tokens=70, cost_usd=0.0005, calls=1),
                "judge": RoleUsage(input_tokens=1_100, output_tokens=66, cost_usd=0.0005, calls=1),
            }
        )
    )
    summary = RunSummary(depth="quick", model_usage=metrics.usage)
    footer = next(line for line in render_run_summary(summary) if "Model usage" in line)
    shown = next(line for line in metrics_lines(metrics) if line.startswith("Model usage"))
    assert footer == "- Model usage: 11,836 tokens, $0.0052 (6 calls, 1 failed)"
    assert shown.split(":", 1)[1].strip() == footer.split(":", 1)[1].strip()
    assert "Tokens:       extraction: 9,000 in, 600 out, $0.0042 (4 calls, 1 failed)" in metrics_lines(metrics)


def test_a_rerun_from_the_cache_says_so_instead_of_just_zero_tokens() -> None:
    def usage(tokens: int, cost_usd: float, calls: int = 0, cached: int = 0) -> ModelUsage:
        return ModelUsage(
            roles={"extraction": RoleUsage(input_tokens=tokens, cost_usd=cost_usd, calls=calls, cached=cached)}
        )

    assert model_usage_text(usage(0, 0.0, 9, 9)) == "0 tokens, $0.0000 (9 calls, all answered from the cache)"
    assert model_usage_text(usage(120, 0.0001, 9, 7)) == "120 tokens, $0.0001 (9 calls, 7 answered from the cache)"
    assert model_usage_text(usage(0, 0.0)) == "0 tokens, $0.0000"  # a run recorded before calls were counted


STORED_BEFORE_USAGE = (
    '{"run_id":"r1","question":"What is the fare?","parameters":{"depth":"standard","source_types":["local"],'
    '"corpus_dir":null,"citation_style":"numeric","max_sources":null,"max_iterations":null,"max_seconds":600.0,'
    '"refresh":false,"providers":null,"recency_days":null,"review_plan":false,"models":null,"budget_tokens":null,'
    '"budget_usd":null},"status":"completed","started_at":1.0,"updated_at":2.0,"finished_at":null,'
    '"stop_reason":null,"error":"","report_markdown":"","metrics":{"elapsed_seconds":0.0,"node_seconds":{},'
    '"queries":0,"sources_read":0,"pages_fetched":0,"pages_cached":0,"pages_failed":0,"evidence":3,'
    '"confidence":[],"tokens":{"extraction":{"input_tokens":9000,"output_tokens":600,"cost_usd":0.0042},'
    '"judge":{"input_tokens":1100,"output_tokens":66,"cost_usd":0.0005}},"calls":{"extraction":{"calls":4,'
    '"cached":1,"failed":1},"judge":{"calls":1,"cached":0,"failed":0}},"evaluation":null},"pid":null,'
    '"pid_started":null,"waiting":""}'
)
"""A run record as the store kept it before one model of usage per role: tokens and cost under `tokens`, calls
under `calls`."""


def test_a_run_stored_with_tokens_and_calls_apart_reads_and_shows_as_before() -> None:
    record = RunRecord.model_validate_json(STORED_BEFORE_USAGE)
    assert record.metrics.usage == ModelUsage(
        roles={
            "extraction": RoleUsage(input_tokens=9000, output_tokens=600, cost_usd=0.0042, calls=4, cached=1, failed=1),
            "judge": RoleUsage(input_tokens=1100, output_tokens=66, cost_usd=0.0005, calls=1),
        }
    )
    assert metrics_lines(record.metrics)[3:] == [
        "Tokens:       extraction: 9,000 in, 600 out, $0.0042 (4 calls, 1 from the cache, 1 failed)",
        "Tokens:       judge: 1,100 in, 66 out, $0.0005 (1 call)",
        "Model usage:  10,766 tokens, $0.0047 (5 calls, 1 answered from the cache, 1 failed)",
    ]
    again = RunRecord.model_validate_json(record.model_dump_json())
    assert again == record and "tokens" not in record.metrics.model_dump()


def test_a_run_stored_before_calls_were_counted_shows_its_tokens() -> None:
    metrics = RunMetrics.model_validate(
        {"evidence": 2, "tokens": {"synthesis": {"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.0}}}
    )
    assert metrics.usage == ModelUsage(roles={"synthesis": RoleUsage(input_tokens=10, output_tokens=5)})
    assert "Tokens:       synthesis: 10 in, 5 out, $0.0000" in metrics_lines(metrics)
