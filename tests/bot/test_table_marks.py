"""What the channel's table message says about each seat and side while a match
runs: whose turn it is, each Bauern team's own score, a seat the computer plays, the
bolts at Thousand and the deal's fingerprint.  (Gaps mutation runs of
`bot.views.table` found: a marker on every seat, one team's score shown for both, no
bolts line, or a fingerprint shown only once the deal was over passed every test.)"""

from __future__ import annotations

import hashlib
import random

from bot.i18n import card_label, cards_text
from bot.payload import decode
from bot.views import Style, deal_result_view, scores_of
from bot.views.table import table_view
from engine.cards import Card

from .fakechat import Bot, open_table, users
from .policies import heuristic
from .test_expert_views import play_until, table_text
from .test_result_texts import _deal, _move, _table


async def test_the_turn_marker_is_on_the_seat_to_act_only(bot: Bot) -> None:
    """ "▶ Anna" in the score line is how the chat sees whose turn it is; on a seat
    that is waiting it sends people looking at the wrong player."""
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    names = [p.user.name for p in players]
    for _ in range(6):
        table = bot.svc.tables[tid]
        seat = table.to_act()
        assert seat is not None
        lines = table_text(bot, tid).splitlines()
        assert f"To act: {names[seat]}" in lines, lines
        line = next(ln for ln in lines if ln.startswith("Score"))
        assert line.count("▶") == 1, line
        assert f"▶ {names[seat]}" in line, line
        assert all(f"▶ {n}" not in line for i, n in enumerate(names) if i != seat), line
        for i, pl in enumerate(players):  # and each hand, in its private chat
            hv = pl.hand(tid)
            assert hv is not None
            said = "Your turn." if i == seat else f"Waiting for {names[seat]}."
            assert said in hv.message.text.splitlines(), hv.message.text
        mover = players[seat]
        assert await mover.take_turn(tid) is not None


async def test_each_bauern_team_shows_its_own_score(bot: Bot) -> None:
    """After a deal one team has scored and the other has not: the table must not
    show one team's score beside both."""
    players = [bot.player(u, heuristic) for u in users(4)]
    tid = await open_table(bot, "bauern", players)

    def scored() -> bool:
        table = bot.svc.tables[tid]
        return len(set(scores_of(table)[0])) > 1

    await play_until(bot, tid, players, scored)
    assert tid in bot.svc.tables, "the match ended before its first score"
    scores = scores_of(bot.svc.tables[tid])[0]
    n = [p.user.name for p in players]
    text = table_text(bot, tid)
    expected = f"Team 1 ({n[0]} & {n[2]}): {scores[0]} · Team 2 ({n[1]} & {n[3]}): {scores[1]}"
    assert expected in text.replace("▶ ", ""), (expected, text)


async def test_a_hand_names_who_holds_a_card_it_was_shown(bot: Bot) -> None:
    """A marriage partner shown (or the face-up trump taken in an exchange) stays
    known while held: "Bert holds: Q♥" must name the one who holds it, whichever seat
    he sits in, not the reader or the first seat."""
    people = 2
    players = [bot.player(u, heuristic) for u in users(people)]
    tid = await open_table(bot, "zweier", players)
    names = [p.user.name for p in players]
    holders: set[int] = set()
    for _ in range(600):
        table = bot.svc.tables.get(tid)
        if table is None or holders == set(range(people)):
            break
        assert table.deal_log is not None
        for pl in players:
            hv = bot.svc.hand(tid, pl.key)
            if hv is None or hv.view is None:
                continue
            known: dict[int, list[Card]] = {}
            for s, c in hv.view.known:
                known.setdefault(table.deal_log.spec.seats[s], []).append(c)
            lines = [ln for ln in hv.message.text.splitlines() if " holds: " in ln]
            expected = [f"{names[m]} holds: {cards_text(cs)}" for m, cs in known.items()]
            assert sorted(lines) == sorted(expected), hv.message.text
            holders |= set(known)
        assert any([await p.take_turn(tid) is not None for p in players])
    assert holders == set(range(people)), holders


