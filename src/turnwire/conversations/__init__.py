"""Conversations in the store, whichever door they come through.

- ``stored``: a session's task and its conversation as stored (``open_conversation``).
- ``planning``: which of a client's messages are new, rewinds for edits, interruption markers.
- ``recording``: ``TurnRecorder`` stores a turn as it streams and publishes its updates.
- ``pubsub`` / ``redis_pubsub``: live task updates, in process or shared through Redis.
"""
