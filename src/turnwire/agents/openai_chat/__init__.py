"""Agents on OpenAI-compatible Chat Completions servers (``pip install 'turnwire[openai]'``)."""

from turnwire.agents.openai_chat.agent import OpenAIAgent, approval_request, openai_agent

__all__ = ["OpenAIAgent", "approval_request", "openai_agent"]