async def test_the_last_trick_names_who_took_it(bot: Bot) -> None:
    """ "Last trick: Bert K♥ · Anna 10♥ → Anna" is how the chat follows who leads next
    and who is scoring; it must name the taker whichever seat he sits in, and each
    card beside the player who played it."""
    players = [bot.player(u, heuristic) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    names = [p.user.name for p in players]
    takers: set[int] = set()
    for _ in range(200):
        table = bot.svc.tables.get(tid)
        if table is None or takers == {0, 1}:
            break
        tv = bot.svc.table(tid)
        assert tv is not None and tv.public is not None and table.deal_log is not None
        winner = tv.public.last_trick_winner
        line = [ln for ln in tv.message.text.splitlines() if ln.startswith("Last trick: ")]
        if winner is not None:
            taker = table.deal_log.spec.seats[winner]
            cards = " · ".join(
                f"{names[table.deal_log.spec.seats[s]]} {card_label(c)}"
                for s, c in tv.public.last_trick
            )  # each card beside who played it, in the order played
            assert line == [f"Last trick: {cards} → {names[taker]}"], line
            takers.add(taker)
        assert any([await p.take_turn(tid) is not None for p in players])
    assert takers == {0, 1}, takers


async def test_a_running_deal_has_no_result_to_publish_its_seed(bot: Bot) -> None:
    """The seed decides every card of the deal: a result view of the deal still
    being played would hand the channel all hands.  Only the service's end-of-deal
    path asks for one today, so the view itself must refuse."""
    players = [bot.player(u, heuristic) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    for _ in range(3):
        assert any([await p.take_turn(tid) is not None for p in players])
    table = bot.svc.tables[tid]
    assert table.deal_log is not None and table.deal is not None
    assert deal_result_view(table, Style()) is None


def test_the_fingerprint_is_shown_from_the_deal_s_first_move_to_its_last() -> None:
    """The seed's hash is published while the deal is played, so that the seed its
    result gives can be checked against what was shown before any card fell: the
    channel's picture carries it at every move of a running deal, not only once the
    deal is scored."""
    table = _table("zweier", 2)
    _deal(table, 0)
    assert table.deal_log is not None
    # the SHA-256 of the seed's bytes, as the line says, worked out here
    digest = hashlib.sha256(bytes.fromhex(table.deal_log.seed)).hexdigest()
    said = f"Deal fingerprint (SHA-256 of the seed's bytes, the seed read as hex): {digest[:16]}…"
    rng = random.Random(0)
    moves = 0
    while not table.deal_points:
        picture = table_view(table, Style()).message.text.splitlines()
        assert said in picture, picture
        _move(table, rng)
        moves += 1
    assert moves > 1


def test_the_table_counts_each_thousand_player_s_bolts_once_there_are_any() -> None:
    """A bolt (a deal scored at nil, RULES.md §5) counts towards a fine at the third:
    the table lists each player's bolts by name once anyone has one, and says nothing
    of bolts before."""
    names = [u.name for u in users(3)]
    table = _table("tausend", 3)
    rng = random.Random(0)
    for k in range(40):
        _deal(table, k)
        deals = len(table.deal_points)
        while len(table.deal_points) == deals:
            _move(table, rng)
        assert table.match is not None
        bolts = table.match.summary()["bolts"]
        picture = table_view(table, Style()).message.text.splitlines()
        said = [x for x in picture if x.startswith("Bolts:")]
        if any(bolts):
            listed = " · ".join(f"{n}: {b}" for n, b in zip(names, bolts, strict=True))
            assert said == [f"Bolts: {listed}"], picture
            break
        assert said == [], picture
    else:
        raise AssertionError("no bolt in 40 deals")


def test_a_seat_the_computer_took_over_is_marked_and_offers_it_back() -> None:
    """Bert's turns ran out and the computer plays his seat: the chat sees that on his
    seat alone (not on Anna's, who plays herself) and gets the button to take it back;
    once he is back, neither the mark nor the button is left."""
    table = _table("zweier", 2)
    _deal(table, 0)
    table.apply({"k": "replace", "seat": 1, "level": "heuristic"})

    def picture() -> tuple[str, list[str]]:
        msg = table_view(table, Style()).message
        score = next(x for x in msg.text.splitlines() if x.startswith("Score"))
        return score.replace("▶ ", ""), [decode(b.payload).verb for b in msg.all_buttons()]

    score, verbs = picture()
    assert score.endswith(": Anna: 0 · Bert (the computer plays): 0"), score
    assert verbs == ["h", "tb"], verbs
    table.apply({"k": "back", "seat": 1})
    score, verbs = picture()
    assert score.endswith(": Anna: 0 · Bert: 0"), score
    assert verbs == ["h"], verbs
