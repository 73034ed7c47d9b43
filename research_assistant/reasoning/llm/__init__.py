"""The LLM reasoner: LangChain chat models (Gemini by default), one per role, behind the `Reasoner` protocol.

Every model output is a pydantic schema obtained through structured output;
a step whose model fails, or whose reply still does not fit after a re-ask,
is done by the extractive reasoner instead, and the run says so.
"""
