"""The computer at a seat (`bot.ai_seats.choose_action`): the level a table asks for
is the one that plays, a level that cannot falls back to a weaker one, and a bad
choice still gives a legal move, once.  On tables built from their log in memory (no
bot, no store); the levels are asked through a spy that fails a decision which asks
for ever (a seat that never moves), rather than let the test hang."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

import pytest

from bot import ai_seats
from bot.ai_seats import choose_action
from engine import protocol as P
from engine.actions import Action
from engine.ai import Player, UnsupportedGame, player
from engine.views import SeatView

from .test_result_texts import _deal, _table

#: The players each game is dealt to (the Thousand for three).
GAMES = {"zweier": 2, "dreier": 3, "bauern": 4, "tausend": 3}
#: More levels asked for one decision than there are levels: it asks for ever.
ASKS = 5


def positions() -> list[tuple[SeatView, list[int], str]]:
    """Decisions of every game with more than one legal move (the seat's view, the
    legal codes, the seed): the first few of two deals each, played at random."""
    found = []
    for game_id, n in GAMES.items():
        for k in range(2):
            table = _table(game_id, n)
            _deal(table, k)
            rng = random.Random(k)
            for step in range(6):
                deal, seat = table.deal, table.to_act()
                assert deal is not None and seat is not None
                legal = deal.legal()
                dseat = table.deal_seat(seat)
                if len(legal) > 1:
                    found.append((P.view(deal, dseat), legal, f"{table.id}:{k}:{step}"))
                table.apply({"k": "act", "seat": seat, "code": rng.choice(legal), "by": "ai"})
    return found


def asked_levels(
    monkeypatch: pytest.MonkeyPatch,
    refuse: tuple[str, ...] = (),
    choose: Callable[[SeatView], Action] | None = None,
) -> list[str]:
    """Spy on the levels `choose_action` asks for (the list it returns): the real
    players, but `refuse`d levels do not play the game and `choose` answers instead
    of a level when given.  More than `ASKS` asks fail the decision."""
    asked: list[str] = []

    class Chooser(Player):
        def supports(self, game: str) -> bool:
            return True

        def _choose(self, view: SeatView, rng: random.Random, budget: object) -> Action:
            assert choose is not None
            return choose(view)

    def spy(level: str, game: str | None = None) -> Player:
        asked.append(level)
        assert len(asked) <= ASKS, f"one decision asked for levels {asked}"
        if level in refuse:
            raise UnsupportedGame(f"{level} does not play {game}")
        return Chooser() if choose is not None else player(level, game)

    monkeypatch.setattr(ai_seats, "player", spy)
    return asked


def own_choice(level: str, view: SeatView, legal: list[int], seed: str) -> int:
    """The code of what `level` itself picks, seeded as the seat seeds it."""
    return legal[view.legal.index(player(level, view.game).choose(view, random.Random(seed)))]


def test_a_computer_seat_plays_its_own_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """The heuristic level picks the seat's moves, every game (not random play in its
    name, and asked once per move).  The strong level is not compared: it also stops
    at a wall-clock limit, so on a loaded machine its choice may differ."""
    asked = asked_levels(monkeypatch)
    found = positions()
    assert {view.game for view, _, _ in found} == set(GAMES)
    differs = 0
    for view, legal, seed in found:
        asked.clear()
        code = choose_action("heuristic", view, legal, seed)
        assert code == own_choice("heuristic", view, legal, seed)
        assert asked == ["heuristic"]
        differs += code != random.Random(seed).choice(legal)
    assert differs > len(found) // 4  # the heuristic's moves are not the random ones


def test_a_random_seat_plays_a_seeded_legal_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """The random level (and a level nobody knows, say from a newer version's table
    setting) plays a legal move drawn from the seed: a table replays identically."""
    asked = asked_levels(monkeypatch)
    for view, legal, seed in positions():
        drawn = random.Random(seed).choice(legal)
        assert choose_action("random", view, legal, seed) == drawn
        assert asked == []
        assert choose_action("expert", view, legal, seed) == drawn
        assert asked == ["expert"]
        asked.clear()


def test_a_level_that_does_not_play_the_game_leaves_it_to_the_next_weaker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`strong` not playing a game yet: `heuristic` takes the seat; neither of them
    playing it: random legal play, so the table never stalls."""
    view, legal, seed = next(p for p in positions() if p[0].game == "dreier")
    asked = asked_levels(monkeypatch, refuse=("strong",))
    assert choose_action("strong", view, legal, seed) == own_choice("heuristic", view, legal, seed)
    assert asked == ["strong", "heuristic"]
    asked = asked_levels(monkeypatch, refuse=("strong", "heuristic"))
    assert choose_action("strong", view, legal, seed) == random.Random(seed).choice(legal)
    assert asked == ["strong", "heuristic"]


def test_an_illegal_choice_is_played_as_a_random_legal_move_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A level that picks a move that is not legal (a bug): the seat plays a seeded
    random legal move instead, the level is not asked again, and the log names the
    level only, no card of the seat's hand."""
    view, legal, seed = next(p for p in positions() if p[0].game == "zweier")
    not_legal = next(
        a for v, _, _ in positions() for a in v.legal if v.game == "zweier" and a not in view.legal
    )
    asked = asked_levels(monkeypatch, choose=lambda v: not_legal)
    with caplog.at_level(logging.ERROR, logger="bot.ai_seats"):
        assert choose_action("strong", view, legal, seed) == random.Random(seed).choice(legal)
    assert asked == ["strong"]
    assert [r.getMessage() for r in caplog.records] == [
        "the strong AI chose an action that is not legal; playing at random"
    ]
