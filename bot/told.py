"""An unexpected error is told to the operator once.

`Commits._commit` logs an error it did not expect (a bug, not the database) with its
traceback where it happened, reloads the table and raises it on; whoever it reaches
next (a background task's end, an adapter's press) would log it again, and one bug
would read as two.  `mark_told` notes that it was told; `log_failure` is the ERROR with
the traceback for an error not told yet, and a DEBUG line without one for an error
that was.  (Exceptions take no weak references, so the note is an attribute.)
"""

from __future__ import annotations

import contextlib
import logging

_TOLD = "_schnapsen_told"


def mark_told(error: BaseException) -> None:
    """`error` was logged with its traceback: `log_failure` does not log it again."""
    with contextlib.suppress(AttributeError):  # one that takes no attributes (frozen)
        setattr(error, _TOLD, True)


def told(error: BaseException | None) -> bool:
    return getattr(error, _TOLD, False) is True


def log_failure(
    logger: logging.Logger, error: BaseException | None, msg: str, *args: object
) -> None:
    """`msg % args` as an ERROR with `error`'s traceback, or, for an error told
    already, as a DEBUG line without it."""
    if told(error):
        logger.debug(msg, *args)
    else:
        logger.error(msg, *args, exc_info=error)
