"""What a player at a real card table knows, the messages show, and a deal's result
can be checked: every marriage said, the card turned up for trumps, who sits a deal
out, and the result's numbers (doubles, without the talon, a closed talon, bolts)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from bot.i18n import card_label, contract_name, suit_label
from bot.service import TableUpdate
from bot.table import Table
from engine.actions import Action, Bid, ChooseTrump, CloseTalon, Double, Pass, PlayCard, decode
from engine.cards import CARDS, Card, Suit
from engine.tausend.match import TausendMatch
from engine.views import SeatView

from .fakechat import CHAT, Bot, Player, Policy, open_table, users
from .policies import finisher, heuristic


def prefer(*wanted: Callable[[Action], bool]) -> Policy:
    """A player who takes the first kind of action in `wanted` his buttons offer, and
    otherwise plays as the engine's rule-based AI."""

    def choose(table: Table, seat: int, codes: list[int], rng: random.Random) -> int | None:
        assert table.deal is not None
        actions = [(c, decode(c, table.deal.contracts)) for c in codes]
        for want in wanted:
            hits = [c for c, a in actions if want(a)]
            if hits:
                return rng.choice(hits)
        return heuristic(table, seat, codes, rng)

    return choose


async def play_until(bot: Bot, tid: str, players: list[Player], done: Callable[[], bool]) -> None:
    """Every seat is a person, so someone can move until `done()` or the table ends."""
    while tid in bot.svc.tables and not done():
        assert any([await p.take_turn(tid) is not None for p in players])


def results(bot: Bot, tid: str) -> list[str]:
    """The deal results posted in the channel so far."""
    return [
        p.message.text
        for p in bot.fc.channel
        if p.table_id == tid and p.kind in ("deal_end", "finished")
    ]


def table_text(bot: Bot, tid: str) -> str:
    return bot.fc.tables[tid].message.text


def hand_text(bot: Bot, tid: str, player: Player) -> str:
    hv = player.hand(tid)
    assert hv is not None
    return hv.message.text


@pytest.mark.parametrize(
    ("lang", "contract"),
    [
        ("en", "— Normal game without the talon by {name} (×8)"),
        ("de", "— Normalspiel ohne Talon von {name} (×8)"),
    ],
)
async def test_a_deal_result_names_the_doubles_and_the_talon_left_alone(
    make_bot: Callable[..., Bot], lang: str, contract: str
) -> None:
    """A normal game is worth 1 to 3, yet the declarer's side scores 16 to 32: it was
    played without the talon (+1), with Spritzen, Retour and Re (×8).  The result,
    read far below the table message, says so."""
    bot = await make_bot(langs={u.key: lang for u in users(3)}).start()
    try:
        policy = prefer(
            lambda a: isinstance(a, Bid) and a.contract == "normal" and a.without_talon,
            lambda a: isinstance(a, Double),
            lambda a: isinstance(a, Pass),
        )
        players = [bot.player(u, policy) for u in users(3, lang=lang)]
        host = players[0].user
        assert (await bot.svc.update_setting(CHAT, host, "language", lang, is_admin=True)).ok
        tid = await open_table(bot, "dreier", players)
        table = bot.svc.tables[tid]
        await play_until(bot, tid, players, lambda: bool(results(bot, tid)))
        declarer = next(s for s, a in table.deals[0].actions if isinstance(a, Bid))
        assert max(table.deal_points[0]) in (16, 24, 32)  # (1, 2 or 3) + 1, × 8
        (first, *_) = results(bot, tid)
        assert contract.format(name=players[declarer].user.name) in first.splitlines()[0]
    finally:
        await bot.stop()


