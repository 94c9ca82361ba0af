"""What a player's private hand message tells them beyond their cards."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from bot.i18n import action_label, card_label, cards_text, t
from bot.option_names import OPTION_NAME
from bot.payload import decode, table_verb
from bot.rules_text import OPTION_TEXT, rules_summary
from bot.service import TableUpdate
from bot.table import Table
from bot.views import Style, hand_view, table_view
from bot.views.hand import hand_title
from engine.actions import DISCARD, GIVE, Bid, CloseTalon, Double, Pass, PlayCard, Redeal
from engine.actions import decode as decode_action
from engine.cards import CARDS, Card
from engine.games import available, game
from engine.options import options_to_json

from .fakechat import CHAT, Bot, open_table, to_act, until_discard_menu, until_gift, users
from .test_expert_views import prefer
from .test_result_texts import _deal, _move, _table
from .test_table_reducer import _act


@pytest.mark.parametrize(
    ("game_id", "options", "n"), [("dreier", None, 3), ("tausend", {"tausend.players": 2}, 2)]
)
async def test_declarer_is_reminded_what_he_laid_away(
    make_bot: Callable[..., Bot], game_id: str, options: dict[str, object] | None, n: int
) -> None:
    """Laid-away cards are out of the hand but still the declarer's knowledge: his own
    hand message lists them; nobody else's message and no table message does."""
    bot = await make_bot().start()
    try:
        found = await until_discard_menu(bot, game_id, options, n)
        assert found is not None, "no discard came up in 20 tables"
        tid, declarer = found
        while True:
            hv = declarer.hand(tid)
            assert hv is not None and hv.view is not None
            laid = dict(hv.view.extra).get("discarded")
            if laid:
                break
            out = await declarer.take_turn(tid)
            assert out is not None and out.ok, out
        assert isinstance(laid, tuple) and all(isinstance(c, Card) for c in laid)
        line = next(x for x in hv.message.text.splitlines() if x.startswith("You laid away:"))
        assert all(card_label(c) in line for c in laid)
        for (table_id, key), other in bot.fc.hands.items():
            if table_id == tid and key != declarer.key:
                assert "laid away" not in other.message.text
        assert "laid away" not in bot.fc.tables[tid].message.text
    finally:
        await bot.stop()


async def test_the_dreier_declarer_alone_sees_the_talon_he_took(
    make_bot: Callable[..., Bot],
) -> None:
    """Choosing what to lay away, the declarer looks at the talon he took: his hand
    lists its cards; no other hand does, and neither does the table."""
    bot = await make_bot().start()
    try:
        found = await until_discard_menu(bot, "dreier", None, 3)
        assert found is not None, "no discard came up in 20 tables"
        tid, declarer = found
        hv = declarer.hand(tid)
        assert hv is not None and hv.view is not None and hv.view.talon_cards
        line = f"Talon: {cards_text(hv.view.talon_cards)}"
        assert line in hv.message.text.splitlines(), hv.message.text
        others = [v for (t, key), v in bot.fc.hands.items() if t == tid and key != declarer.key]
        assert len(others) == 2
        for text in [bot.fc.tables[tid].message.text, *(v.message.text for v in others)]:
            assert not any(x.startswith("Talon: ") for x in text.splitlines()), text
    finally:
        await bot.stop()


async def test_thousand_for_two_names_its_own_step_on_the_table(
    make_bot: Callable[..., Bot],
) -> None:
    """The two-player declarer lays 3 cards on the face-down stock: the table says so
    in Thousand's words, not the Dreier talon's ("take it and discard")."""
    bot = await make_bot().start()
    try:
        found = await until_discard_menu(bot, "tausend", {"tausend.players": 2}, 2)
        assert found is not None, "no discard came up in 20 tables"
        tid, declarer = found
        text = bot.fc.tables[tid].message.text
        assert f"Laying away — {declarer.user.name} to lay 3 cards on the face-down stock" in text
        assert "take it and discard" not in text
    finally:
        await bot.stop()


