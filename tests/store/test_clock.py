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


def test_every_millisecond_and_microsecond_digit_past_the_millisecond_cache() -> None:
    # More distinct milliseconds than the cache keeps (it is cleared and refilled), each digit of
    # the milliseconds and of the microseconds, before and after the epoch, and the store's limits.
    base = 1_764_600_000_000_000
    stamps = [base + k * 1_001 for k in range(40_000)] + [base + k * 1000 + 999 for k in range(1000)]
    stamps += [-1, -1000, -1_000_001, -62_135_596_800_000_000, 253_402_300_799_999_999]
    assert [to_iso(us) for us in stamps] == [reference(us) for us in stamps]
    assert [to_iso(us) for us in stamps[:100]] == [reference(us) for us in stamps[:100]]  # cached
