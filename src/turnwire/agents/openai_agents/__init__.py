"""An OpenAI Agents SDK ``agents.Agent`` as a turnwire agent (``pip install 'turnwire[openai-agents]'``).

Each turn is one ``Runner.run_streamed`` on the conversation as the SDK's input items (messages,
``function_call`` and ``function_call_output`` items, both ways), streamed as canonical events: text
and reasoning deltas, tool calls and their outputs, handoffs (the handoff call and output, and an
``agent`` data event naming the agent now speaking), usage, errors with the OpenAI adapter's codes.
A tool with ``needs_approval`` ends the run with interruptions; each becomes a turnwire approval
and the turn pauses. Resumed warm, the decision goes to the paused run's ``RunState`` (``approve``
/ ``reject``); resumed cold (another process, a restart), the decided call is run (or denied) from
the history and the run continues after it: both give the same events.
"""

from turnwire.agents.openai_agents.agent import OpenAIAgentsAgent, openai_agents_agent
from turnwire.agents.openai_agents.items import from_input_items, to_input_items

__all__ = ["OpenAIAgentsAgent", "from_input_items", "openai_agents_agent", "to_input_items"]