@pytest.mark.parametrize(
    ("game_id", "options", "n", "picks"),
    [("dreier", None, 3, 2), ("tausend", {"tausend.players": 2}, 2, 3)],
)
async def test_a_discard_offers_a_raise_only_where_there_is_one(
    make_bot: Callable[..., Bot],
    game_id: str,
    options: dict[str, object] | None,
    n: int,
    picks: int,
) -> None:
    """Once the cards are picked one by one (each step naming those picked so far),
    the hand names them all and asks to keep the contract or raise it where a raise
    is among the buttons (Dreier), else to confirm them: Thousand for two lays 3
    cards away and raises later, in a step of its own, never "keep or raise".  "Pick
    again" stays to the end."""
    bot = await make_bot().start()
    try:
        found = await until_discard_menu(bot, game_id, options, n)
        assert found is not None, "no discard came up in 20 tables"
        tid, declarer = found
        hv = declarer.hand(tid)
        assert hv is not None
        message = hv.message
        picked: list[str] = []
        for _ in range(picks):
            if picked:
                assert f"(so far: {' '.join(picked)})." in message.text, message.text
            pick = next(
                b
                for b in message.all_buttons()
                if (p := decode(b.payload)).verb == "dp" and p.arg  # a card, not "again"
            )
            picked.append(pick.label.removeprefix("Discard ").removesuffix("…"))
            out = await declarer.press(pick)
            assert out.ok and out.hand is not None, out
            message = out.hand.message
        choices = [b for b in message.all_buttons() if decode(b.payload).is_game_action]
        assert game_id == "dreier" or len(choices) == 1, [b.label for b in choices]
        ask = "Discard {}: keep the contract or raise." if len(choices) > 1 else "Discard {}?"
        asked = [x for x in message.text.splitlines() if x.startswith("Discard ")]
        assert asked == [ask.format(" ".join(picked))], message.text
        # a mis-tap among them can still be undone
        assert message.all_buttons()[-1].label == "↺ Pick again", message.buttons
    finally:
        await bot.stop()


async def test_a_thousand_discard_keeps_a_redeal_claim_beside_the_first_pick(
    bot: Bot,
) -> None:
    """A declarer of Thousand for two with two 9s in the stock may claim a redeal
    instead of laying cards away (RULES.md §5): the first screen of his discard
    offers it beside the cards; once a card is picked, only cards and "Pick again"."""
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "tausend", players, options={"tausend.players": 2})
    firsts = redeals = 0
    for _ in range(5000):
        if redeals or tid not in bot.svc.tables:
            break
        mover, hv = to_act(bot, tid, players)
        picks = [b for b in hv.message.all_buttons() if decode(b.payload).verb == "dp"]
        if picks:
            firsts += 1
            deal = bot.svc.tables[tid].deal
            assert deal is not None
            other = {c for c in deal.legal() if c < DISCARD}
            shown = {decode(b.payload).arg for b in hv.message.all_buttons() if b not in picks}
            assert shown == other, (shown, other)
            redeals += bool(other)
            picked = await mover.press(picks[0])
            assert picked.ok and picked.hand is not None
            after = picked.hand.message.all_buttons()
            assert {decode(b.payload).verb for b in after} == {"dp"}, [b.label for b in after]
        await mover.take_turn(tid)
    assert redeals, firsts


@pytest.mark.parametrize("giver", [0, 2])
async def test_thousand_receiver_is_told_which_card_the_declarer_gave(
    make_bot: Callable[..., Bot], giver: int
) -> None:
    """Only the receiver learns the card the declarer handed him: his hand message
    names it and the giver, whichever seat the giver sits in (the first one too); the
    other defender's message and the table's do not."""
    bot = await make_bot().start()
    try:
        bids, passes = prefer(lambda a: isinstance(a, Bid)), prefer(lambda a: a == Pass())
        players = [bot.player(u, bids if i == giver else passes) for i, u in enumerate(users(3))]
        tid = await open_table(bot, "tausend", players)
        gave: dict[str, Card] = {}
        while len(gave) < 2:
            assert tid in bot.svc.tables, "the deal ended before both gifts"
            for pl in players:
                hv = pl.hand(tid)
                assert hv is not None and hv.view is not None
                got = dict(hv.view.extra).get("received")
                if isinstance(got, Card):
                    gave[pl.key] = got
            if len(gave) < 2:
                assert any([await p.take_turn(tid) is not None for p in players])
        declarer = next(p for p in players if p.key not in gave)
        assert declarer is players[giver]
        for pl in players:
            hv = pl.hand(tid)
            assert hv is not None
            lines = [x for x in hv.message.text.splitlines() if " gave you: " in x]
            if pl is declarer:
                assert lines == []
                continue
            (line,) = lines
            assert line.startswith(f"{declarer.user.name} gave you: ")
            assert card_label(gave[pl.key]) in line
            other = next(c for k, c in gave.items() if k != pl.key)
            assert card_label(other) not in line
        assert " gave you: " not in bot.fc.tables[tid].message.text
    finally:
        await bot.stop()


