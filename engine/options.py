"""Rule options as data: one frozen, keyword-only dataclass per game, with presets.

An option's id is its field name for the options every game shares (``auto_claim``)
and ``"<game>.<field>"`` for the rest (``dreier.raise_after_talon``), matching
RULES.md.  `parse_options` turns a record's or a table's JSON into the object and
refuses unknown ids and wrong types with one clear `OptionError`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, TypeVar

from .errors import OptionError

SHARED_OPTIONS = frozenset({"auto_claim"})

T = TypeVar("T")


def option_id(prefix: str, name: str) -> str:
    return name if name in SHARED_OPTIONS else f"{prefix}.{name}"


def option_ids(cls: type[Any], prefix: str) -> list[str]:
    return [option_id(prefix, f.name) for f in dataclasses.fields(cls)]


def parse_options(cls: type[T], prefix: str, raw: Mapping[str, object] | None) -> T:
    """Build `cls` from option ids; unknown ids and mistyped values are `OptionError`s.

    A field's allowed values may be narrowed with ``metadata={"choices": (...)}``.
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise OptionError(f"options must be a JSON object, got {raw!r}", "not_object")
    by_id = {option_id(prefix, f.name): f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    kwargs: dict[str, object] = {}
    for key, value in raw.items():
        f = by_id.get(key)
        if f is None:
            known = ", ".join(sorted(by_id)) or "none"
            raise OptionError(
                f"unknown option {key!r} for {prefix} (known options: {known})",
                "unknown",
                key=str(key),
                game=prefix,
                known=known,
            )
        default = f.default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise OptionError(
                    f"option {key!r} must be true or false, got {value!r}",
                    "bool",
                    key=key,
                    value=_shown(value),
                )
        elif isinstance(default, int):
            if not isinstance(value, int) or isinstance(value, bool):
                raise OptionError(
                    f"option {key!r} must be an integer, got {value!r}",
                    "int",
                    key=key,
                    value=_shown(value),
                )
        elif isinstance(default, str) and not isinstance(value, str):
            raise OptionError(
                f"option {key!r} must be a string, got {value!r}",
                "str",
                key=key,
                value=_shown(value),
            )
        choices = f.metadata.get("choices")
        if choices is not None and value not in choices:
            allowed = ", ".join(repr(c) for c in choices)
            raise OptionError(
                f"option {key!r} must be one of {allowed}, got {value!r}",
                "choice",
                key=key,
                value=_shown(value),
                allowed=", ".join(json.dumps(c) for c in choices),
            )
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise OptionError(str(e), "invalid", detail=str(e)) from None


def _shown(value: object) -> str:
    """A refused value as its user wrote it: a word as is, anything else as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def options_to_json(options: object, prefix: str) -> dict[str, object]:
    """All option values by id (the form stored with a table and in records)."""
    return {
        option_id(prefix, f.name): getattr(options, f.name)
        for f in dataclasses.fields(options)  # type: ignore[arg-type]
    }
