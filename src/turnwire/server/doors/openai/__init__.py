"""The OpenAI Chat Completions door: ``POST /v1/chat/completions`` and ``GET /v1/models``."""
