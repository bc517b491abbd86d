"""Random ids (session and trace ids): version-4 UUIDs as 32 hex digits, unique, and a forked
child's are its own although ids are cut from a block of random bytes."""

from __future__ import annotations

import os
import uuid

from turnwire.runtime.context import new_random_id, new_trace_id


def test_ids_are_random_version_4_uuids_and_unique_across_blocks() -> None:
    ids = [new_random_id() for _ in range(2_000)] + [new_trace_id() for _ in range(1_000)]
    for i in ids:
        parsed = uuid.UUID(i)
        assert parsed.hex == i and parsed.version == 4 and parsed.variant == uuid.RFC_4122
    assert len(set(ids)) == len(ids)


def test_a_forked_child_never_reuses_the_parents_random_bytes() -> None:
    new_random_id()  # the parent has a block under way
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.write(write, " ".join(new_random_id() for _ in range(5)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child = pipe.read().split()
    os.waitpid(pid, 0)
    parent = [new_random_id() for _ in range(5)]
    assert len(child) == 5 and not set(child) & set(parent)
