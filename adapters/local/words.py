"""The words typed at the terminal: its commands, numbers and the names of games.

Pure functions of the typed text (and of a button's payload), kept apart from the
table that acts on them (`LocalTable`), so what a line means can be read alone.  A
card or a bid typed among the numbered choices is read by `choices`.
"""

from __future__ import annotations

from bot.i18n import fold_name, game_named, game_names_of
from bot.payload import parsed

#: A game's name or id typed in part: at least this many letters.
MIN_PREFIX = 3
#: The commands' words, in English and German whichever the terminal speaks (the
#: German prompt's "q: Ende" is answered by "ende" too).
_QUIT = frozenset({"q", "quit", "exit", "ende", "beenden"})
_HELP = frozenset({"h", "help", "?", "hilfe"})
_SHOW = frozenset({"s", "show", "", "zeigen"})
_RULES = frozenset({"r", "rules", "regeln"})
_NEW = frozenset({"n", "new", "neu"})
_GO_ON = frozenset({"", "weiter", "continue"})
#: What a line may say other than a choice (quit, help, show, rules).
_COMMANDS = _QUIT | _HELP | _SHOW | _RULES
_RESIGN = frozenset({"resign", "aufgeben"})
_YES = frozenset({"y", "yes", "j", "ja"})


def find_games(text: str, games: list[str]) -> list[str]:
    """The games that `text` names, as typed at the game menu (one: that game).

    A game answers to its id, its name in every language we speak and the other
    names it goes by (`GAME_ALIASES`: "66" and "1000" among them), whatever the case
    and spacing, then to its number in `games`; failing that, to the first
    `MIN_PREFIX` letters or more of any of its names.  Several games fitting a prefix
    all come back, for the menu to list.
    """
    key = fold_name(text)
    if (named := game_named(key, games)) is not None:  # "66" and "1000" are names
        return [named]
    if (n := _number(key)) is not None:
        return [games[n - 1]] if 1 <= n <= len(games) else []
    if len(key) < MIN_PREFIX:
        return []
    names = {g: game_names_of(g) for g in games}
    return [g for g in games if any(name.startswith(key) for name in names[g])]


def _starts_a_name(text: str, games: list[str]) -> bool:
    """`text` begins some game's name but is shorter than a prefix may be ("zw")."""
    key = fold_name(text)
    if not key or _number(key) is not None:  # "6" is a number out of range, not "66" cut
        return False
    return any(n.startswith(key) for g in games for n in game_names_of(g))


def _number(text: str) -> int | None:
    """A typed number: ASCII digits only.

    `str.isdigit` also accepts "²" or "٣", which `int` refuses or reads as a
    number nobody typed on purpose; those are unknown input like any other word
    (and so is a number of thousands of digits, which `int` refuses).
    """
    if not (text.isascii() and text.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:  # longer than sys.get_int_max_str_digits()
        return None


def _verb(payload: str) -> str | None:
    p = parsed(payload)
    return None if p is None else p.verb
