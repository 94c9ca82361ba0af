"""The outcome of one deal, as the match scoring and the bot need it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class DealResult:
    """What a finished deal is worth.

    `points` are per seat: game points won this deal (Thousand: the score change before
    the match applies barrel and bolt rules).  `reason` says why the deal ended, e.g.
    ``"reached_66"``, ``"last_trick"``, ``"closer_failed"``, ``"wrong_claim"``,
    ``"made"``, ``"failed"``, ``"redeal"``; a Dreier or Bauern contract names what
    decided it: ``"took_trick"``, ``"lost_trick"``, ``"under_66"``, ``"all_tricks"``…
    """

    points: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str
    contract: str | None = None
    declarer: int | None = None
    multiplier: int = 1
    card_points: tuple[int, ...] = ()
    tricks: tuple[int, ...] = ()
    details: tuple[tuple[str, object], ...] = field(default=())

    def detail(self, key: str, default: object = None) -> object:
        for k, v in self.details:
            if k == key:
                return v
        return default
