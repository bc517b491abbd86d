"""API key configuration: ``TENANT:KEY`` entries become digests; bad entries are refused by name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from turnwire.server.http.auth import key_digest, parse_api_keys
from turnwire.server.settings import Settings

KEY = "k" * 16


def test_entries_become_digests_and_a_digest_entry_is_taken_as_is() -> None:
    digest = key_digest("other-key-0123456789")
    keys = parse_api_keys(f" acme:{KEY} , ops:sha256:{digest.upper()},acme:{KEY}2")
    assert keys == {key_digest(KEY): "acme", digest: "ops", key_digest(KEY + "2"): "acme"}


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (f":{KEY}", "entry 0"),
        (KEY, "entry 0"),
        (f"a b:{KEY}", "entry 0"),
        (f"ok:{KEY},weak:short", "entry 1 (tenant 'weak'): a key must be at least 16"),
        (42, "TENANT:KEY"),
    ],
)
def test_a_bad_entry_is_refused_naming_it(value: object, says: str) -> None:
    with pytest.raises(ValueError, match=r"entry|TENANT") as caught:
        parse_api_keys(value)
    assert says in str(caught.value)


def test_settings_keep_digests_only() -> None:
    settings = Settings.from_env({"TURNWIRE_API_KEYS": f"acme:{KEY}"})
    assert settings.api_keys == {key_digest(KEY): "acme"}
    assert KEY not in repr(settings)
    # A settings object passed on (e.g. to worker processes) keeps them.
    assert Settings(**settings.model_dump()).api_keys == settings.api_keys
    with pytest.raises(ValidationError):
        Settings.from_env({"TURNWIRE_API_KEYS": "acme:short"})
