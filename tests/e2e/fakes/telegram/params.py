"""Reading a Bot API call's parameters (query, form, JSON or multipart) the way
Telegram coerces them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.errors import _bad_request
from tests.e2e.fakes.telegram.messages import Upload
from tests.e2e.fakes.telegram.protocol import STRING_PARAMS

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.protocol import Params


def _as_int(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _bad_request(f"invalid {name} specified") from None


async def _read_params(request: web.Request) -> Params:
    """Accept query strings, form bodies, multipart bodies and JSON bodies, as Telegram does.

    Form values are JSON-encoded except plain strings; names in ``STRING_PARAMS`` are never
    decoded, so a text of ``"42"`` stays a string.
    """
    raw: dict[str, Any] = dict(request.query)
    if request.method == "POST" and request.body_exists:
        if request.content_type == "application/json":
            try:
                body = await request.json()
            except json.JSONDecodeError:
                raise _bad_request("invalid JSON in request body") from None
            if isinstance(body, dict):
                raw.update(body)
        else:
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    raw[key] = Upload(value.filename, value.content_type, value.file.read())
                elif isinstance(value, bytes | bytearray):
                    raw[key] = bytes(value).decode(errors="replace")
                else:
                    raw[key] = value
    return {key: _decode_value(key, value) for key, value in raw.items()}


def _decode_value(name: str, value: Any) -> Any:
    if not isinstance(value, str) or name in STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _scope_key(scope: Any) -> str:
    return json.dumps(scope or {"type": "default"}, sort_keys=True)
