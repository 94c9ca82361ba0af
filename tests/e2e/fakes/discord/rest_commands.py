"""REST routes for application commands, global and per guild, validated as
Discord validates them.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any

from aiohttp import web

from tests.e2e.fakes.discord.errors import ApiError, _FormErrors
from tests.e2e.fakes.discord.rest_guilds import GuildRoutes
from tests.e2e.fakes.discord.wire import _json_response, _no_content

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import _Call
    from tests.e2e.fakes.discord.protocol import Json


class CommandRoutes(GuildRoutes):
    """The application-command routes."""

    def _command_store(self, call: _Call) -> tuple[dict[str, Json], int | None]:
        if int(call.params["application_id"]) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" in call.params:
            guild = self._guild(call)
            return self._guild_commands.setdefault(guild.id, {}), guild.id
        return self._global_commands, None

    def _validate_command(
        self, definition: Any, errors: _FormErrors, path: tuple[str | int, ...]
    ) -> None:
        if not isinstance(definition, dict):
            errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            return
        kind = definition.get("type", 1)
        name = definition.get("name")
        if (
            not isinstance(name, str)
            or not re.fullmatch(r"[-_\w]{1,32}", name)
            or (kind == 1 and name != name.lower())
        ):
            errors.add(
                (*path, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
            )
        description = definition.get("description") or ""
        if kind == 1 and not 1 <= len(description) <= 100:
            errors.add(
                (*path, "description"),
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        options = definition.get("options") or []
        if len(options) > 25:
            errors.add((*path, "options"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for index, option in enumerate(options):
            if option.get("type") in (1, 2) or "options" in option:
                self._validate_command({**option, "type": 1}, errors, (*path, "options", index))
            else:
                option_name = option.get("name")
                if not isinstance(option_name, str) or not re.fullmatch(
                    r"[-_\w]{1,32}", option_name
                ):
                    errors.add(
                        (*path, "options", index, "name"),
                        "APPLICATION_COMMAND_INVALID_NAME",
                        "Command name is invalid",
                    )

    def _stored_command(
        self, definition: Json, store: dict[str, Json], guild_id: int | None
    ) -> Json:
        previous = store.get(definition["name"])
        required = definition.get("default_member_permissions")
        command: Json = {
            "id": previous["id"] if previous else str(self._snowflake()),
            "application_id": str(self.application_id),
            "version": str(self._snowflake()),
            "type": definition.get("type", 1),
            "name": definition["name"],
            "name_localizations": definition.get("name_localizations"),
            "description": definition.get("description", ""),
            "description_localizations": definition.get("description_localizations"),
            "options": copy.deepcopy(definition.get("options") or []),
            "default_member_permissions": None if required is None else str(required),
            "dm_permission": definition.get("dm_permission", True),
            "contexts": definition.get("contexts"),
            "integration_types": definition.get("integration_types") or [0],
            "nsfw": definition.get("nsfw", False),
        }
        if guild_id is not None:
            command["guild_id"] = str(guild_id)
        return command

    async def _get_commands(self, call: _Call) -> web.Response:
        store, _ = self._command_store(call)
        return _json_response(200, list(store.values()))

    async def _put_commands(self, call: _Call) -> web.Response:
        store, guild_id = self._command_store(call)
        definitions = call.body if isinstance(call.body, list) else []
        errors = _FormErrors()
        if len(definitions) > 100:
            raise ApiError(400, 30032, "Maximum number of application commands reached (100)")
        for index, definition in enumerate(definitions):
            self._validate_command(definition, errors, (index,))
        errors.raise_if_any()
        new = {d["name"]: self._stored_command(d, store, guild_id) for d in definitions}
        store.clear()
        store.update(new)
        return _json_response(200, list(store.values()))

    async def _post_command(self, call: _Call) -> web.Response:
        store, guild_id = self._command_store(call)
        errors = _FormErrors()
        self._validate_command(call.body, errors, ())
        errors.raise_if_any()
        existed = call.body["name"] in store
        command = self._stored_command(call.body, store, guild_id)
        store[command["name"]] = command
        return _json_response(200 if existed else 201, command)

    async def _delete_command(self, call: _Call) -> web.Response:
        store, _ = self._command_store(call)
        name = next((n for n, c in store.items() if c["id"] == call.params["command_id"]), None)
        if name is None:
            raise ApiError(404, 10063, "Unknown application command")
        del store[name]
        return _no_content()
