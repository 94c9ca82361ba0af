"""The lobby message: who sat down, the rules in force, the buttons to join and start.

A message of its own, before there are any cards; once the match started, adapters
leave it in the chat with its last words (`started_lobby_text`).
"""

from __future__ import annotations

from .. import i18n
from ..i18n import game_name, level_name, t
from ..option_names import option_name
from ..payload import table_verb
from ..settings import preset_options, shown_value
from ..table import Status, Table
from .faces import Button, LobbyView, Message, Style, _Layout
from .seats import seat_lines, team_of


def lobby_view(table: Table, style: Style, lobby_minutes: int | None = None) -> LobbyView:
    lg = style.lang
    seats = seat_lines(table)
    lines = [t(lg, "lobby.title", game=game_name(table.game, lg), table=table.id)]
    if table.rematch_of:
        lines.append(t(lg, "lobby.rematch", table=table.rematch_of))
    host = table.host_name() or "—"
    lines.append(t(lg, "lobby.host", host=host))
    for i, line in enumerate(seats):
        team = f" · {t(lg, 'lobby.team', team=team_of(table, i))}" if table.game == "bauern" else ""
        if line is None:
            who = t(lg, "lobby.seat_empty")
        elif line.is_ai:
            # which level plays: /settings may say another once an admin changed it,
            # and the table keeps the level it was opened with
            seat = table.seats[i]
            level = seat.ai if seat is not None and seat.ai else "?"
            who = t(lg, "lobby.seat_ai", name=line.name, level=level_name(level, lg))
        else:
            who = line.name
        lines.append(f"{i + 1}. {who}{team}")
    free = sum(1 for s in seats if s is None)
    closed = table.status == Status.ABORTED
    if closed:  # its last picture: no call to join or start, no closing time, no buttons
        lines.append(t(lg, "lobby.closed"))
    else:
        lines.append(t(lg, "lobby.ready") if free == 0 else t(lg, "lobby.waiting", free=free))
    rules = _rules_in_force(table, lg)
    if rules:
        lines.append(t(lg, "lobby.rules", rules=rules))
    if closed:
        return LobbyView(table.id, table.game, table.host, seats, False, Message("\n".join(lines)))
    if lobby_minutes:
        lines.append(t(lg, "lobby.expires", minutes=lobby_minutes))
    v = table.version
    lay = _Layout()
    lay.add_row(
        [
            Button(t(lg, "button.join"), table_verb(table.id, v, "j")),
            Button(t(lg, "button.leave"), table_verb(table.id, v, "l")),
            Button(t(lg, "button.add_ai"), table_verb(table.id, v, "ai")),
            Button(t(lg, "button.start"), table_verb(table.id, v, "st")),
            Button(t(lg, "button.rules"), table_verb(table.id, v, "ru")),
        ]
    )
    if table.game == "bauern":
        lay.add_row(
            [
                Button(t(lg, "button.sit", seat=i + 1), table_verb(table.id, v, "s", i))
                for i in range(table.players)
            ]
        )
    # named as the seat list names them ("Remove Computer 2" removes Computer 2), in
    # seat order; a person's only for the host (the core refuses anyone else)
    removable = [
        Button(
            t(lg, "button.remove_ai" if s.user is None else "button.remove_player", name=s.name),
            table_verb(table.id, v, "rm", i),
        )
        for i, s in enumerate(table.seats)
        if s is not None and s.user != table.host
    ]
    if removable:
        lay.add_row(removable)
    return LobbyView(
        table.id,
        table.game,
        table.host,
        seats,
        can_start=free == 0,
        message=Message("\n".join(lines), lay.done()),
    )


def _rules_in_force(table: Table, lg: str) -> str:
    """The lobby's rules: the preset, and each option that differs from what the preset
    (or the standard rules) sets, from the chat's settings or the host's `name=value`,
    by its name in words (the ids are for admins); "" for the standard rules.  A
    preset's name alone would hide those."""
    preset = table.preset
    base = preset_options(table.game, preset)
    changed = [
        f"{option_name(k, lg)} {shown_value(v, lg)}"
        for k, v in table.options_json.items()
        if base.get(k) != v
    ]
    if not changed:
        return i18n.preset_name(preset, lg) if preset else ""
    return " + ".join([i18n.preset_name(preset or "standard", lg), ", ".join(changed)])


def started_lobby_text(lobby_text: str, lang: str | None, lobby_expiry: float) -> str:
    """The lobby's last words once its match started: who sat down, and that the
    game is on, not "the host can start" or when the lobby would close."""
    minutes = int(lobby_expiry // 60)
    stale = {t(lang, "lobby.ready"), t(lang, "lobby.expires", minutes=minutes)}
    lines = [line for line in lobby_text.splitlines() if line not in stale]
    return "\n".join([*lines, t(lang, "refuse.not_in_lobby")])
