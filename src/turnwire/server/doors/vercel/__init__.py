"""The Vercel AI SDK door: ``POST /chat`` for ``useChat`` and its resume/stop routes."""
