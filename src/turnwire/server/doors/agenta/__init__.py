"""The Agenta door: ``POST /invoke`` (Agenta or Vercel messages; JSON, SSE, NDJSON), its resume
route, and the Agenta catalog of message types."""
