"""What conceding a match costs (`Match.loss_bummerl`): what a loss at the
present score would cost at its end, so that resigning at nil dodges no Schneider."""

from __future__ import annotations

import pytest

from engine.games import game
from engine.tausend.match import TausendMatch


def _match(game_id: str, options: dict[str, object] | None = None):  # type: ignore[no-untyped-def]
    spec = game(game_id)
    return spec.new_match(spec.parse_options(options or {}), 0)


def test_zweier_at_nil_concedes_a_schneider_where_the_rules_score_one() -> None:
    m = _match("zweier")
    assert m.loss_bummerl(0) == 2
    m.scores[0] = 1
    assert (m.loss_bummerl(0), m.loss_bummerl(1)) == (1, 2)
    assert _match("zweier", {"zweier.schneider": False}).loss_bummerl(0) == 1


def test_dreier_at_nil_concedes_a_schneider() -> None:
    m = _match("dreier")
    m.scores[:] = [0, 5, 7]
    assert [m.loss_bummerl(i) for i in range(3)] == [2, 1, 1]


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_bauern_counts_the_team(seat: int) -> None:
    m = _match("bauern")
    m.team_scores[:] = [0, 4]
    assert m.loss_bummerl(seat) == (2 if seat % 2 == 0 else 1)


def test_thousand_has_no_schneider() -> None:
    m = _match("tausend")
    assert isinstance(m, TausendMatch) and m.loss_bummerl(0) == 1
