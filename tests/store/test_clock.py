"""Store time -> ISO 8601: exact for stamps that alternate between seconds (a batch answer's
``created_at`` and ``updated_at``), and past the bound of the per-second cache."""

from __future__ import annotations

from datetime import UTC, datetime

from turnwire.store.clock import to_iso


def reference(us: int) -> str:
    return (
        datetime.fromtimestamp(us // 1_000_000, UTC)
        .replace(microsecond=us % 1_000_000)
        .isoformat(timespec="microseconds")
    )


def test_alternating_seconds_format_exactly() -> None:
    created, updated = 1_764_500_000_123_456, 1_764_500_123_000_001
    for i in range(3):
        assert to_iso(created + i * 1000) == reference(created + i * 1000)
        assert to_iso(updated) == reference(updated)
    assert to_iso(updated) == "2025-11-30T10:55:23.000001+00:00"
    assert to_iso(0) == "1970-01-01T00:00:00.000000+00:00"
    assert to_iso(None) is None


def test_more_seconds_than_the_cache_holds_stay_exact() -> None:
    stamps = [1_700_000_000_000_000 + k * 1_000_003 for k in range(5000)]
    assert [to_iso(us) for us in stamps] == [reference(us) for us in stamps]
    assert to_iso(stamps[0]) == reference(stamps[0])
