"""What the fake records of the bot's calls and of update delivery: API calls,
pending updates, the webhook and its deliveries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.protocol import JSONDict, Params


@dataclass(frozen=True)
class ApiCall:
    """One request the bot made, with the fake's verdict."""

    method: str
    params: Params
    status: int
    result: Any
    description: str | None
    at: float  # time.monotonic()

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass(frozen=True)
class WebhookConfig:
    url: str
    secret_token: str | None
    allowed_updates: tuple[str, ...] | None
    max_connections: int


@dataclass(frozen=True)
class WebhookDelivery:
    update_id: int
    status: int | None  # None when the connection failed
    error: str | None
    at: float


@dataclass(eq=False)
class _Pending:
    update: JSONDict
    replay: bool = False  # a forced duplicate: survives offset confirmation until delivered

    @property
    def update_id(self) -> int:
        return int(self.update["update_id"])

    @property
    def kind(self) -> str:
        return next(k for k in self.update if k != "update_id")