async def test_a_closed_deal_says_who_closed_and_what_the_other_had_then(
    make_bot: Callable[..., Bot],
) -> None:
    """A closed talon is scored from the moment of closing (RULES.md §2): the closer
    wins 1 if his opponent then had 33, though he ends with less; the closer's
    opponent wins 3 if he had no trick then, though he has tricks now.  The result
    names the closer and what his opponent had when the talon was closed."""
    bot = await make_bot().start()
    closings: list[tuple[int, int]] = []  # (closer, the opponent's points then)

    def close_after_a_trick(table: Table, seat: int, codes: list[int], rng: random.Random) -> int:
        assert table.deal is not None
        view = table.deal.view(seat)  # match seats are deal seats in Schnapsen
        other = 1 - seat
        closes = [c for c in codes if isinstance(decode(c, table.deal.contracts), CloseTalon)]
        if closes and view.tricks_won[other]:
            closings.append((seat, view.points[other]))
            return closes[0]
        return rng.choice([c for c in codes if c not in closes])  # tricks for both

    try:
        players = [bot.player(u, close_after_a_trick) for u in users(2)]
        tid = await open_table(bot, "zweier", players)
        table = bot.svc.tables[tid]
        await play_until(bot, tid, players, lambda: bool(closings))
        assert closings, "nobody closed the talon"
        closed_deal = len(table.deals)
        await play_until(bot, tid, players, lambda: len(results(bot, tid)) >= closed_deal)
        closer, points = closings[0]
        names = [p.user.name for p in players]
        said = f"{names[closer]} closed the talon when {names[1 - closer]} had {points} points."
        assert said in results(bot, tid)[closed_deal - 1]
        for earlier in results(bot, tid)[: closed_deal - 1]:
            assert "closed the talon" not in earlier
    finally:
        await bot.stop()


@pytest.mark.parametrize("game_id", ["dreier", "bauern"])
async def test_a_card_turned_up_for_trumps_lies_on_the_table(
    make_bot: Callable[..., Bot], game_id: str
) -> None:
    """Forehand who turns a card up unseen instead of naming trumps shows it to all
    (Dreier's blind card, Bauern's Aufschlagen): trumps set by chance say something
    else than trumps named, so the table message shows the card and who turned it."""
    bot = await make_bot().start()
    try:
        n = 3 if game_id == "dreier" else 4
        blind = prefer(lambda a: isinstance(a, ChooseTrump) and a.blind is not None)
        players = [bot.player(u, blind) for u in users(n)]
        tid = await open_table(bot, game_id, players)
        table = bot.svc.tables[tid]
        await play_until(bot, tid, players, lambda: bool(table.deals[0].actions))
        assert table.deal is not None
        public = table.deal.view(None)
        assert public.trump is not None and public.trump_card is not None
        forehand = players[(table.deals[0].spec.dealer + 1) % n].user.name
        trumps = f"Trumps: {suit_label(public.trump)} · turned up by {forehand}: "
        assert trumps + card_label(public.trump_card) in table_text(bot, tid).splitlines()
    finally:
        await bot.stop()


@pytest.mark.parametrize(
    ("game_id", "options"), [("tausend", {"tausend.players": 4}), ("bauern", None)]
)
async def test_whoever_sits_a_deal_out_is_told_and_so_is_the_table(
    make_bot: Callable[..., Bot], game_id: str, options: dict[str, object] | None
) -> None:
    """Thousand's dealer of four sits out (and scores the stock); the Bettler's
    partner lays his cards down.  His hand message would otherwise wait for turns
    that never come, and the others would wonder why he does not play."""
    bot = await make_bot().start()
    try:
        bettler = prefer(
            lambda a: isinstance(a, Bid) and a.contract == "bettler",
            lambda a: isinstance(a, Pass),
        )
        players = [bot.player(u, bettler) for u in users(4)]
        tid = await open_table(bot, game_id, players, options=options)
        table = bot.svc.tables[tid]

        def public() -> SeatView:
            assert table.deal is not None
            return table.deal.view(None)

        await play_until(bot, tid, players, lambda: public().phase == "play")
        if game_id == "tausend":
            sitter = table.deals[-1].spec.dealer
            said, told = "deals and sits out, scoring the stock", "You deal and sit out"
        else:
            declarer = public().declarer
            assert public().contract == "bettler" and declarer is not None
            sitter = (declarer + 2) % 4
            said, told = "sits out this deal", "You sit out this deal."
        assert public().sitting_out == sitter
        assert f"{players[sitter].user.name} {said}" in table_text(bot, tid)
        for seat, player in enumerate(players):
            assert (told in hand_text(bot, tid, player)) == (seat == sitter), seat
    finally:
        await bot.stop()