def test_german_words_for_german_readers() -> None:
    """Austrian French-suited cards print Dame and Bube as D and B; Bauernschnapsen
    doubles with Kontra (Dreier's word is Spritzen); a Thousand marriage is no
    Zwanziger or Vierziger."""
    assert (
        card_label(Card.parse("QH")[0], "de") == "D♥"
        and card_label(Card.parse("JS")[0], "de") == "B♠"
    )
    assert card_label(Card.parse("QH")[0], "en") == "Q♥"
    assert action_label(Double(), "de", game="bauern") == "Kontra"
    assert action_label(Double(), "de", game="dreier") == "Spritzen"
    # the answers to a double have their own words (seeds: Retour, then Re)
    assert [action_label(Double(), "de", game="dreier", level=n) for n in (2, 3)] == [
        "Retour",
        "Re",
    ]
    assert action_label(Double(), "en", game="dreier", level=2) == "Redouble"
    assert action_label(Double(), "de", game="bauern", level=3) == "Subkontra"
    # Thousand's redeal is claimed for the nines (four in a hand, two in the stock)
    assert action_label(Redeal(), "de", game="tausend") == "Neu geben (die Neuner)"
    assert action_label(Redeal(), "en", game="dreier") == "Redeal"
    queen = PlayCard(Card.parse("QC")[0], marriage=True)
    # Thousand's marriages are worth their suit's value: Clubs 60, Hearts 100
    assert action_label(queen, "de", game="tausend") == "D♣ + Paar ansagen (60)"
    king_h = PlayCard(Card.parse("KH")[0], marriage=True)
    assert action_label(king_h, "en", game="tausend") == "K♥ + marriage (100)"
    assert action_label(queen, "de", game="zweier") == "D♣ + Zwanziger/Vierziger"
    # with manual claims a marriage may be declared and claimed in one press
    out = PlayCard(Card.parse("QC")[0], marriage=True, claim=True)
    assert action_label(out, "de", game="zweier") == "D♣ + 20/40 und aus (66)"
    assert action_label(out, "en", game="bauern") == "Q♣ + marriage, claim 66"
    # with the trump known the button says which marriage it is
    clubs, hearts = queen.card.suit, Card.parse("QH")[0].suit
    assert action_label(queen, "de", game="zweier", trump=clubs) == "D♣ + Vierziger"
    assert action_label(queen, "de", game="dreier", trump=hearts) == "D♣ + Zwanziger"
    assert action_label(queen, "en", game="bauern", trump=hearts) == "Q♣ + marriage (20)"
    assert action_label(out, "en", game="zweier", trump=clubs) == "Q♣ + marriage 40, claim 66"
    assert action_label(queen, "en", game="zweier", trump=clubs) == "Q♣ + trump marriage (40)"
    assert action_label(queen, "de", game="tausend", trump=hearts) == "D♣ + Paar ansagen (60)"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_rule_option_is_described_for_players(lang: str) -> None:
    """The rules of a table list its options in words, not as ids (which are for
    admins' /settings): every option of every game has its line in both languages."""
    for game_id in available():
        spec = game(game_id)
        options = options_to_json(spec.parse_options({}), game_id)
        assert set(options) <= set(OPTION_TEXT[lang]), game_id
        assert set(options) <= set(OPTION_NAME[lang]), game_id  # the lobby's words
        text = rules_summary(game_id, lang, options)
        for key in options:
            assert key not in text, (game_id, key)
    dreier = options_to_json(game("dreier").parse_options({}), "dreier")
    text = rules_summary("dreier", lang, dreier)
    yes, no = ("on", "off") if lang == "en" else ("an", "aus")  # as /settings shows them
    assert f"• {OPTION_TEXT[lang]['dreier.without_talon']}: {yes}" in text
    assert f"• {OPTION_TEXT[lang]['dreier.plauderer']}: {no}" in text


