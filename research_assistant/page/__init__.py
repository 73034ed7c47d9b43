"""The research page (`streamlit_app.py`), in small modules.

`state` holds everything the page remembers between reruns, in one typed
`PageState`; `form` builds a run's parameters; `actions` starts, stops,
resumes and settles runs through the runner; `progress` draws the live status
panel from the run's trace; `report_view`, `sources_view` and `exports` show a
run's report, its source cards and its downloads; `plan_review` lets the
analyst edit the plan a run waits on; `history` lists and compares past runs;
`app` puts the page together. Pure helpers (no Streamlit calls) are kept apart
from the functions that draw, so that they can be unit-tested.

Safety: text that came from documents or the web is shown through
`report.citations.escape_markdown` (or as the report Markdown, which the renderer
escapes); nothing is rendered as HTML; only http(s) locators become links.
"""
