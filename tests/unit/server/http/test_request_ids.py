"""New request ids: 32 hex digits, never repeated within a process nor across a fork."""

from __future__ import annotations

import os
import re

from turnwire.server.http.request_id import accepted_id, new_request_id

_HEX32 = re.compile(r"[0-9a-f]{32}")


def test_new_ids_are_32_hex_digits_and_unique() -> None:
    ids = [new_request_id() for _ in range(10_000)]
    assert all(_HEX32.fullmatch(i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_forked_child_draws_ids_of_its_own() -> None:
    before = new_request_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        os.close(read)
        os.write(write, " ".join(new_request_id() for _ in range(3)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child = pipe.read().split()
    os.waitpid(pid, 0)
    parent = [new_request_id() for _ in range(3)]
    assert len(child) == 3 and all(_HEX32.fullmatch(i) for i in child)
    assert not set(child) & {before, *parent}
    assert {i[:16] for i in child} != {before[:16]}  # the child's prefix is its own


def test_a_well_formed_incoming_id_is_kept_and_a_bad_one_replaced() -> None:
    assert accepted_id("edge-42.a:b_c") == "edge-42.a:b_c"
    for bad in (None, "", "has space", "x" * 129):
        assert _HEX32.fullmatch(accepted_id(bad))
