"""What the observability tests' server fixture (``conftest.traced``) gives them: in a module of its
own, as ``conftest`` is a different module in every test folder."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import FastAPI
from otlp_receiver import Receiver

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
