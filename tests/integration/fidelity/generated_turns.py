"""Generated turns for the round-trip tests: each turn is a JSON list of steps the ``scripted``
agent plays (text, streamed text, thoughts, tool calls with results, data parts — transient ones
and a call's and a result's ``render`` too —, files)."""

from __future__ import annotations

from hypothesis import strategies as st

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=6,
)
_name = st.sampled_from(["get_weather", "search", "lookup"])
_step = st.one_of(
    st.tuples(st.just("text"), _text),
    st.tuples(st.just("stream"), st.lists(_text, min_size=1, max_size=4)),
    st.tuples(st.just("thought"), _text),
    st.tuples(st.just("think"), st.lists(_text, min_size=1, max_size=3)),
    st.tuples(
        st.just("tool"),
        _name,
        st.dictionaries(st.sampled_from("xyz"), _json, max_size=2),
        _text,
        st.none() | st.dictionaries(st.sampled_from("pq"), _json, min_size=1, max_size=2),
        st.booleans(),
    ),
    st.tuples(st.just("data"), st.sampled_from(["weather", "card"]), _json),
    # Transient data: the client hands it to onData and keeps no part of it.
    st.tuples(st.just("transient"), st.sampled_from(["progress", "card"]), _json),
    # A call and its result each with a ``render``: the stream's data-render parts.
    st.tuples(st.just("rendered"), _name, st.dictionaries(st.sampled_from("xyz"), _json, max_size=2), _json),
    st.tuples(st.just("file"), st.just("https://example.com/a.png"), st.just("image/png")),
    st.tuples(st.just("usage"), st.integers(0, 99), st.integers(0, 99)),
    # The newer wires' events (issue 30): a call whose input streams in pieces, with progress;
    # state, a sub-agent with a step, a custom event. Only the call is something a client keeps.
    st.tuples(
        st.just("streamed"), _name, st.dictionaries(st.sampled_from("xyz"), _json, max_size=2), _json, _json
    ),
    st.tuples(st.just("state"), st.dictionaries(st.sampled_from("abc"), _json, max_size=3)),
    st.tuples(st.just("scope"), st.sampled_from(["researcher", "writer"])),
    st.tuples(st.just("custom"), _json),
    # Sources (citations): the client keeps them as parts where they came, and so must a reload.
    st.tuples(
        st.just("source"),
        st.sampled_from(["https://example.com/a", "https://example.org/b"]),
        st.none() | _text,
    ),
    st.tuples(st.just("document"), _text, st.none() | st.just("notes.pdf")),
)
# A turn of transient data (or usage) alone leaves the client an empty assistant message (its step-start)
# and the store nothing: every generated turn says something that stays. (A source is noted beside a
# content of its turn, so a turn of sources alone has nowhere to keep them: docs/events.md.)
_SAYS_NOTHING = ("transient", "usage", "state", "scope", "custom", "source", "document")
_turn = st.lists(_step, min_size=1, max_size=5).filter(
    lambda steps: any(s[0] not in _SAYS_NOTHING for s in steps)
)
turns = st.lists(_turn, min_size=1, max_size=3)

# Vercel doors only: a turn may end with an error the agent reports (the chat client reads no
# further than the error chunk, so what a turn says after an error is not generated: the client's
# next request would not hold it, and the store would take that for an edit).
_error = st.tuples(st.just("error"), _text, st.none() | st.sampled_from(["rate_limited", "Bad Code"]))
turns_with_errors = st.lists(
    st.tuples(_turn, st.booleans(), _error).map(lambda t: [*t[0], t[2]] if t[1] else t[0]),
    min_size=1,
    max_size=3,
)