def bolt_results(bot: Bot) -> list[tuple[str, tuple[int, ...]]]:
    """From now on, each deal result posted and the bolts of that deal (per seat),
    read from the deal as it ended."""
    seen: list[tuple[str, tuple[int, ...]]] = []

    def watch(update: TableUpdate) -> None:
        if update.kind not in ("deal_end", "finished") or update.result is None:
            return
        public = update.result.table.public if update.result.table is not None else None
        res = public.result if public is not None else None
        bolts = res.detail("bolts") if res is not None else None
        seen.append((update.result.message.text, bolts if isinstance(bolts, tuple) else ()))

    bot.fc.on_update.append(watch)
    return seen


async def test_a_thousand_result_names_each_bolt(make_bot: Callable[..., Bot]) -> None:
    """A defender without a trick gets a bolt, and the third costs 120: the deal's
    result says who got one, and only those who did."""
    bot = await make_bot().start()
    seen = bolt_results(bot)
    try:
        players = [bot.player(u, finisher) for u in users(3)]
        tid = await open_table(bot, "tausend", players)
        await play_until(bot, tid, players, lambda: any(any(b) for _, b in seen) or len(seen) > 6)
        assert any(any(b) for _, b in seen), "no bolt in the match"
        assert all(len(b) == 3 for _, b in seen), seen
        for text, bolts in seen:
            for seat, player in enumerate(players):
                line = f"{player.user.name} took no trick: a bolt."
                assert (line in text.splitlines()) == (bolts[seat] == 1), (text, bolts)
    finally:
        await bot.stop()


async def test_every_marriage_of_a_deal_stays_on_the_table(make_bot: Callable[..., Bot]) -> None:
    """Marriages are said aloud and each takes a King and a Queen out of play: a
    counting player needs all of them, not the last two."""
    bot = await make_bot().start()
    # (the marriages of the deal, the table message then); a listener's failure
    # would only be logged, so the checks come after the play
    seen: list[tuple[tuple[tuple[int, Suit, int], ...], str]] = []

    def watch(update: TableUpdate) -> None:
        table = bot.svc.tables.get(update.table_id)
        if update.kind == "action" and table is not None and table.deal is not None:
            marriages = table.deal.view(None).marriages
            seen.append((marriages, bot.fc.tables[update.table_id].message.text))

    def most() -> int:
        return max((len(m) for m, _ in seen), default=0)

    try:
        bot.fc.on_update.append(watch)
        marry = prefer(lambda a: isinstance(a, PlayCard) and a.marriage)
        for _ in range(5):  # matches, until a deal has three marriages
            players = [bot.player(u, marry) for u in users(2)]
            tid = await open_table(bot, "zweier", players)
            await play_until(bot, tid, players, lambda: most() >= 3)
            if most() >= 3:
                break
        assert most() >= 3, "no deal with three marriages"
        for marriages, text in seen:
            for seat, suit, points in marriages:
                name = users(2)[seat].name
                assert f"Marriage — {name}: {points} ({suit_label(suit)})" in text.splitlines()
    finally:
        await bot.stop()


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "On the barrel: {name} (deal 2 of 3)"),
        ("de", "Auf dem Fass: {name} (Runde 2 von 3)"),
    ],
)
async def test_the_table_counts_the_deals_on_the_barrel(
    make_bot: Callable[..., Bot], lang: str, line: str
) -> None:
    """Three deals on the barrel to make a bid above 120: the table says whose they
    are and which one is being played, as players count them at a real table."""
    bot = await make_bot(langs={u.key: lang for u in users(3)}).start()
    try:
        players = [bot.player(u, finisher) for u in users(3, lang=lang)]
        host = players[0].user
        assert (await bot.svc.update_setting(CHAT, host, "language", lang, is_admin=True)).ok
        tid = await open_table(bot, "tausend", players)
        match = bot.svc.tables[tid].match
        assert isinstance(match, TausendMatch)
        assert "arrel" not in table_text(bot, tid) and "Fass" not in table_text(bot, tid)
        match.scores[1] = 880
        match.on_barrel[1] = True
        match.climbed.append(1)
        match.attempts[1] = 1  # one deal there is behind him
        assert any([await p.take_turn(tid) is not None for p in players])
        expected = line.format(name=users(3)[1].name)
        assert expected in table_text(bot, tid).splitlines()
    finally:
        await bot.stop()


