"""Which chat model each role uses, built through LangChain's `init_chat_model` from a `provider:model` string.

Every model gets its deadline and retries from the settings (LangChain's standard `timeout` and
`max_retries`). Gemini (`google_genai:...`, the langchain-google-genai package) also gets its key and
endpoint from them; any other provider whose LangChain integration is installed takes its key and endpoint
from its own environment variables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from research_assistant.context import ROLES, Role
from research_assistant.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["ROLES", "ModelUnavailable", "Role", "build_chat_model", "model_spec"]


class ModelUnavailable(Exception):
    """A configured model cannot be built (unknown provider, integration not installed); says which."""


def model_spec(settings: Settings, role: Role) -> str:
    """The settings' `provider:model` for `role` (a bare name in the environment is made Gemini's there)."""
    return str(getattr(settings, f"model_{role}"))


def build_chat_model(spec: str, settings: Settings) -> BaseChatModel:
    from langchain.chat_models import init_chat_model

    provider = spec.split(":", 1)[0]
    options: dict[str, Any] = {
        "temperature": 0,
        "timeout": settings.llm_timeout,
        "max_retries": settings.llm_max_retries,
    }
    if provider == "google_genai":
        if settings.gemini_api_key is None:
            raise ModelUnavailable("Gemini needs a key: set GEMINI_API_KEY")
        options.update(
            api_key=settings.gemini_api_key.get_secret_value(),
            base_url=settings.gemini_base_url,
            max_retries=settings.llm_max_retries + 1,  # google-genai counts attempts, the first included
        )
    try:
        if provider == "google_genai":
            from research_assistant.reasoning.llm.gemini import Gemini

            return Gemini(model=spec.split(":", 1)[1], **options)
        return init_chat_model(spec, **options)
    except (ImportError, ValueError) as error:
        raise ModelUnavailable(f"model {spec!r} cannot be used: {error}") from None
