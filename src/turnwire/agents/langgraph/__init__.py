"""A compiled LangGraph graph as a turnwire agent (``pip install 'turnwire[langgraph]'``).

Each turn streams the graph (``astream`` with the ``messages``, ``updates`` and ``custom`` modes)
on the conversation as its ``messages`` state, in the checkpointer thread of the turnwire session.
The model's tokens become text and reasoning deltas, the nodes' writes tool calls and
``ToolMessage`` results, usage is summed. ``interrupt()`` pauses the turn: a payload asking to
approve a tool call becomes a turnwire approval, any other a question (``user_input``); the answer
resumes the graph with ``Command(resume=...)``, warm or cold, as long as the checkpointer holds the
pause (see ``langgraph_agent``).
"""

from turnwire.agents.langgraph.agent import LangGraphAgent, langgraph_agent

__all__ = ["LangGraphAgent", "langgraph_agent"]
