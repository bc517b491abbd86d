"""``GET /`` and ``/page/*``: the chat page's HTML and assets as plain HTTP (the browser tests are in
tests/browser)."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI
from live_server import serve

from turnwire.server import Settings, create_app
from turnwire.server.page import CONTENT_SECURITY_POLICY, render_index


def test_the_page_is_served_at_the_root(client: httpx.Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    html = response.text
    assert '<base href="/">' in html
    assert '<meta name="turnwire-default-agent" content="echo">' in html  # the conftest's default
    assert "{{" not in html
    assert client.head("/").status_code == 200


def test_assets_are_served_with_an_etag(client: httpx.Client) -> None:
    script = client.get("/page/page.js")
    assert script.status_code == 200
    assert script.headers["content-type"] == "text/javascript; charset=utf-8"
    assert len(script.content) > 10_000
    etag = script.headers["etag"]
    again = client.get("/page/page.js", headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.content == b""
    style = client.get("/page/style.css")
    assert style.headers["content-type"] == "text/css; charset=utf-8"
    assert client.get("/page/THIRD_PARTY.txt").text.startswith("Third-party code bundled into page.js")


def test_assets_are_sent_gzipped_to_clients_that_take_it(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        plain = client.get("/page/page.js", headers={"accept-encoding": "identity"})
        packed = client.get("/page/page.js", headers={"accept-encoding": "gzip, br"})
        refused = client.get("/page/page.js", headers={"accept-encoding": "gzip;q=0"})
        weighted = client.get("/page/page.js", headers={"accept-encoding": "br, gzip; q=0.5"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "accept-encoding"
    assert int(packed.headers["content-length"]) < len(plain.content) / 3
    assert packed.content == plain.content  # httpx decodes it: the same bytes
    assert packed.headers["etag"] != plain.headers["etag"]
    assert "content-encoding" not in refused.headers
    assert weighted.headers["content-encoding"] == "gzip"


def test_only_the_listed_assets_are_served(client: httpx.Client) -> None:
    for name in ("index.html", "nope.js", "..%2Fpage.py", "%2E%2E"):
        response = client.get(f"/page/{name}")
        assert response.status_code == 404, name
        assert response.headers["content-type"].startswith("application/json")


def test_the_page_is_not_in_the_openapi_document(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "/" not in paths
    assert not any(path.startswith("/page/") for path in paths)


def test_under_a_mount_prefix_the_page_points_at_its_prefix(tmp_path: Path) -> None:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'db.sqlite'}", approval_secret_file=str(tmp_path / "s")
    )
    outer = FastAPI()
    outer.mount("/tools/tw", create_app(settings=settings))
    with serve(outer) as url, httpx.Client(base_url=url, timeout=10) as client:
        html = client.get("/tools/tw/").text
        assert '<base href="/tools/tw/">' in html
        assert client.get("/tools/tw/page/style.css").status_code == 200


def test_values_in_the_page_are_html_escaped() -> None:
    html = render_index('/x"><script>/', 'a"<b>')
    assert '<base href="/x&quot;&gt;&lt;script&gt;/">' in html
    assert 'content="a&quot;&lt;b&gt;"' in html
    assert "<script>/" not in html


def test_behind_a_proxy_that_strips_the_prefix_the_base_keeps_it() -> None:
    from starlette.requests import Request

    from turnwire.server.page import _base_path

    def base(path: str, root: str) -> str:
        return _base_path(Request({"type": "http", "path": path, "root_path": root, "headers": []}))

    assert base("/", "") == "/"
    assert base("/", "/proxy") == "/proxy/"  # uvicorn --root-path /proxy behind a stripping proxy
    assert base("/proxy/", "/proxy") == "/proxy/"  # a Starlette mount: the path already holds it


def test_turnwire_serve_prints_the_page_url(tmp_path: Path) -> None:
    from turnwire.server.banner import banner

    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'db.sqlite'}", approval_secret_file=str(tmp_path / "s")
    )
    app = create_app(settings=settings)
    text = banner(
        host="127.0.0.1", port=8000, agents=["demo"], default_agent="demo", settings=settings, app=app
    )
    assert "  page     http://127.0.0.1:8000/" in text.splitlines()
