"""``--model provider:model`` on the command line: a model-backed agent and the name it is served under."""

from __future__ import annotations

import os
import re
from typing import Final

from turnwire.agents.loader import AgentLoadError
from turnwire.runtime import Agent

PROVIDERS: Final = ("openai",)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def model_agent_name(model: str) -> str:
    """The agent name for a model: its id with anything outside ``A-Z a-z 0-9 . _ -`` made ``-``
    (``llama3.2:3b`` → ``llama3.2-3b``, ``meta-llama/llama-3-8b`` → ``meta-llama-llama-3-8b``)."""
    return _UNSAFE.sub("-", model).strip("-") or "model"


def model_agent(
    spec: str, *, base_url: str | None = None, api_key: str | None = None, system: str | None = None
) -> tuple[str, Agent]:
    """(name, agent) for ``spec`` = ``openai:<model>``: the model on an OpenAI-compatible server,
    told ``system`` as its system prompt (none when ``None``).

    ``base_url`` / ``api_key`` default to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; a base URL without
    a key is taken to be a local server that ignores keys. Raises ``AgentLoadError`` when the spec is
    malformed, the ``openai`` package is missing, or there is neither a key nor a base URL.
    """
    provider, colon, model = spec.partition(":")
    provider, model = provider.strip(), model.strip()
    if not colon or not model:
        raise AgentLoadError(f"--model {spec!r}: expected PROVIDER:MODEL, e.g. openai:gpt-4o-mini")
    if provider not in PROVIDERS:
        raise AgentLoadError(
            f"--model {spec!r}: unknown provider {provider!r} (built in: {', '.join(PROVIDERS)}; any "
            "OpenAI-compatible server works through openai: with --openai-base-url; for other providers "
            "serve a pydantic-ai agent with --agent NAME=module:attr)"
        )
    try:
        from turnwire.agents.openai_chat import openai_agent
    except ImportError:
        raise AgentLoadError(
            f"--model {spec!r} needs the openai package: pip install 'turnwire[openai]'"
        ) from None
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    if base_url is None and api_key is None:
        raise AgentLoadError(
            f"--model {spec!r}: no API key; set OPENAI_API_KEY or pass --openai-api-key "
            "(or --openai-base-url for a local server such as Ollama or vLLM)"
        )
    agent = openai_agent(model, system=system or None, base_url=base_url, api_key=api_key)
    return model_agent_name(model), agent
