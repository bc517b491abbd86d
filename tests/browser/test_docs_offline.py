"""``/docs`` is Swagger UI served from the package: it draws the API with every request kept on
the server (no CDN), under a mount prefix too."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from chat_page import PageProblems, open_page, screenshot
from fastapi import FastAPI
from playwright.sync_api import Browser, expect

from services import serve_app
from turnwire.server import Settings, create_app

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


def test_docs_draw_the_api_without_any_other_host(browser: Browser, server_url: str) -> None:
    problems = PageProblems()
    page = open_page(browser, problems)
    # The network beyond the server is cut: anything Swagger UI asked of a CDN would fail.
    page.route("**/*", lambda route: route.continue_() if "127.0.0.1" in route.request.url else route.abort())
    try:
        page.goto(server_url + "docs")
        expect(page.get_by_role("heading", level=1)).to_contain_text("turnwire")
        expect(page.locator(".opblock-summary-path", has_text="/conversations").first).to_be_visible()
        screenshot(page, "docs-offline")
    finally:
        page.context.close()
    problems.check()


def test_docs_assets_are_the_vendored_files(server_url: str) -> None:
    with httpx.Client(base_url=server_url, timeout=10) as client:
        html = client.get("docs").text
        assert "docs/assets/swagger-ui-bundle.js" in html and "cdn." not in html
        served = client.get("docs/assets/swagger-ui-bundle.js")
        assert served.status_code == 200
        assert served.headers["content-encoding"] == "gzip"
        local = ROOT / "src" / "turnwire" / "server" / "swagger" / "swagger-ui-bundle.js"
        assert served.content == local.read_bytes()
        assert client.get("docs/assets/nothing.js").status_code == 404
        # No second UI that would load from a CDN (blank offline): FastAPI's ReDoc is off.
        assert client.get("redoc").status_code == 404


def test_docs_work_under_a_mount_prefix(tmp_path: Path) -> None:
    outer = FastAPI()
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'db'}", approval_secret_file=str(tmp_path / "secret"))
    outer.mount("/tools/turnwire", create_app(settings=settings))
    with serve_app(outer) as url, httpx.Client(base_url=url, timeout=10) as client:
        html = client.get("/tools/turnwire/docs").text
        assert "/tools/turnwire/docs/assets/swagger-ui.css" in html
        assert "/tools/turnwire/openapi.json" in html
        assert client.get("/tools/turnwire/docs/assets/swagger-ui.css").status_code == 200
