"""The engine's exceptions.  `IllegalAction` is the one error a player's move can cause."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action the rules refuse.  `code` is stable (RULES.md §6); `message` is for people.

    Raised before anything changes: `engine.protocol.apply` works on a copy, so a
    refused action never leaves a state half-changed.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class OptionError(ValueError):
    """An unknown rule option or a bad value for one.

    ``str()`` is English; `code` (stable: ``not_object``, ``unknown``, ``bool``,
    ``int``, ``str``, ``choice``, ``invalid``) and `values` (the option's `key`, the
    `value` given as written in JSON, and what is `allowed` or `known`) let a program
    word it in its user's language, as the bot does for a chat's admins.
    """

    def __init__(self, message: str, code: str = "invalid", **values: str) -> None:
        super().__init__(message)
        self.code = code
        self.values = values


class RecordError(ValueError):
    """A game record that is not of the RULES.md §6 shape (replay exit code 2)."""
