"""Hidden information in Thousand beyond card labels: who holds what may also leak
through *whose turn it is*.

A receiver of a 9 who now holds all four 9s may demand a redeal (RULES.md §5).  At a
real table a player who does not want one says nothing, and nobody learns his hand.
A turn of its own for that decision, which the whole channel sees ("▶ Bert", and the
declarer's hand says "Waiting for Bert"), would exist only when he holds the four 9s:
everybody would learn four of his cards, and the declarer where the 9 he gave went.
So the claim rides on his first card.

Likewise the chance to claim a redeal for four 9s at one's first bid is the bidder's
own business (a button of his), not something every view of the deal may carry.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager

from bot.payload import game_action
from bot.service import ChatRef
from bot.table import Table
from engine import protocol as P
from engine.actions import Action, Bid, Give, Look, Pass, Raise, encode
from engine.cards import CARDS, Card, Rank
from engine.games import game

from .fakechat import Bot, Player, open_table, users

NINES = frozenset(c for c in CARDS if c.rank == Rank.NINE)
#: The first seed a table draws picks its first dealer (`int(seed, 16) % players`).
DEALER_SEED = "0" * 32


def _find_deal(
    wanted: Callable[[list[set[Card]], set[Card], int], int | None],
) -> tuple[str, int, int]:
    """The first deal seed (dealer 0) whose hands, stock and forehand make `wanted`
    name a seat: (seed, that seat, forehand)."""
    spec = game("tausend")
    options = spec.parse_options({})
    for n in range(5000):
        seed = hashlib.sha256(f"nines {n}".encode()).hexdigest()[:32]
        match = spec.new_match(options, 0)
        first = match.next_deal()
        assert first is not None
        state = match.start_deal(first, seed=bytes.fromhex(seed))
        *hands, stock = ({CARDS[c] for c in part} for part in state.dealt)
        forehand = P.to_act(state)
        assert forehand is not None
        seat = wanted(hands, stock, forehand)
        if seat is not None:
            return seed, seat, forehand
    raise AssertionError("no such deal among the seeds tried")


async def _move(bot: Bot, table: Table, by_seat: dict[int | None, Player], action: Action) -> str:
    """The seat to act makes `action` through its button's payload; his name."""
    seat = table.to_act()
    assert seat is not None and table.deal is not None
    code = encode(action, table.deal.contracts)
    out = await bot.svc.act(by_seat[seat].user, game_action(table.id, table.version, code))
    assert out.ok, out
    return by_seat[seat].user.name


@asynccontextmanager
async def _dealt(
    make_bot: Callable[..., Bot],
    wanted: Callable[[list[set[Card]], set[Card], int], int | None],
) -> AsyncIterator[tuple[Bot, Table, list[Player], int]]:
    """A started Thousand table of three people on the first deal `wanted` names a
    seat for: the bot, the table, the players (by seat) and that seat."""
    seed, seat, _ = _find_deal(wanted)
    bot = await make_bot(seed_source=_seeds(seed)).start()
    try:
        players = [Player(bot.fc, u) for u in users(3)]
        tid = await open_table(bot, "tausend", players)
        yield bot, bot.svc.tables[tid], players, seat
    finally:
        await bot.stop()


def _three_nines(hands: list[set[Card]], stock: set[Card], forehand: int) -> int | None:
    """A seat other than forehand with three 9s, the fourth in the stock."""
    if len(stock & NINES) != 1:
        return None
    return next((s for s, h in enumerate(hands) if s != forehand and len(h & NINES) == 3), None)


def _four_nines(hands: list[set[Card]], stock: set[Card], forehand: int) -> int | None:
    """Forehand, when he holds all four 9s."""
    return forehand if hands[forehand] >= NINES else None


async def _public_until_the_lead(
    bot: Bot, players: list[Player], chat: ChatRef, holder: int, nine_to_holder: bool
) -> list[str]:
    """Forehand bids 100 and wins; he gives the stock's 9 to the seat with three 9s
    (`nine_to_holder`) or to the other one; whoever the table asks declines a redeal;
    he keeps his bid.  Returns what the channel was shown until the declarer leads."""
    tid = await open_table(bot, "tausend", players, chat=chat)
    table = bot.svc.tables[tid]
    forehand = table.to_act()
    assert table.deal is not None and forehand is not None
    other = 3 - holder - forehand
    by_seat = {table.seat_of(p.key): p for p in players}

    async def act(action: Action) -> None:
        await _move(bot, table, by_seat, action)

    await act(Bid(value=100))
    await act(Pass())
    await act(Pass())
    declarer_hand = P.view(table.deal, forehand).hand
    nine = next(c for c in declarer_hand if c in NINES)
    spare = next(c for c in declarer_hand if c not in NINES)
    first, second = (holder, other) if nine_to_holder else (other, holder)
    await act(Give(nine, first))
    await act(Give(spare, second))
    while (phase := P.view(table.deal, None).phase) != "play":
        await act(Raise(100) if phase == "raise" else Pass())
    posts = [p.message.text for p in bot.fc.channel if p.table_id == tid]
    return [re.sub(rf"\b{tid}\b", "TABLE", text) for text in posts]


