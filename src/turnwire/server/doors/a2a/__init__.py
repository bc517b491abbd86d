"""The A2A (Agent2Agent v1.0, and the v0.3 method names) door: agent cards (``card``), the
JSON-RPC binding (``routes``, ``rpc``), a task's turns on the pipeline (``send``), tasks read
back from the store (``tasks``, ``listing``). See docs/a2a.md."""