@pytest.mark.parametrize("n", [2, 3])
async def test_thousand_shows_the_stock_only_while_the_declarer_deals_with_it(
    make_bot: Callable[..., Bot], n: int
) -> None:
    """The stock is turned up for everyone when the declarer takes it; once he has
    given its cards away (two players: laid three away) it is part of his hand, and a
    "stock" line for the rest of the deal would only mislead."""
    bot = await make_bot().start()
    try:
        players = [bot.player(u) for u in users(n)]
        tid = await open_table(bot, "tausend", players, options={"tausend.players": n})
        seen: list[tuple[str, bool]] = []  # (phase, stock shown on the table or a hand)
        on_table: set[str] = set()  # phases whose channel picture itself shows it

        def watch(u: TableUpdate) -> None:
            table = bot.svc.tables.get(tid)
            if u.kind not in ("started", "action") or table is None or table.deal is None:
                return
            texts = [bot.fc.tables[tid].message.text]
            texts += [hv.message.text for (t, _), hv in bot.fc.hands.items() if t == tid]
            shown = any("Stock: " in text for text in texts)
            phase = table.deal.view(None).phase
            seen.append((phase, shown))
            if "Stock: " in texts[0]:
                on_table.add(phase)

        bot.fc.on_update.append(watch)
        table = bot.svc.tables[tid]
        while tid in bot.svc.tables and len(table.deals) < 4:
            assert any([await p.take_turn(tid) is not None for p in players])
        with_stock = {phase for phase, shown in seen if shown}
        assert with_stock == {"give" if n == 3 else "discard"}, seen
        # turned up for all: the group sees it too, not only the declarer's hand
        assert on_table == with_stock, (on_table, seen)
        assert ("play", False) in seen
    finally:
        await bot.stop()


async def test_claims_have_a_row_of_their_own(bot: Bot) -> None:
    """With manual claims "Claim 66" (and a marriage claimed with it) is never on a row
    with the cards: a mis-tap beside a card costs game points."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert], options={"auto_claim": False})
    seen = 0
    for _ in range(40):
        for p in (anna, bert):
            hv = p.hand(tid)
            if hv is None or not hv.your_turn:
                continue
            rows = [[b.label for b in row] for row in hv.message.buttons]
            claims = [i for i, row in enumerate(rows) if any("66" in x for x in row)]
            for i in claims:
                assert not any(len(x) <= 3 for x in rows[i]), rows  # no card ("K♥", "10♣")
            seen += bool(claims)
            await p.take_turn(tid)
        if tid not in bot.svc.tables:
            break
    assert seen > 3


async def test_a_zweier_hand_shows_the_face_up_trump_and_the_talon(bot: Bot) -> None:
    """Whether to exchange the trump Jack or to close is decided from the hand: it
    shows the card lying face up and the talon, as the table does."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    table = bot.svc.table(tid)
    assert table is not None
    shown = [
        line for line in table.message.text.splitlines() if line.startswith(("Trumps:", "Talon:"))
    ]
    assert len(shown) == 2 and "Face-up trump: " in shown[0], table.message.text
    for pl in (a, b):
        hand = bot.svc.hand(tid, pl.key)
        assert hand is not None
        for line in shown:  # the same public lines, no other seat's card
            assert line in hand.message.text.splitlines(), hand.message.text


async def test_a_hand_shows_the_trick_on_the_table(bot: Bot) -> None:
    """Whoever answers a lead decides from his hand (on Telegram the table is in
    another chat): it shows the card led and who led it, as the channel's table does,
    and neither shows a trick line before a card is down."""
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    texts = [bot.fc.tables[tid].message.text]  # the channel's table, and each hand
    texts += [hand.message.text for pl in players if (hand := pl.hand(tid)) is not None]
    assert len(texts) == 3
    for text in texts:
        assert not any(x.startswith("Trick: ") for x in text.splitlines()), text
    table = bot.svc.tables[tid]
    assert table.deal is not None and table.deal_log is not None
    while not table.deal.view(None).trick:  # (an exchange or a close is no lead)
        assert any([await p.take_turn(tid) is not None for p in players])
    [(seat, card)] = table.deal.view(None).trick
    line = f"Trick: {players[table.deal_log.spec.seats[seat]].user.name} {card_label(card)}"
    texts = [bot.fc.tables[tid].message.text]
    texts += [hand.message.text for pl in players if (hand := pl.hand(tid)) is not None]
    assert len(texts) == 3
    for text in texts:
        assert line in text.splitlines(), text


