"""A Gemini server error leaves nothing behind on stderr: the model the reasoner builds raises it as usual, and
no "coroutine 'ClientResponse.json' was never awaited" warning follows when the error is collected."""

from __future__ import annotations

import gc
import warnings

import pytest
from google.genai import errors as genai_errors
from pydantic import SecretStr
from support.fake_gemini import FakeGemini, FakeGeminiFailure

from research_assistant.reasoning.llm.models import build_chat_model
from research_assistant.settings import Settings

KEY = "gemini-test-key-0001"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_server_error_raises_and_leaves_no_coroutine_unawaited(stream: bool) -> None:
    with FakeGemini(lambda model, body: FakeGeminiFailure(status=500), api_key=KEY) as gemini:
        settings = Settings(GEMINI_API_KEY=SecretStr(KEY), gemini_base_url=gemini.base_url, llm_max_retries=0)
        model = build_chat_model("google_genai:gemini-2.5-flash", settings)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(genai_errors.ServerError) as raised:
                if stream:
                    async for _ in model.astream("Fail."):
                        pass
                else:
                    await model.ainvoke("Fail.")
            assert raised.value.code == 500
            del raised
            gc.collect()
    unawaited = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    assert unawaited == []
