"""python-telegram-bot glue: failing a test on the errors PTB only logs, and running
an Application's polling inside the test's event loop.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from telegram.ext import Application


class LogErrorGuard(logging.Handler):
    """Collects ERROR records from the ``telegram`` loggers so no failure hides.

    PTB catches exceptions raised by handlers and only logs them; a test waiting for the
    handler's reply would then just time out. With the guard attached to a fake
    (``fake.attach(guard)``), every ``wait_*`` raises at once with the logged traceback,
    and leaving the ``with`` block raises if any unexpected record was collected.
    """

    def __init__(self, *loggers: str, level: int = logging.ERROR) -> None:
        super().__init__(level)
        self.logger_names = loggers or ("telegram",)
        self.records: list[logging.LogRecord] = []
        self._allowed: list[str] = []
        self._listeners: list[Callable[[], object]] = []

    def __enter__(self) -> LogErrorGuard:
        for name in self.logger_names:
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        for name in self.logger_names:
            logging.getLogger(name).removeHandler(self)
        if exc_type is None:
            self.check()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        for listener in self._listeners:
            listener()

    def add_listener(self, listener: Callable[[], object]) -> None:
        self._listeners.append(listener)

    def allow(self, substring: str) -> None:
        """Expect records whose message or exception contains ``substring``."""
        self._allowed.append(substring)

    def unexpected(self) -> list[logging.LogRecord]:
        return [r for r in self.records if not any(a in _describe(r) for a in self._allowed)]

    def take(self) -> list[logging.LogRecord]:
        """Return and forget the records so far (for tests that provoke an error on purpose)."""
        records, self.records = self.records, []
        return records

    def check(self) -> None:
        unexpected = self.unexpected()
        if unexpected:
            details = "\n\n".join(_describe(r) for r in unexpected)
            raise AssertionError(f"ERROR logged by the Telegram library:\n{details}")


def _describe(record: logging.LogRecord) -> str:
    text = f"{record.name}: {record.getMessage()}"
    if record.exc_info:
        text += "\n" + logging.Formatter().formatException(record.exc_info)
    return text


@contextlib.asynccontextmanager
async def polling(application: Application[Any, Any, Any, Any, Any, Any]) -> AsyncIterator[None]:
    """Run a PTB Application with long polling inside the test's event loop.

    ``run_polling`` would own the loop and install signal handlers; this is the documented
    manual sequence (initialize, start, start_polling; then stop in reverse), with a 1 s
    long-poll timeout so shutdown is quick.
    """
    updater = application.updater
    if updater is None:
        raise ValueError("the application was built without an updater")
    async with application:
        await application.start()
        await updater.start_polling(poll_interval=0, timeout=1)
        try:
            yield
        finally:
            await updater.stop()
            await application.stop()
