"""Lines from the keyboard (or a pipe, or a file) without blocking the event loop.

On a terminal or a pipe the loop watches the file descriptor (`loop.add_reader`);
where it cannot (a regular file, or a loop without readers) a daemon thread reads it.
Both read the raw descriptor with `os.read`, never `sys.stdin`'s buffered reader, so a
read still pending at exit holds no lock the interpreter needs while shutting down.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading


class LineReader:
    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.fd = fd
        self._loop = loop or asyncio.get_running_loop()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._partial = b""
        self._eof = False
        self._watching = False
        self._thread: threading.Thread | None = None
        try:
            self._loop.add_reader(fd, self._readable)
            self._watching = True
        except (OSError, NotImplementedError, ValueError, RuntimeError):
            self._thread = threading.Thread(target=self._read_thread, daemon=True)
            self._thread.start()

    async def readline(self) -> str | None:
        """The next line without its line end, or None at the end of input."""
        if self._eof and self._lines.empty():
            return None
        line = await self._lines.get()
        if line is None:
            self._eof = True
        return line

    def close(self) -> None:
        if self._watching:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self.fd)
            self._watching = False

    # --- feeding the queue -----------------------------------------------------------

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""  # the terminal went away: treat it as the end of input
        self._feed(data)

    def _read_thread(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            try:
                self._loop.call_soon_threadsafe(self._feed, data)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                return
            if not data:
                return

    def _feed(self, data: bytes) -> None:
        if not data:
            self.close()
            if self._partial:
                self._lines.put_nowait(self._decode(self._partial))
                self._partial = b""
            self._lines.put_nowait(None)
            return
        self._partial += data
        *lines, self._partial = self._partial.split(b"\n")
        for raw in lines:
            self._lines.put_nowait(self._decode(raw))

    @staticmethod
    def _decode(raw: bytes) -> str:
        return raw.decode("utf-8", "replace").rstrip("\r")
