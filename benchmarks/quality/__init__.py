"""The answer-quality benchmark: questions over real documentation, each report scored for its answer and
the honesty of its citations. `run.py` runs it; `score.py` holds the scores."""