@pytest.mark.parametrize(("game_id", "n"), [("dreier", 3), ("bauern", 4)])
async def test_a_waiting_hand_keeps_the_contract_in_view(bot: Bot, game_id: str, n: int) -> None:
    """Once Dreier's or Bauern's bidding is over, a hand says what the deal is played
    for (and its doubling) while he waits too, not only on his turn: on Telegram the
    group's table is in another chat."""
    players = [bot.player(u) for u in users(n)]
    tid = await open_table(bot, game_id, players)
    for _ in range(200):
        waiting = [
            hv
            for p in players
            if (hv := p.hand(tid)) is not None
            and hv.view is not None
            and not hv.your_turn
            and hv.view.phase not in ("bidding", "trump")
            and hv.view.to_act is not None
        ]
        if waiting:
            break
        for p in players:
            await p.take_turn(tid)
    assert waiting, "no waiting hand after the bidding"
    for hv in waiting:
        text = hv.message.text
        assert "Contract: " in text and "Waiting for " in text, text


def test_a_thousand_hand_names_a_doubled_contract_on_its_turn_only() -> None:
    """Thousand's hand names the contract where it is not the bid the auction showed
    (the golden round doubles it), as part of what he decides on his turn; while he
    waits it says whom he waits for, and the contract line Dreier and Bauern keep in
    a waiting hand stays out of his."""
    table, rng = _table("tausend", 3, {"tausend.golden_round": True}), random.Random(1)
    _deal(table, 0)
    keys = [s.user for s in table.seats if s is not None and s.user is not None]
    seen = {True: 0, False: 0}
    while table.deal is not None and table.to_act() is not None:
        for key in keys:
            hv = hand_view(table, key, Style())
            assert hv is not None and hv.view is not None
            if hv.view.phase == "bidding" or hv.view.sitting_out == hv.view.seat:
                continue
            assert ("Contract: " in hv.message.text) == hv.your_turn, hv.message.text
            seen[hv.your_turn] += 1
        _move(table, rng)
    assert seen[True] and seen[False], seen


async def test_a_bid_without_the_talon_to_beat_says_how_bids_rank(bot: Bot) -> None:
    """Over "Bauernschnapser without the talon (13)" the hand offers "Kontraschnapser
    (12)": it says why a bid worth fewer points is a higher one."""
    seen: dict[bool, str] = {}
    for _ in range(20):
        players = [bot.player(u) for u in users(3)]
        tid = await open_table(bot, "dreier", players, options={"dreier.without_talon": True})
        for _ in range(12):
            for p in players:
                hv = p.hand(tid)
                if hv is not None and hv.your_turn and "Highest bid: " in hv.message.text:
                    high = next(x for x in hv.message.text.splitlines() if "Highest bid: " in x)
                    labels = [b.label for b in hv.message.all_buttons()]
                    if labels == ["Pass"]:  # nothing to outbid it with: no word of ranks
                        assert "Bids rank by contract" not in hv.message.text
                        continue
                    seen["without the talon" in high] = hv.message.text
                await p.take_turn(tid)
        for p in players[:2]:  # a vote of two of three closes it
            await bot.svc.abort(CHAT, p.user)
        assert tid not in bot.svc.tables
        if len(seen) == 2:
            break
    assert set(seen) == {True, False}, seen
    assert "Bids rank by contract: “no talon” beats only" in seen[True]
    assert "Bids rank by contract" not in seen[False]


