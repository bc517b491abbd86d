"""``turnwire serve --model openai:<model>`` and ``--agent NAME=module:pydantic_ai_agent`` as real
processes: the model agent is served under its name and becomes the default agent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx

from openai_fake import FakeOpenAI
from services import turnwire_process

TESTS = Path(__file__).resolve().parents[2]


def _invoke(url: str, path: str, text: str) -> dict:
    body = {"data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    response = httpx.post(url + path, json=body, timeout=20)
    assert response.status_code == 200, response.text
    return response.json()["data"]["outputs"]


def test_serve_model_makes_the_model_the_default_agent(fake: FakeOpenAI, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    args = ("--model", "openai:gpt-4o-mini", "--openai-base-url", fake.base_url, "--keepalive", "0")
    with turnwire_process(tmp_path, *args, env=env) as (url, _proc):
        outputs = _invoke(url, "/invoke", "hello")
        assert outputs["messages"] == [{"role": "assistant", "content": "Hello! How can I help you today?"}]
        assert fake.requests[-1]["model"] == "gpt-4o-mini"
        assert fake.headers[-1]["authorization"] == "Bearer unused"  # a base URL alone: a local server
        named = _invoke(url, "/agents/gpt-4o-mini/invoke", "weather in Paris")
        assert named["messages"][-1]["content"] == "It is sunny and 21 °C in Paris."
        assert _invoke(url, "/agents/demo/invoke", "hello")["messages"][-1]["content"] == "You said: hello"


def test_serve_model_tells_the_model_the_system_prompt(fake: FakeOpenAI, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are terse.\nAnswer in French.")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    args = ("--model", "openai:gpt-4o-mini", "--openai-base-url", fake.base_url, "--system", f"@{prompt}")
    with turnwire_process(tmp_path, *args, env=env) as (url, _proc):
        outputs = _invoke(url, "/invoke", "hello")
        assert outputs["messages"] == [{"role": "assistant", "content": "Hello! How can I help you today?"}]
        sent = fake.last_messages()
        assert sent[0] == {"role": "system", "content": "You are terse.\nAnswer in French."}
        assert [m["role"] for m in sent] == ["system", "user"]


def test_serve_takes_the_key_from_openai_api_key(fake: FakeOpenAI, tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-from-env", "OPENAI_BASE_URL": fake.base_url}
    args = ("--model", "openai:llama3.2:3b", "--default-agent", "demo", "--keepalive", "0")
    with turnwire_process(tmp_path, *args, env=env) as (url, _proc):
        assert _invoke(url, "/invoke", "hi")["messages"][-1]["content"] == "You said: hi"
        _invoke(url, "/agents/llama3.2-3b/invoke", "hello")
        assert fake.requests[-1]["model"] == "llama3.2:3b"
        assert fake.headers[-1]["authorization"] == "Bearer sk-from-env"


def test_serve_loads_a_pydantic_ai_agent_object(tmp_path: Path) -> None:
    args = (
        "--app-dir",
        str(TESTS),
        "--agent",
        "weather=pydantic_models:pydantic_weather",
        "--default-agent",
        "weather",
        "--keepalive",
        "0",
    )
    with turnwire_process(tmp_path, *args) as (url, _proc):
        outputs = _invoke(url, "/invoke", "weather in Paris")
        assert outputs["messages"][-1]["content"] == "It is sunny and 21 °C in Paris."
        assert outputs["messages"][0]["tool_name"] == "get_weather"


def _refused(*args: str, env: dict[str, str]) -> str:
    cmd = [sys.executable, "-c", "from turnwire.cli import app; app()", "serve", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2, done
    return done.stderr


def test_serve_refuses_a_model_it_cannot_serve() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    assert "no API key; set OPENAI_API_KEY" in _refused("--model", "openai:gpt-4o-mini", env=env)
    assert "unknown provider 'anthropic'" in _refused("--model", "anthropic:claude", env=env)
    assert "expected PROVIDER:MODEL" in _refused("--model", "gpt-4o-mini", env=env)
    refused = _refused("--instructions", "Be brief.", env=env)
    assert "--system: is the system prompt of --model agents" in refused
