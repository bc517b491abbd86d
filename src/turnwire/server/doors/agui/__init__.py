"""The AG-UI door: ``POST /agui`` (``RunAgentInput`` in, AG-UI events over SSE out)."""
