"""A refusal: the `Outcome` of a press or command that changes nothing.

Every use case refuses the same way (its text one of the `refuse.*` texts, its code
the text's key, for tests and adapters), so the service's modules share this one.
"""

from __future__ import annotations

from typing import Any

from .i18n import t
from .ports import Outcome


def refuse(lang: str | None, key: str, **kw: Any) -> Outcome:
    return Outcome(False, t(lang, f"refuse.{key}", **kw), key)
