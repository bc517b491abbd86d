"""``turnwire serve``'s app builder freezes what startup built, so full collections skip it."""

from __future__ import annotations

import gc
from pathlib import Path

from turnwire.server.run import ServeOptions, build_app
from turnwire.server.settings import Settings


def test_build_app_freezes_the_startup_heap(tmp_path: Path) -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    try:
        app = build_app(ServeOptions(settings=Settings(db_url=f"sqlite:///{tmp_path}/t.db"), app_dir=None))
        assert app.state.turnwire.agents
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