async def test_a_deal_sat_out_is_not_counted_on_the_barrel(
    make_bot: Callable[..., Bot],
) -> None:
    """With four at Thousand the dealer sits out, and a deal he sits out is not one of
    his three on the barrel (RULES.md §5): the table says so, and the deal's last
    picture counts the deals played there, not the one to come."""
    bot = await make_bot().start()
    try:
        players = [bot.player(u, finisher) for u in users(4)]
        tid = await open_table(bot, "tausend", players, options={"tausend.players": 4})
        table = bot.svc.tables[tid]
        match = table.match
        assert isinstance(match, TausendMatch)
        assert table.deal_log is not None
        dealer = table.deal_log.spec.dealer
        other = (dealer + 1) % 4
        for seat in (dealer, other):
            match.scores[seat] = 880
            match.on_barrel[seat] = True
            match.climbed.append(seat)
            match.attempts[seat] = 1  # one deal there is behind each
        assert any([await p.take_turn(tid) is not None for p in players])
        name = users(4)[dealer].name
        lines = table_text(bot, tid).splitlines()
        barrel = next(x for x in lines if x.startswith("On the barrel: "))
        on = {
            dealer: f"{name} (sits this deal out; deal 2 of 3 comes next)",
            other: f"{users(4)[other].name} (deal 2 of 3)",
        }
        # both named, in seat order, each apart from the other
        assert barrel == "On the barrel: " + ", ".join(on[s] for s in sorted(on)), barrel
        await play_until(bot, tid, players, lambda: bool(table.deal_points))
        [end] = [u for u in bot.fc.updates if u.kind in ("deal_end", "finished") and u.result]
        assert end.result is not None and end.result.table is not None
        last = end.result.table.message.text.splitlines()
        barrel = next(x for x in last if x.startswith("On the barrel: "))
        # the sitter's count stands; the player's deal is behind him (unless it ended
        # his stay: a made bid above 120, or a failed one)
        assert f"{name} (1 of 3 deals played)" in barrel, barrel
        if match.on_barrel[other]:
            assert f"{users(4)[other].name} (2 of 3 deals played)" in barrel, barrel
    finally:
        await bot.stop()


async def test_two_at_thousand_see_the_face_down_stock_after_the_deal(
    make_bot: Callable[..., Bot],
) -> None:
    """With two at Thousand the face-down stock, with the 3 cards the declarer laid on
    it, goes to the last trick's winner (RULES.md §5).  Its cards were never shown: the
    result turns them up, or no one can check the points it names."""
    bot = await make_bot().start()
    try:
        players = [bot.player(u) for u in users(2)]
        for _ in range(5):  # until a deal is played out (a redeal has no stock to count)
            tid = await open_table(bot, "tausend", players, options={"tausend.players": 2})
            table = bot.svc.tables[tid]
            laid: list[tuple[Card, ...]] = []

            def watch(update: TableUpdate, table: Table = table, laid: list[Any] = laid) -> None:
                deal = table.deal
                if deal is not None and deal.view(None).declarer is not None:
                    seat = deal.view(None).declarer
                    assert seat is not None
                    got = dict(deal.view(seat).extra).get("discarded")
                    if isinstance(got, tuple) and got:
                        laid[:] = [got]

            bot.fc.on_update.append(watch)

            def scored(t: Table = table) -> bool:
                return bool(t.deal_points)

            await play_until(bot, tid, players, scored)
            bot.fc.on_update.remove(watch)
            end = next(u for u in bot.fc.updates if u.table_id == tid and u.result is not None)
            assert end.result is not None
            text = end.result.message.text
            if "(redeal)" in text:
                continue
            # never before the deal's end: in no other message of the channel
            before = [p.message.text for p in bot.fc.channel if p.table_id == tid]
            assert sum("Face-down stock" in x for x in before) == 1, before
            line = next(x for x in text.splitlines() if x.startswith("Face-down stock"))
            shown = line.split(": ", 1)[1].split(" — ")[0].split(" ")
            assert len(shown) == 6, line
            assert laid and {card_label(c) for c in laid[0]} <= set(shown), (line, laid)
            worth = {card_label(c): c.points for c in CARDS}
            said = f" — {sum(worth[x] for x in shown)} points to "
            assert said in line and line.endswith(" (last trick)"), line
            return
        raise AssertionError("no deal played out in five tables")
    finally:
        await bot.stop()


