"""A ``pydantic_ai.Agent`` as a turnwire agent (``pip install 'turnwire[pydantic-ai]'``).

Each turn runs the pydantic-ai agent with the conversation as its message history and streams its
events as canonical ones: text and thinking parts, function tool calls and their results, a
structured final result (as a ``result`` data event), usage. A tool declared with
``requires_approval=True`` ends the pydantic-ai run with deferred tool requests; each becomes a
turnwire approval and the turn pauses. The resumed turn, warm or cold, rebuilds the history with the
call still open and hands the decisions back as ``DeferredToolResults``.

Any model pydantic-ai supports works: the model is the agent's business, not turnwire's.
"""

from turnwire.agents.pydantic_ai.agent import PydanticAIAgent, pydantic_ai_agent
from turnwire.agents.pydantic_ai.messages import from_model_messages, to_model_messages

__all__ = ["PydanticAIAgent", "from_model_messages", "pydantic_ai_agent", "to_model_messages"]
