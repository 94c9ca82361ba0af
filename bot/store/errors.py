"""The one error the store raises: what callers catch to tell a player his change
was not saved (or an operator why the database cannot be used)."""

from __future__ import annotations


class StoreError(RuntimeError):
    pass