def _seeds(deal_seed: str) -> Callable[[], str]:
    """The first dealer and the deal, for each table opened."""
    source: Iterator[str] = iter([DEALER_SEED, deal_seed] * 2)
    return lambda: next(source)


async def test_a_declined_four_nines_claim_does_not_show_the_nines(
    make_bot: Callable[..., Bot],
) -> None:
    """A spectator sees the same table whether or not the 9 the declarer gave made
    someone's four 9s, as long as nobody claims a redeal."""
    seed, holder, _ = _find_deal(_three_nines)
    bot = await make_bot(seed_source=_seeds(seed)).start()
    try:
        players = [Player(bot.fc, u) for u in users(3)]
        chats = (ChatRef("tg", "-1001", "A"), ChatRef("tg", "-1002", "A"))
        made_four = await _public_until_the_lead(bot, players, chats[0], holder, True)
        made_none = await _public_until_the_lead(bot, players, chats[1], holder, False)
    finally:
        await bot.stop()
    assert len(made_four) > 4  # the auction, the gives and the raise were shown
    assert made_four == made_none


async def test_the_public_view_does_not_say_who_holds_four_nines(
    make_bot: Callable[..., Bot],
) -> None:
    """Whoever may claim a redeal for his four 9s at his first bid is told so by his
    own buttons; the public view the channel is drawn from (and the other seats'
    views, the computer's eyes) must not say it."""
    async with _dealt(make_bot, _four_nines) as (bot, table, players, holder):
        tid = table.id
        assert table.deal is not None and table.to_act() == holder
        mine = bot.svc.hand(tid, players[holder].key)
        assert mine is not None and "Redeal" in " ".join(
            b.label for b in mine.message.all_buttons()
        )
        public = bot.svc.table(tid)
        assert public is not None and public.public is not None
        seen = [public.public] + [P.view(table.deal, s) for s in range(3) if s != holder]
        assert all(dict(v.extra).get("redeal_claim") is None for v in seen)


def _married(hand: set[Card]) -> bool:
    return any(
        Card(suit, Rank.KING) in hand and Card(suit, Rank.QUEEN) in hand
        for suit in {c.suit for c in hand}
    )


def _third_without_marriage(hands: list[set[Card]], stock: set[Card], forehand: int) -> int | None:
    """The third bidder, without a marriage, behind a second who has one."""
    second, third = (forehand + 1) % 3, (forehand + 2) % 3
    nines = len(hands[third] & NINES)
    return third if _married(hands[second]) and not _married(hands[third]) and nines < 4 else None


async def test_a_bidder_who_may_only_pass_is_told_why(make_bot: Callable[..., Bot]) -> None:
    """After 100 and 125, the third bidder holds no marriage and may only pass: his
    hand says the bid to beat and that above 120 a marriage is needed, in place of a
    lone "Pass" button that says nothing.  The second, who holds one, is offered bids
    above 120 and told no such limit."""
    async with _dealt(make_bot, _third_without_marriage) as (bot, table, players, third):
        tid = table.id
        by_seat = {table.seat_of(p.key): p for p in players}
        opener = await _move(bot, table, by_seat, Bid(value=100))
        married = bot.svc.hand(tid, by_seat[table.to_act()].key)  # his bids go on
        assert married is not None
        assert f"Highest bid: 100, by {opener}" in married.message.text.splitlines()
        assert "Above 120 only" not in married.message.text
        await _move(bot, table, by_seat, Bid(value=125))
        assert table.to_act() == third
        hand = bot.svc.hand(tid, by_seat[third].key)
        assert hand is not None
        lines = hand.message.text.splitlines()
        second = by_seat[(third + 2) % 3].user.name
        assert f"Highest bid: 125, by {second}" in lines
        assert "Above 120 only with a marriage (King and Queen of one suit) in hand." in lines
        assert [b.label for b in hand.message.all_buttons()] == ["Pass"]


async def test_blind_bids_are_marked_and_looking_is_said(bot: Bot) -> None:
    """With blind bidding a bid made before its bidder looked counts double: the bids
    line marks it, and says a look as what it is, not as the button's words."""
    players = [Player(bot.fc, u) for u in users(3)]
    tid = await open_table(bot, "tausend", players, options={"tausend.blind_bid": True})
    table = bot.svc.tables[tid]
    by_seat = {table.seat_of(p.key): p for p in players}
    opener = await _move(bot, table, by_seat, Bid(value=100))
    looker = await _move(bot, table, by_seat, Look())
    view = bot.svc.table(tid)
    assert view is not None
    [bids] = [ln for ln in view.message.text.splitlines() if ln.startswith("Bids:")]
    assert bids == f"Bids: {opener}: 100 blind · {looker}: looked at the cards"


