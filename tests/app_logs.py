"""Running `bot.app` the way ``python -m bot`` logs: for tests that read the log."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

from bot import app
from bot.config import Config


async def run_logged(config: Config, timeout: float = 10.0, **kw: Any) -> tuple[int, str]:
    """`app.run(config, **kw)` under the handler `python -m bot` installs (it redacts
    secrets); the exit code and everything logged."""
    buf = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = app.configure_logging(config, stream=buf)
    try:
        code = await asyncio.wait_for(app.run(config, **kw), timeout)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    return code, buf.getvalue()


def error_lines(logs: str) -> list[str]:
    return [line for line in logs.splitlines() if " ERROR " in line]


def retry_warnings(records: list[logging.LogRecord]) -> list[str]:
    """The runner's "cannot reach the platform" lines: each one warning, no traceback."""
    tries = [r for r in records if "cannot reach the platform" in r.getMessage()]
    assert tries, "no attempt was logged"
    assert all(r.levelname == "WARNING" and r.exc_info is None for r in tries)
    return [r.getMessage() for r in tries]


def the_one_error(code: int, logs: str) -> str:
    """A bot that stopped on a setting to fix: exit code 1, one error line, no traceback."""
    assert code == 1
    errors = error_lines(logs)
    assert len(errors) == 1, errors
    assert "Traceback" not in logs
    return errors[0]