async def test_thousands_forced_opening_and_gifts_say_why(bot: Bot) -> None:
    """A lone "Bid 100" is the rule (forehand may not pass it), and twenty "Give …"
    buttons need saying that one card goes to each of the others."""
    players = [bot.player(u) for u in users(3)]
    tid = await open_table(bot, "tausend", players)
    said: dict[str, str] = {}
    for _ in range(60):
        for p in players:
            hv = p.hand(tid)
            if hv is None or not hv.your_turn or hv.view is None:
                continue
            labels = [b.label for b in hv.message.all_buttons()]
            if labels == ["Bid 100"]:
                said["open"] = hv.message.text
            elif hv.view.phase == "give":
                said["give"] = hv.message.text
            elif hv.view.phase == "bidding":
                assert "may not pass" not in hv.message.text, hv.message.text
            await p.take_turn(tid)
        if len(said) == 2:
            break
    assert "You open the bidding, and the opening is 100: you may not pass it." in said["open"]
    assert "Give one card to each of the others" in said["give"]


async def test_thousands_gift_is_a_card_then_who_gets_it(bot: Bot) -> None:
    """The declarer's first gift offers his ten cards, then the two others for the
    card picked (not twenty "Give A♥ to …" buttons); "Pick again" goes back, a card
    he does not hold is refused. His second gift has one player left: its buttons
    give each card to him at once."""
    players = [bot.player(u) for u in users(3)]
    tid = await open_table(bot, "tausend", players)
    giver = await until_gift(bot, tid, players, 60)
    hv = giver.hand(tid)
    assert hv is not None and hv.view is not None
    g = players.index(giver)  # the others as they sit after him
    others = [p.user.name for p in players[g + 1 :] + players[:g]]
    buttons = hv.message.all_buttons()
    assert len(buttons) == 10 == len(hv.view.hand), [b.label for b in buttons]
    assert all(b.label.startswith("Give ") and b.label.endswith("…") for b in buttons)
    assert {decode(b.payload).verb for b in buttons} == {"gv"}
    first = buttons[0]
    card = first.label.removeprefix("Give ").removesuffix("…")

    picked = await giver.press(first)
    assert picked.ok and picked.hand is not None, picked
    assert f"Who gets {card}?" in picked.hand.message.text
    labels = [b.label for b in picked.hand.message.all_buttons()]
    assert labels == [f"Give {card} to {n}" for n in others] + ["↺ Pick again"], labels
    again = await giver.press(picked.hand.message.all_buttons()[-1])
    assert again.ok and again.hand is not None
    assert len(again.hand.message.all_buttons()) == 10

    held = {c.index for c in hv.view.hand}
    foreign = next(i for i in range(24) if i not in held)
    forged = await bot.svc.act(
        giver.user, table_verb(tid, bot.svc.tables[tid].version, "gv", foreign + 1)
    )
    assert not forged.ok and forged.code == "malformed", forged

    gift = await giver.press(picked.hand.message.all_buttons()[0])
    assert gift.ok, gift
    hv = giver.hand(tid)
    assert hv is not None and hv.your_turn
    labels = [b.label for b in hv.message.all_buttons()]
    assert len(labels) == 9 and all(x.endswith(f" to {others[1]}") for x in labels), labels
    assert f"Give {card} to" not in " ".join(labels)


async def test_every_thousand_giver_picks_a_card_then_the_others_in_seating_order(
    bot: Bot,
) -> None:
    """Whichever seat gives (and whatever he holds, the deck's first card too), his
    first gift starts with his cards, beside them his other choice if he has one (a
    redeal claimed for two 9s in the stock), and a card picked offers the two others
    as they sit after him: the one to his left first, as around a card table."""
    players = [bot.player(u) for u in users(3)]
    tid = await open_table(bot, "tausend", players)
    givers: set[int] = set()
    first_card = False  # a giver held CARDS[0] (a menu state of 0 is "none picked")
    redeal = False
    for _ in range(5000):
        if (givers == {0, 1, 2} and first_card and redeal) or tid not in bot.svc.tables:
            break
        giver, hv = to_act(bot, tid, players)
        assert hv.view is not None
        buttons = hv.message.all_buttons()
        picks = [b for b in buttons if decode(b.payload).verb == "gv"]
        if hv.view.phase == "give" and picks:
            g = players.index(giver)
            givers.add(g)
            first_card |= CARDS[0] in hv.view.hand
            assert len(picks) == len(hv.view.hand), [b.label for b in buttons]
            deal = bot.svc.tables[tid].deal
            assert deal is not None
            other = {c for c in deal.legal() if not GIVE <= c < DISCARD}
            assert {decode(b.payload).arg for b in buttons if b not in picks} == other
            redeal |= bool(other)
            picked = await giver.press(picks[0])
            assert picked.ok and picked.hand is not None, picked
            card = picks[0].label.removeprefix("Give ").removesuffix("…")
            others = [p.user.name for p in players[g + 1 :] + players[:g]]
            labels = [b.label for b in picked.hand.message.all_buttons()]
            assert labels == [f"Give {card} to {n}" for n in others] + ["↺ Pick again"]
        await giver.take_turn(tid)
    assert givers == {0, 1, 2} and first_card and redeal, (givers, first_card, redeal)


