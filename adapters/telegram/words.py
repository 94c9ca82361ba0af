"""The words of a command: what its arguments name, and which of our commands a
mistyped one meant.

Pure functions of the typed text, kept apart from the handlers (`commands`) that
act on what they find, so that reading a command's arguments can be read alone.
"""

from __future__ import annotations

import shlex

from bot.i18n import game_named, t, typed
from engine.games import available

from .texts import COMMANDS

#: Words before a leaderboard's page number, English and German.
PAGE_WORDS = frozenset({"page", "p.", "seite", "s."})


def _squeeze(word: str) -> str:
    """`word` with each run of one letter cut to one (``neww``, ``setings``: ``new``,
    ``setings``), so a key held too long or too short counts as no slip at all."""
    return "".join(ch for i, ch in enumerate(word) if i == 0 or word[i - 1] != ch)


def _swapped(a: str, b: str) -> bool:
    """`a` is `b` with two neighbouring letters swapped (``nwe``, ``stast``)."""
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    return (
        len(a) == len(b)
        and len(diff) == 2
        and diff[1] == diff[0] + 1
        and (a[diff[0]], a[diff[1]]) == (b[diff[1]], b[diff[0]])
    )


def typo_of(word: str) -> str | None:
    """The command of ours that `word` is a slip of the finger for: neighbouring
    letters swapped, a letter doubled or a double typed once, or both (``/nwe``,
    ``/stast``, ``/nwee``).  Not one letter more, less or another: in a group those
    are other bots' words (``/news``, ``/status``, ``/about``), not typos of ours."""
    typed = _squeeze(word.lower())
    for command, _ in COMMANDS["en"]:
        ours = _squeeze(command)
        if typed == ours or _swapped(typed, ours):
            return command
    return None


def split(args: list[str] | None) -> list[str]:
    """Command arguments, honouring quotes (``/new dreier "a b"``)."""
    if not args:
        return []
    try:
        return shlex.split(" ".join(args))
    except ValueError:
        return list(args)


def rules_words(args: list[str]) -> tuple[list[str], dict[str, str]]:
    """The words after a game in /new and /rules: presets (lowercase) and the rule
    options typed as ``name=value`` (read by the core, `bot.settings.rule_options`)."""
    words: list[str] = []
    options: dict[str, str] = {}
    for arg in _assignments(args):
        key, eq, value = arg.partition("=")
        if eq:
            options[key] = value
        else:
            words.append(arg.lower())
    return words, options


def _assignments(args: list[str]) -> list[str]:
    """`/new` arguments with ``name = value`` written apart (``a =b``, ``a= b``, ``a = b``)
    joined into one ``name=value``."""
    out: list[str] = []
    for arg in args:
        if out and (arg.startswith("=") or out[-1].endswith("=")) and out[-1] != "=":
            out[-1] += arg
        else:
            out.append(arg)
    return out


def unknown_game(lang: str | None, words: list[str]) -> str | None:
    """The refusal for a game argument the bot does not know, naming the games: a
    typo must not read as a game's rules or board ("xyz", "no finished games")."""
    known = available()
    for word in words:
        if game_of(word) is None:
            return t(lang, "refuse.unknown_game", game=typed(word), games=", ".join(known))
    return None


def game_of(word: str) -> str | None:
    """The game a command's word names: its id or another name ("1000", "thousand")."""
    return game_named(word, available())
