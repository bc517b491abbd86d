"""One real server on loopback with tracing and metrics on, exporting to an OTLP receiver."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import FastAPI
from openai import AsyncOpenAI
from otlp_receiver import Receiver, otlp_receiver

from openai_fake import fake_openai
from services import serve_app
from turnwire.agents import demo_agent, openai_agent
from turnwire.server import Settings, create_app
from turnwire.server.context import AppContext


@dataclass
class Traced:
    url: str
    app: FastAPI
    receiver: Receiver

    @property
    def context(self) -> AppContext:
        ctx: AppContext = self.app.state.turnwire
        return ctx

    def flush(self) -> None:
        observe = self.context.observe
        assert observe is not None
        assert observe.flush()


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Traced]:
    home: Path = tmp_path_factory.mktemp("otel")
    with otlp_receiver() as receiver, fake_openai() as fake, pytest.MonkeyPatch.context() as env:
        # The SDK's exporter reads these when it is built, in create_app.
        env.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/v1/traces")
        env.setenv("OTEL_SERVICE_NAME", "turnwire-test")
        env.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
        env.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        settings = Settings(
            otel=True,
            metrics=True,
            db_url=f"sqlite:///{home / 'store.db'}",
            approval_secret_file=str(home / "secret"),
        )
        # No retries: the recorded 429 says "retry after 20 s", which the SDK would wait out.
        model = openai_agent(
            "gpt-4o-mini", client=AsyncOpenAI(base_url=fake.base_url, api_key="sk", max_retries=0)
        )
        app = create_app({"demo": demo_agent, "model": model}, default_agent="demo", settings=settings)
        env.undo()
        try:
            with serve_app(app) as url:
                yield Traced(url, app, receiver)
        finally:
            # Export what is left while the receiver still listens (else the SDK retries at exit).
            app.state.turnwire.observe.shutdown()