async def test_a_hand_says_what_a_blind_bid_is_and_what_it_won(bot: Bot) -> None:
    """On Telegram the table is in the group and the hand in the private chat: the
    hand itself says that a bid before looking is blind and counts double, marks the
    highest bid blind, and the winner's contract shows the ×2 while he gives, raises
    and plays."""
    players = [Player(bot.fc, u) for u in users(3)]
    tid = await open_table(bot, "tausend", players, options={"tausend.blind_bid": True})
    table = bot.svc.tables[tid]
    by_seat = {table.seat_of(p.key): p for p in players}

    def lines_of(seat: int | None) -> list[str]:
        hand = bot.svc.hand(tid, by_seat[seat].key, "en")
        assert hand is not None
        return hand.message.text.splitlines()

    blind_line = "Your cards are still face down: a bid before you look is blind and counts double (up to 120)."
    assert blind_line in lines_of(table.to_act())
    opener = await _move(bot, table, by_seat, Bid(value=100))
    seat = table.to_act()
    lines = lines_of(seat)
    assert f"Highest bid: 100 blind, by {opener}" in lines and blind_line in lines
    await _move(bot, table, by_seat, Look())
    assert blind_line not in lines_of(seat)  # he looked: his bids are plain ones
    await _move(bot, table, by_seat, Pass())
    await _move(bot, table, by_seat, Pass())
    declarer = table.to_act()
    assert by_seat[declarer].user.name == opener
    contract = [ln for ln in lines_of(declarer) if ln.startswith("Contract:")]
    assert contract == [f"Contract: Bid 100 by {opener} (×2)"], lines_of(declarer)
    german = bot.svc.hand(tid, by_seat[declarer].key, "de")
    assert german is not None and "(×2)" in german.message.text


async def test_the_golden_round_is_named_at_the_table(bot: Bot) -> None:
    """The golden round's deals count double without a bid anybody made: the contract
    line says why ("Bid 120 (golden round) by …")."""
    players = [Player(bot.fc, u) for u in users(3)]
    tid = await open_table(bot, "tausend", players, options={"tausend.golden_round": True})
    view = bot.svc.table(tid)
    assert view is not None
    text = view.message.text
    assert "Contract: Bid 120 (golden round) by" in text, text
    german = bot.svc.table(tid, "de")
    assert german is not None and "(goldene Runde)" in german.message.text


def _no_marriages(hands: list[set[Card]], stock: set[Card], forehand: int) -> int | None:
    """Forehand, when neither his cards with the stock's nor the second bidder's hold
    a marriage, and the third bidder's do."""
    second, third = (forehand + 1) % 3, (forehand + 2) % 3
    if _married(hands[forehand] | stock) or _married(hands[second]):
        return None
    return forehand if _married(hands[third]) else None


async def test_a_bid_or_raise_without_a_marriage_says_where_it_stops(
    make_bot: Callable[..., Bot],
) -> None:
    """Without a marriage the bids stop at 120 and so do the raises after the stock:
    a hand offered no more than that says why, beside the bid to beat while bidding;
    one with a marriage is offered more and told of no limit, also over a bid of 120.
    The declarer raising has no bid to beat, and his contract, counted single, is not
    repeated in his hand (a doubled one is, as the table says it)."""
    async with _dealt(make_bot, _no_marriages) as (bot, table, players, forehand):
        tid = table.id
        by_seat = {table.seat_of(p.key): p for p in players}
        rule = "Above 120 only with a marriage (King and Queen of one suit) in hand."

        def lines() -> list[str]:
            hand = bot.svc.hand(tid, by_seat[table.to_act()].key)
            assert hand is not None
            return hand.message.text.splitlines()

        opener = await _move(bot, table, by_seat, Bid(value=100))
        assert f"Highest bid: 100, by {opener}" in lines() and rule in lines()
        await _move(bot, table, by_seat, Pass())
        assert table.to_act() == 0  # the married third, the first seat (no default name)
        assert f"Highest bid: 100, by {opener}" in lines() and rule not in lines()
        third = await _move(bot, table, by_seat, Bid(value=105))
        assert f"Highest bid: 105, by {third}" in lines() and rule in lines()
        await _move(bot, table, by_seat, Bid(value=120))
        assert f"Highest bid: 120, by {opener}" in lines() and rule not in lines()
        await _move(bot, table, by_seat, Pass())
        assert table.deal is not None and table.to_act() == forehand
        while P.view(table.deal, None).phase != "raise":  # his two gifts
            code = table.deal.legal()[0]
            user = by_seat[table.to_act()].user
            assert (await bot.svc.act(user, game_action(tid, table.version, code))).ok
        assert table.to_act() == forehand
        assert rule in lines()
        assert not [x for x in lines() if x.startswith(("Highest bid", "Contract:"))], lines()
