"""A child process on a pseudo-terminal, driven as a person at a terminal would (``turnwire chat``)."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """A child process on a pty: ``send`` keys, ``expect`` text on the screen (ANSI stripped)."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the chat, with the pty as its controlling terminal
            # Ctrl-C must reach it as it does a foreground job, even when pytest was started ignoring
            # SIGINT (a background job of a non-interactive shell): an ignored signal survives exec.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            full = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40", **(env or {})}
            os.execvpe(
                sys.executable, [sys.executable, "-c", "from turnwire.cli import app; app()", *args], full
            )
        self.pid, self.fd = pid, fd
        self.screen = ""
        self._seen = 0

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def expect(self, text: str, timeout: float = 20) -> str:
        """Wait until ``text`` appears after what earlier expects matched; the output up to it."""
        deadline = time.monotonic() + timeout
        while True:
            at = self.screen.find(text, self._seen)
            if at >= 0:
                out = self.screen[self._seen : at + len(text)]
                self._seen = at + len(text)
                return out
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"{text!r} not on the screen; it shows:\n{self.screen[self._seen :][-3000:]}"
                )
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"the chat exited before {text!r}:\n{self.screen[-3000:]}")
                self.screen += ANSI.sub("", chunk.decode("utf-8", "replace"))

    def wait(self, timeout: float = 15) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with_status = os.waitpid(self.pid, os.WNOHANG)
            if with_status[0] == self.pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(with_status[1])
            try:  # keep draining so the child never blocks on a full pty
                if select.select([self.fd], [], [], 0.1)[0]:
                    self.screen += ANSI.sub("", os.read(self.fd, 65536).decode("utf-8", "replace"))
            except OSError:
                time.sleep(0.1)
        self.kill()
        raise AssertionError("the chat did not exit")

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
