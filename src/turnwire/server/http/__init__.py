"""HTTP plumbing every route shares: API keys, CORS, bodies within limits, content negotiation,
request ids and JSON error answers. Knows no door and no turn."""
