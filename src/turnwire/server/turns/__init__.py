"""The one turn pipeline every door calls: a door's route helpers (``door``), history and approval
checks (``pipeline``, ``decision_claims``), running a turn by its session (``running``), streaming its
frames (``streaming``) and ending streams on shutdown (``shutdown``)."""