@pytest.mark.parametrize(("game_id", "n"), [("dreier", 3), ("bauern", 4)])
async def test_dreiers_trump_choice_says_what_its_buttons_do(
    bot: Bot, game_id: str, n: int
) -> None:
    """ "Turn up card 4 unseen" beside "Trumps: ♥ Hearts": Dreier's forehand's hand
    says how trumps are named.  Bauern's forehand names them too, but his Aufschlagen
    turns up one of two unseen cards, not of three: he is not told Dreier's rule."""
    players = [bot.player(u) for u in users(n)]
    tid = await open_table(bot, game_id, players)
    [hv] = [h for p in players if (h := p.hand(tid)) is not None and h.your_turn]
    assert hv.view is not None and hv.view.phase == "trump"
    said = "Name trumps: a suit of the three cards you see" in hv.message.text
    assert said == (game_id == "dreier"), hv.message.text
    others = [p.hand(tid) for p in players]
    assert not [h for h in others if h and not h.your_turn and "Name trumps" in h.message.text]


PLAYING_OUT = {
    "en": "Your time ran out: the computer is finishing this turn for you.",
    "de": "Deine Zeit war um: der Computer spielt diesen Zug für dich zu Ende.",
}


def _closed_for_him(by: str = "t") -> tuple[Table, list[str], int]:
    """A Zweier table whose leader's time ran out, and the computer closed the talon
    for him (`by` "t"): a move that keeps the turn, whose card it plays after
    `ai_delay`. The table, its users by seat, and his seat (still to act)."""
    table = _table("zweier", 2)
    _deal(table, 0)
    close = next(c for c in table.legal_codes() if isinstance(decode_action(c), CloseTalon))
    _act(table, by, close)
    keys = [s.user for s in table.seats if s is not None and s.user is not None]
    seat = table.to_act()
    assert seat is not None
    return table, keys, seat


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_hand_says_the_computer_is_finishing_his_timed_out_turn(lang: str) -> None:
    """He comes back to his phone between the computer's close for him and its card:
    his hand says his time ran out and the computer is finishing the turn, above his
    turn and his buttons, which still play it himself. Nobody else's hand says so, and
    the channel's table shows nothing it would not show after his own close."""
    table, keys, seat = _closed_for_him()
    assert table.playing_out == seat
    style = Style(lang)
    hv = hand_view(table, keys[seat], style)
    assert hv is not None and hv.your_turn
    text = hv.message.text.splitlines()
    said = [i for i, x in enumerate(text) if x.startswith(PLAYING_OUT[lang])]
    assert said and said[0] < text.index(t(lang, "hand.your_turn")), hv.message.text
    assert any(decode(b.payload).is_game_action for b in hv.message.all_buttons())
    other = hand_view(table, keys[1 - seat], style)
    assert other is not None and PLAYING_OUT[lang] not in other.message.text
    own, _, _ = _closed_for_him("p")  # the same close, pressed by him
    assert table_view(table, style).message == table_view(own, style).message


