"""turnwire's HTTP server: ``create_app()`` for a whole app, ``create_router()`` to mount in yours."""

from turnwire.server.app import create_app, create_router
from turnwire.server.http.errors import install_error_handlers
from turnwire.server.settings import Settings

__all__ = ["Settings", "create_app", "create_router", "install_error_handlers"]
