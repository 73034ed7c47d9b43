"""The research page: ask a question, watch the research, review its plan, stop or resume it, read, download
and compare its report.

    streamlit run streamlit_app.py

A thin entry point: the page lives in `research_assistant/page/` (see its
`__init__`), and it drives the research graph through `research_assistant/runner.py`.
"""

from research_assistant.page.app import main

if __name__ == "__main__":
    main()