def test_the_play_out_line_goes_once_he_is_back_or_the_turn_is_over() -> None:
    """The line is true only while the computer is about to move for him: it goes when
    he takes the turn back (his own press, or a "back"), and when the computer has
    played the card that ends it. When that missed turn also took his seat, his hand
    says the computer plays his seat now, as for any seat it took, and not this."""
    line = PLAYING_OUT["en"]
    for end in ("p", "back", "o"):
        table, keys, seat = _closed_for_him()
        hv = hand_view(table, keys[seat], Style())
        assert hv is not None and line in hv.message.text
        if end == "back":
            table.apply({"k": "back", "seat": seat})
        else:
            _act(table, end)
        assert table.playing_out is None
        hv = hand_view(table, keys[seat], Style())
        assert hv is not None
        assert line not in hv.message.text, (end, hv.message.text)
        assert hv.your_turn == (end == "back"), end
    table, keys, seat = _closed_for_him()
    table.apply({"k": "replace", "seat": seat, "level": "random"})
    hv = hand_view(table, keys[seat], Style())
    assert hv is not None and line not in hv.message.text
    assert t("en", "hand.computer_plays", button=t("en", "button.take_back")) in hv.message.text


def test_another_seat_taken_back_leaves_his_timed_out_turn_to_the_computer() -> None:
    """The other player, whose seat the computer held, takes it back while the
    computer is finishing his timed-out turn: that turn is still the computer's to
    finish, on no clock, not handed back to him with a clock of its own to be missed
    again; his hand still says so."""
    table, keys, seat = _closed_for_him()
    other = 1 - seat
    table.apply({"k": "replace", "seat": other, "level": "random"})
    table.apply({"k": "back", "seat": other})
    assert table.computer_move(seat) == "out"
    hv = hand_view(table, keys[seat], Style())
    assert hv is not None and PLAYING_OUT["en"] in hv.message.text


def test_a_hand_names_the_cards_it_saw_go_into_the_other_hand() -> None:
    """A card both players saw go into a hand (the face-up trump taken by an exchange,
    a marriage's partner) is what the other decides against: his hand says who holds
    it, "Anna holds: J♥", for as long as she does, whichever seat she sits in.  Her
    own hand lists it among her cards, not as something known of another."""
    style = Style()
    holders: set[int] = set()
    for k in range(20):
        table, rng = _table("zweier", 2), random.Random(k)
        _deal(table, k)
        keys = [s.user for s in table.seats if s is not None and s.user is not None]
        names = [s.name for s in table.seats if s is not None]
        while table.deal is not None and table.to_act() is not None:
            seen = table.deal.view(None).known
            if seen:
                holder = seen[0][0]
                cards = [c for _, c in seen]
                line = t("en", "hand.known", name=names[holder], cards=cards_text(cards))
                other = hand_view(table, keys[1 - holder], style)
                assert other is not None
                assert line in other.message.text.splitlines(), other.message.text
                own = hand_view(table, keys[holder], style)
                assert own is not None
                assert " holds: " not in own.message.text, own.message.text
                holders.add(holder)
            _move(table, rng)
        if holders == {0, 1}:
            break
    assert holders == {0, 1}, "no card went into each seat's hand in sight of both"


def test_a_waiting_hand_names_the_player_it_waits_for() -> None:
    """The hand of a player whose turn it is not says whom he waits for, by name,
    whichever seat that is (not the first seat's player for everyone)."""
    table, rng = _table("zweier", 2), random.Random(3)
    _deal(table, 0)
    keys = [s.user for s in table.seats if s is not None and s.user is not None]
    names = [s.name for s in table.seats if s is not None]
    waited_for = set()
    for _ in range(30):
        seat = table.to_act()
        assert seat is not None
        hv = hand_view(table, keys[1 - seat], Style())
        assert hv is not None and not hv.your_turn
        assert t("en", "hand.wait", name=names[seat]) in hv.message.text.splitlines()
        waited_for.add(seat)
        if waited_for == {0, 1}:
            break
        _move(table, rng)
    assert waited_for == {0, 1}


async def test_a_hand_asked_for_in_a_lobby_is_its_title_alone(bot: Bot) -> None:
    """Before the deal (a lobby, or its last picture when it closes) a seated player's
    hand is the line naming its table and game: no cards, no turn, no buttons."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b], start=False)
    table = bot.svc.tables[tid]
    for pl in (a, b):
        hv = bot.svc.hand(tid, pl.key)
        assert hv is not None and not hv.your_turn and hv.view is None
        assert hv.message.text == hand_title(table, "en")
        assert hv.message.all_buttons() == []
