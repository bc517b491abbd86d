"""What an agent failure tells the client: its first line, but never a database error's text."""

from __future__ import annotations

import sqlite3

import sqlalchemy.exc

from turnwire.errors import failure_message


def test_an_agent_error_tells_its_first_line() -> None:
    assert failure_message(ValueError("no model configured\nmore")) == "Agent run failed: no model configured"


def test_database_errors_tell_nothing_of_their_sql_or_paths() -> None:
    driver = sqlite3.OperationalError("unable to open database file /srv/secret/app.db")
    wrapped = sqlalchemy.exc.OperationalError("SELECT token FROM keys WHERE id = ?", ("k1",), driver)
    for exc in (driver, wrapped):
        message = failure_message(exc)
        assert message == "Agent run failed: a database error (logged on the server)"
        assert "SELECT" not in message and "/srv" not in message
