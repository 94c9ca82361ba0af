"""One interaction a simulated user started, and how the tests wait for the bot's
answers to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.e2e.fakes.discord.errors import InteractionFailed

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.entities import FakeChannel, FakeGuild, FakeUser
    from tests.e2e.fakes.discord.errors import ApiError
    from tests.e2e.fakes.discord.messages import FakeMessage
    from tests.e2e.fakes.discord.protocol import Json
    from tests.e2e.fakes.discord.state import FakeDiscordState


@dataclass(eq=False)
class FakeInteraction:
    """One interaction a simulated user started, and everything the bot answered.

    ``await interaction`` waits for the response message (see :meth:`wait_original`).
    """

    id: int
    token: str
    kind: int
    user: FakeUser
    channel: FakeChannel
    data: Json
    payload: Json
    created: float
    """Monotonic clock (``loop.time()``) at dispatch."""
    ack_deadline: float
    token_deadline: float
    fake: FakeDiscordState = field(repr=False)
    message: FakeMessage | None = None
    """The message whose component was used (component interactions)."""
    command_name: str | None = None
    callback_type: int | None = None
    acknowledged_at: float | None = None
    original: FakeMessage | None = None
    """The response message; for deferred/updated component responses, the clicked one."""
    followups: list[FakeMessage] = field(default_factory=list)
    modal: Json | None = None
    autocomplete_choices: list[Json] | None = None
    rejections: list[ApiError] = field(default_factory=list)
    """Errors the fake answered the bot's requests about this interaction with."""
    late: float = 0.0
    """Seconds between the press and its delivery to the bot (``click(late=...)``)."""

    @property
    def expired_on_arrival(self) -> bool:
        """It reached the bot after its window: no answer could be in time."""
        return self.created + self.late >= self.ack_deadline

    @property
    def guild(self) -> FakeGuild | None:
        return self.channel.guild

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    @property
    def failed(self) -> bool:
        """True once the deadline passed without a response."""
        return self.callback_type is None and self.fake._now() >= self.ack_deadline

    @property
    def token_expired(self) -> bool:
        return self.fake._now() >= self.token_deadline

    def expire_token(self) -> None:
        """Its token runs out now (15 minutes after the interaction on Discord): from
        then on every edit or followup through it is refused with 401 / 50027."""
        self.token_deadline = self.fake._now()
        self.fake._changed()

    @property
    def responses(self) -> list[FakeMessage]:
        """The original response (if it is a message of its own) and the followups."""
        own = (
            [self.original]
            if self.original is not None and self.original is not self.message
            else []
        )
        return own + self.followups

    async def wait_acknowledged(self, timeout: float = 5.0) -> int:
        """Wait for the first response and return its callback type (4, 5, 6, 7, 8, 9).

        Raises :class:`InteractionFailed` once the acknowledgement deadline passes.
        """
        await self.fake.wait_for(
            lambda: self.acknowledged or self.failed,
            timeout=timeout,
            description=f"acknowledgement of interaction {self.id}",
        )
        if self.callback_type is None:
            raise InteractionFailed(
                f"interaction {self.id} ({self.command_name or self.data.get('custom_id')}) was"
                " not acknowledged in time: the user sees 'This interaction failed'"
            )
        return self.callback_type

    async def wait_original(self, timeout: float = 5.0) -> FakeMessage:
        """Wait for the response message, past a deferred "thinking…" state.

        For 4/5 that is the new message; for 6/7 the clicked message.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self.wait_acknowledged(timeout)

        def ready() -> FakeMessage | None:
            if self.original is not None and not self.original.loading:
                return self.original
            return None

        return await self.fake.wait_for(
            ready,
            timeout=max(deadline - loop.time(), 0.0),
            description=f"response message of interaction {self.id}",
        )

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[FakeMessage]:
        """Wait until at least ``count`` followup messages exist."""
        await self.fake.wait_for(
            lambda: len(self.followups) >= count,
            timeout=timeout,
            description=f"{count} followups of interaction {self.id}",
        )
        return list(self.followups)

    def __await__(self) -> Generator[Any, None, FakeMessage]:
        return self.wait_original().__await__()

    def __repr__(self) -> str:
        what = self.command_name or self.data.get("custom_id")
        return (
            f"<FakeInteraction id={self.id} kind={self.kind} {what!r} user={self.user.username!r}"
            f" callback={self.callback_type}>"
        )
