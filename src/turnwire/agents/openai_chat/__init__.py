"""Agents on OpenAI-compatible Chat Completions servers (``pip install 'turnwire[openai]'``)."""

from turnwire.agents.openai_chat.agent import OpenAIAgent, openai_agent

__all__ = ["OpenAIAgent", "openai_agent"]
