"""Files that ship inside the package (the page's bundle, Swagger UI, the AG-UI client module),
served with a strong ETag (304 on ``If-None-Match``) and gzip when the client takes it.

The app has no compression middleware (streams must not be buffered), so each file is read and
compressed here once, on first use.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Mapping
from importlib import resources

from starlette.requests import Request
from starlette.responses import Response

_UNCOMPRESSED = ("image/",)
"""Media types already compressed: gzip only costs time."""


def accepts_gzip(request: Request) -> bool:
    """Whether ``Accept-Encoding`` names gzip with a weight above 0."""
    for item in request.headers.get("accept-encoding", "").split(","):
        coding, *params = (p.strip() for p in item.split(";"))
        if coding.lower() != "gzip":
            continue
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    return float(value) > 0
                except ValueError:
                    return False
        return True
    return False


class PackagedFiles:
    """The files ``media_types`` names, in ``package``'s folder ``folder`` ("" for the package's own)."""

    def __init__(
        self, package: str, folder: str, media_types: Mapping[str, str], headers: Mapping[str, str]
    ) -> None:
        self.package, self.folder = package, folder
        self.media_types, self.headers = dict(media_types), dict(headers)
        self._raw: dict[str, bytes] = {}
        self._gzipped: dict[str, bytes] = {}
        self._etags: dict[str, str] = {}

    def read(self, name: str) -> bytes:
        raw = self._raw.get(name)
        if raw is None:
            root = resources.files(self.package)
            path = root.joinpath(self.folder, name) if self.folder else root.joinpath(name)
            raw = self._raw[name] = path.read_bytes()
        return raw

    def etag(self, name: str) -> str:
        etag = self._etags.get(name)
        if etag is None:
            etag = self._etags[name] = '"' + hashlib.sha256(self.read(name)).hexdigest()[:32] + '"'
        return etag

    def response(self, name: str, request: Request) -> Response | None:
        """The file as a response (304 when the client has it), or ``None`` for a name not served."""
        media_type = self.media_types.get(name)
        if media_type is None:
            return None
        compressed = accepts_gzip(request) and not media_type.startswith(_UNCOMPRESSED)
        etag = self.etag(name)[:-1] + ('-gz"' if compressed else '"')
        headers = {**self.headers, "etag": etag, "vary": "accept-encoding"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if not compressed:
            return Response(self.read(name), media_type=media_type, headers=headers)
        body = self._gzipped.get(name)
        if body is None:
            body = self._gzipped[name] = gzip.compress(self.read(name), compresslevel=9, mtime=0)
        headers["content-encoding"] = "gzip"
        return Response(body, media_type=media_type, headers=headers)
