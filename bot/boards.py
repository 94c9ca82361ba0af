"""The leaderboard and a player's statistics as chat text.

Every adapter shows them alike, so they are written once here; the adapters only pick
the scope (a chat's own games, or all of them) and send the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from engine.games import available

from . import results as R
from .i18n import game_name, norm_lang, t
from .store import Store

#: Rows of a board; the one asking, if below them, gets his own row after them.
BOARD_ROWS = 10
#: The last page asked for is shown as this one (Discord's option stops there too):
#: a typed 20-digit page would not fit the database's integers.
MAX_PAGE = 1000


async def leaderboard_text(
    store: Store,
    scope: str,
    lang: str | None,
    *,
    games: Sequence[str] = (),
    player: str | None = None,
    rows: int = BOARD_ROWS,
    servers: bool = False,
    page: int = 1,
) -> str:
    """The boards of `games` (every game when empty, leaving out those nobody has
    played) in `scope` ("global" or a chat's key).  `player`, the one asking, sees his
    own place below the rows shown, after a "…" that says rows were left out.  Discord
    calls its chats `servers`.  `page`: which `rows` places of a board (a group of
    more than ten players wants to see who is eleventh); a board with more pages says
    which part it shows."""
    shown = list(dict.fromkeys(games)) or available()  # a game named twice: one board
    here = "server" if servers else "chat"
    scope_text = t(lang, f"board.scope.{'global' if scope == 'global' else here}")
    blocks = []
    page = min(max(1, page), MAX_PAGE)
    skip = (page - 1) * rows
    played = False  # a board left out for being past its end: "no one on this page"
    for game in shown:
        board = await R.leaderboard(store, game, scope, rows, player=player, offset=skip)
        size = await R.board_size(store, game, scope) if board or page > 1 else 0
        played = played or size > 0
        if not board and len(shown) > 1:
            continue
        lines = [t(lang, "board.title", game=game_name(game, lang), scope=scope_text)]
        if size > rows and skip < size:  # "places 11–20 of 23": more before or after
            last = min(size, skip + rows)
            lines.append(t(lang, "board.page", first=skip + 1, last=last, total=size))
        if not board or (page > 1 and size <= skip):
            lines.append(t(lang, "board.empty") if not size else t(lang, "board.no_page"))
        on_page = [r for r in board if skip < r.row <= skip + rows]
        own = [r for r in board if r not in on_page]  # the asker, above or below the page
        for row in on_page + own:
            if row in own:
                lines.append("…")
            lines.append(
                t(
                    lang,
                    _no_bummerl("board.row", game),
                    rank=row.rank,
                    name=row.name,
                    rating=_shown(row.rating, lang),
                    won=row.won,
                    games=row.games,
                    bummerl=row.bummerl,
                )
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) or t(lang, "board.no_page" if played else "board.empty")


async def stats_text(store: Store, player: str, name: str, scope: str, lang: str | None) -> str:
    """What `player` (shown as `name`) played in `scope`, game by game."""
    rows = await R.player_stats(store, player, scope)
    if not rows:
        return t(lang, "stats.none", name=name)
    lines = [t(lang, "stats.title", name=name)]
    lines += [
        t(
            lang,
            _no_bummerl("stats.row", s.game),
            game=game_name(s.game, lang),
            games=s.games,
            won=s.won,
            bummerl=s.bummerl,
            schneider=s.schneider,
            # a game without contracts (Zweierschnapsen) has nothing to say here
            contracts=t(lang, "stats.contracts", made=s.made, played=s.played) if s.played else "",
            rating=t(lang, "stats.unrated")
            if s.rating is None
            else t(lang, "stats.rating", rating=_shown(s.rating, lang)),
        )
        for s in rows
    ]
    return "\n".join(lines)


def _shown(rating: float, lang: str | None = None) -> str:
    """A rating as the board prints it (to a tenth), never "-0.0": a rating a hair
    below zero would read differently from 0.0 while sharing its place.  Rounded as
    SQLite's ROUND ranks the board (half away from zero, on the shortest decimal that
    reads back as the number), not as Python's `round` (half to even, on the binary
    value): 0.25 and 0.2 would otherwise read "0.2" at places 1 and 2."""
    text = f"{float(Decimal(repr(rating)).quantize(Decimal('0.1'), ROUND_HALF_UP)) + 0.0:.1f}"
    return text.replace(".", ",") if norm_lang(lang) == "de" else text  # "-1,8" in German


def _no_bummerl(key: str, game: str) -> str:
    """Thousand has no Bummerl and no Schneider (one player reaches 1000): its rows
    leave them out."""
    return f"{key}.tausend" if game == "tausend" else key
