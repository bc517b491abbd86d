"""load_agent resolves 'module:attribute' specs and built-in names, or says clearly why not."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from turnwire.agents import AgentLoadError, builtin_agents, demo_agent, load_agent
from turnwire.model import Done, MessageEvent
from turnwire.runtime import TurnContext, run_turn


@pytest.fixture
def agent_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "my_agents_for_loader_test.py").write_text(
        textwrap.dedent(
            """
            from turnwire.model import MessageEvent

            class Bot:
                @staticmethod
                async def reply(ctx):
                    yield MessageEvent("hello from Bot")

            async def not_a_generator(ctx):
                return None

            NUMBER = 3
            """
        )
    )
    (tmp_path / "broken_agent_module_for_loader_test.py").write_text("raise ValueError('config missing')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_agents_for_loader_test"


def test_builtin_agents_are_the_demo() -> None:
    agents = builtin_agents()
    assert agents == {"demo": demo_agent}
    agents.clear()
    assert builtin_agents() == {"demo": demo_agent}


def test_module_attribute_spec_loads_the_object() -> None:
    assert load_agent("turnwire.agents.demo:demo_agent") is demo_agent
    assert load_agent("  turnwire.agents.demo : demo_agent ") is demo_agent


def test_builtin_name_loads_the_builtin() -> None:
    assert load_agent("demo") is demo_agent


@pytest.mark.anyio
async def test_dotted_attribute_loads_and_runs(agent_module: str) -> None:
    agent = load_agent(f"{agent_module}:Bot.reply")
    out = [e async for e in run_turn(agent, TurnContext(trace_id="t1"))]
    assert out == [MessageEvent("hello from Bot"), Done(stop_reason="end_turn", trace_id="t1")]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "agent spec is empty"),
        ("   ", "agent spec is empty"),
        ("nodemo", "'nodemo' is neither 'module:attribute' nor a built-in agent (demo)"),
        ("turnwire.agents.demo:", "must look like 'module:attribute'"),
        (":demo_agent", "must look like 'module:attribute'"),
        (
            "no_such_module_xyz:agent",
            "cannot import module 'no_such_module_xyz': ModuleNotFoundError: No module named",
        ),
        ("turnwire.agents.demo:missing", "'turnwire.agents.demo' has no attribute 'missing'"),
        ("turnwire.agents.demo:demo_agent.nope", "has no attribute 'demo_agent.nope'"),
        ("turnwire.agents.demo:COUNT_LIMIT", "names a value of type int, not a callable agent"),
    ],
)
def test_bad_specs_raise_a_clear_error(spec: str, message: str) -> None:
    with pytest.raises(AgentLoadError) as info:
        load_agent(spec)
    assert message in str(info.value)


def test_async_function_without_yield_is_refused(agent_module: str) -> None:
    with pytest.raises(AgentLoadError, match="async generator function"):
        load_agent(f"{agent_module}:not_a_generator")


def test_non_callable_attribute_is_refused(agent_module: str) -> None:
    with pytest.raises(AgentLoadError, match="names a value of type int"):
        load_agent(f"{agent_module}:NUMBER")


def test_module_failing_at_import_is_reported_with_its_error(agent_module: str) -> None:
    with pytest.raises(AgentLoadError, match="ValueError: config missing"):
        load_agent("broken_agent_module_for_loader_test:agent")


def test_load_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        load_agent("x:")


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("json:dumps", "dumps, a function that is not an agent"),
        ("os:system", "system, a built-in function that is not an agent"),
        ("turnwire.model:Done", "the class Done"),
    ],
)
def test_callables_that_are_not_agents_are_refused_at_load(spec: str, needle: str) -> None:
    with pytest.raises(AgentLoadError) as info:
        load_agent(spec)
    assert needle in str(info.value)
    assert "async generator function" in str(info.value) or "class" in str(info.value)


def test_agent_shapes_that_are_accepted() -> None:
    import functools
    from collections.abc import AsyncIterator

    from turnwire.agents.loader import agent_problem

    async def gen(ctx: TurnContext) -> AsyncIterator[MessageEvent]:
        yield MessageEvent("x")

    def returns_iterator(ctx: TurnContext) -> AsyncIterator[MessageEvent]:
        return gen(ctx)

    def returns_iterator_str(ctx):  # type: ignore[no-untyped-def]
        return gen(ctx)

    returns_iterator_str.__annotations__["return"] = "AsyncIterator[Event]"

    class Callable:
        async def __call__(self, ctx: TurnContext) -> AsyncIterator[MessageEvent]:
            yield MessageEvent("y")

    def plain(ctx):  # type: ignore[no-untyped-def]
        return gen(ctx)

    for ok in (gen, returns_iterator, returns_iterator_str, Callable(), functools.partial(gen), demo_agent):
        assert agent_problem(ok) is None, ok
    assert agent_problem(plain) is not None  # no annotation: cannot tell without calling it
    assert agent_problem(Callable) is not None  # the class itself is not an agent