@pytest.mark.parametrize(
    ("game_id", "options"),
    [("tausend", {"tausend.players": 4}), ("bauern", None), ("dreier", None)],
)
async def test_the_last_picture_of_a_deal_counts_the_points_as_its_result(
    make_bot: Callable[..., Bot], game_id: str, options: dict[str, object] | None
) -> None:
    """The table's last picture of a deal shows the points its result shows: with
    four at Thousand the dealer who sits out scores the stock, and partners at Bauern
    (a declarer's two opponents at Dreier) score together, so each side's sum is what
    decided the deal, not each player's share of it."""
    bot = await make_bot().start()
    try:
        players = [
            bot.player(u, heuristic) for u in users(4 if options or game_id == "bauern" else 3)
        ]
        tid = await open_table(bot, game_id, players, options=options)

        def points(text: str) -> list[str]:
            return [line for line in text.splitlines() if line.startswith("Points:")]

        def ends() -> list[TableUpdate]:
            return [
                u
                for u in bot.fc.updates
                if u.kind in ("deal_end", "finished")
                and u.result is not None
                and points(u.result.message.text)
            ]

        await play_until(bot, tid, players, lambda: bool(ends()))
        end = ends()[0].result
        assert end is not None and end.table is not None
        said = points(end.message.text)
        assert points(end.table.message.text) == said
        if game_id != "tausend":  # two sides: "Anna & Cilli: 70 · Bert & Done: 50"
            assert said[0].count(" · ") == 1 and " & " in said[0], said
    finally:
        await bot.stop()


@pytest.mark.parametrize("contract", ["bettler", "gang", "schnapser"])
async def test_a_dreier_contract_result_says_what_decided_it(
    make_bot: Callable[..., Bot], contract: str
) -> None:
    """'Contract lost' leaves the table asking why: a Bettler is lost by the
    declarer's trick, a Gang by a trick the others take, a Schnapser by either that
    or 66 not reached in three tricks.  The result names which, and it agrees with
    who scored."""
    reasons = {
        "bettler": ({"no trick taken"}, {"the declarer took a trick"}),
        "gang": ({"every trick taken"}, {"a trick lost"}),
        "schnapser": ({"66 reached"}, {"a trick lost", "66 not reached in time"}),
    }
    made_by, lost_by = reasons[contract]
    bot = await make_bot().start()
    try:
        policy = prefer(
            lambda a: isinstance(a, Bid) and a.contract == contract,
            lambda a: isinstance(a, Pass),
        )
        players = [bot.player(u, policy) for u in users(3)]
        tid = await open_table(bot, "dreier", players)
        await play_until(bot, tid, players, lambda: len(results(bot, tid)) >= 3)
        seen = 0
        name = contract_name(contract, "en")
        for first in (r.splitlines()[0] for r in results(bot, tid)):
            said = re.search(rf"\(([^)]*)\) — {name}\b.* by (\w+)", first)
            if said is None:
                continue  # a redeal, or somebody outbid for another contract
            seen += 1
            why, declarer = said[1], said[2]
            gained = dict(re.findall(r"(\w+) ([+-]\d+)", first))
            made = int(gained[declarer]) > 0
            assert why in (made_by if made else lost_by), first
        assert seen, results(bot, tid)
    finally:
        await bot.stop()


async def test_the_third_bolt_says_what_it_costs(make_bot: Callable[..., Bot]) -> None:
    """A player's score drops by 120 at his third bolt, beyond the deal's points: the
    result says so with the amount, at the deal where the bolts add up to three."""
    bot = await make_bot().start()
    seen = bolt_results(bot)
    try:
        players = [bot.player(u, finisher) for u in users(3)]
        tid = await open_table(bot, "tausend", players)
        counted = [0, 0, 0]

        def fined() -> bool:
            return any("third bolt" in text for text, _ in seen) or len(seen) > 60

        await play_until(bot, tid, players, fined)
        for text, bolts in seen:
            for seat, n in enumerate(bolts):
                counted[seat] += n
                line = f"{players[seat].user.name}: the third bolt, fined −120."
                third = counted[seat] >= 3
                assert (line in text.splitlines()) == third, (text, counted)
                if third:
                    counted[seat] -= 3
        assert any("third bolt" in text for text, _ in seen), "no third bolt: other seeds"
    finally:
        await bot.stop()
