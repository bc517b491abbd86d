"""Errors the store raises on purpose; the server maps each to one status code."""

from __future__ import annotations

from turnwire.errors import TurnwireError


class StoreError(TurnwireError):
    """Base of the store's own errors."""


class NotFoundError(StoreError, LookupError):
    """A task or message that does not exist (or a task that was deleted)."""

    def __init__(self, item_id: str) -> None:
        self.item_id = item_id
        super().__init__(f"Item with id '{item_id}' does not exist.")


class ConflictError(StoreError):
    """The request contradicts stored state (e.g. a message of another task); nothing was written."""

    def __init__(self, message: str, data: object = None) -> None:
        self.message = message
        self.data = data
        super().__init__(message)


class IdempotencyMismatchError(StoreError):
    """An Idempotency-Key was reused with a different request."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"Idempotency-Key {key!r} was already used with a different request")
