"""Each rule option, chosen by a host, changes what the players see at the bot's table.

`test_options_played` plays every option value through the bot and proves nothing
breaks; the engine's own tests prove each option in the engine.  What neither shows is
that the bot hands the table's chosen options to the engine: a table whose options were
dropped on the way would still play (by the standard rules) and pass both.  Here each
option is played to the moment it matters, and the test asserts what a player notices:
the buttons on a seat's hand, who is asked next, the points of a deal's result post,
the Bummerl and scores of the match.

Each option is played at its default and at each other value: with the option dropped
before the engine sees it (forced to its default where `Table` parses the table's
options) every non-default case fails and every default case passes, so a red case
says which option the bot lost.

Deals are fixed by the bot's seed source (the first seed draws the dealer, each deal
its own), as the other bot tests fix them; where a test needs a particular deal it
asserts that the deal came, so a change of shuffle fails it loudly.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from bot.boards import stats_text
from bot.i18n import contract_name, t
from bot.payload import decode as decode_payload
from bot.payload import game_action
from bot.table import Table, seat_count
from bot.views import Button, Message
from engine.actions import (
    Action,
    Bid,
    ChooseTrump,
    Claim,
    Discard,
    Double,
    Look,
    Pass,
    PlayCard,
    Raise,
    decode,
)
from engine.games import game
from engine.options import options_to_json

from .fakechat import CHAT, Bot, Player, button, seeds, to_act, users
from .policies import finisher, heuristic
from .test_options_played import Person, Seen, _open, _seat

#: A choice for the seat to act among the legal codes of its deal.
Choice = Callable[[Table, int, list[int]], int]


async def _open_table(
    bot: Bot, game_id: str, options: dict[str, object]
) -> tuple[str, list[Player]]:
    """A started table of people only, opened as `test_options_played` opens one: the
    host's /new names the options that differ from the standard rules (a default is
    not something a host types, nor does the lobby list it), and the lobby and the
    Rules button must name them; then people press Join, in the order of `users`."""
    spec = game(game_id)
    standard = options_to_json(spec.parse_options({}), game_id)
    chosen = {k: v for k, v in options.items() if standard[k] != v}
    n = seat_count(spec, spec.parse_options(chosen))
    people = [Person(bot.fc, u) for u in users(n)]
    for person in people:
        person.seen = Seen()
    tid = await _open(bot, game_id, chosen, "en", people)
    await _seat(bot, tid, people, "en")
    assert (await people[0].press(button(bot.fc.lobbies[tid].message, "st"))).ok
    return tid, list[Player](people)


def _to_act(bot: Bot, tid: str, people: list[Player]) -> Player:
    """The person whose turn it is (his hand says so)."""
    return to_act(bot, tid, people)[0]


async def _offered(bot: Bot, tid: str, person: Player) -> list[tuple[str, Action]]:
    """Every game action behind the buttons of a person's hand, with its label: each
    page of a long list, and a discard's choices once two cards are picked (a
    discard's raises only show then)."""
    table = bot.svc.tables[tid]
    assert table.deal is not None
    hv = person.hand(tid)
    assert hv is not None
    out: list[tuple[str, Action]] = []
    seen: set[str] = set()
    todo: list[Message] = [hv.message]
    while todo:
        message = todo.pop()
        picked = False
        for b in message.all_buttons():
            p = decode_payload(b.payload)
            if p.is_game_action:
                assert p.arg is not None
                out.append((b.label, decode(p.arg, table.deal.contracts)))
            elif b.payload not in seen and (p.verb == "pg" or (p.verb == "dp" and p.arg)):
                if p.verb == "dp":  # one pick a level: any two cards show the raises
                    if picked:
                        continue
                    picked = True
                seen.add(b.payload)
                res = await person.press(b)
                assert res.ok and res.hand is not None, res
                todo.append(res.hand.message)
    return out


async def _do(bot: Bot, tid: str, people: list[Player], want: Callable[[Action], bool]) -> Action:
    """The person to act presses the first of his buttons whose action is wanted."""
    person = _to_act(bot, tid, people)
    for label, action in await _offered(bot, tid, person):
        if want(action):
            table = bot.svc.tables[tid]
            assert table.deal is not None
            code = next(c for c in table.deal.legal() if decode(c, table.deal.contracts) == action)
            out = await person.press(Button(label, game_action(tid, table.version, code)))
            assert out.ok, out
            return action
    raise AssertionError(f"{person.key} has no such button: {await _offered(bot, tid, person)}")


def _is(kind: type[Action], **fields: object) -> Callable[[Action], bool]:
    return lambda a: isinstance(a, kind) and all(getattr(a, k) == v for k, v in fields.items())


async def _press(bot: Bot, tid: str, people: list[Player], code: int) -> None:
    """The person to act presses the button of the action `code`."""
    person = _to_act(bot, tid, people)
    table = bot.svc.tables[tid]
    out = await person.press(Button("", game_action(tid, table.version, code)))
    assert out.ok, out


async def _play(
    bot: Bot, tid: str, people: list[Player], choose: Choice, until: Callable[[], bool]
) -> None:
    """The people play `choose`'s moves until `until()` holds or the match ends."""
    while tid in bot.svc.tables and not until():
        table = bot.svc.tables[tid]
        seat = table.to_act()
        assert seat is not None and table.deal is not None
        await _press(bot, tid, people, choose(table, seat, sorted(table.deal.legal())))


async def _dreier_bidding(bot: Bot, options: dict[str, object]) -> tuple[str, list[Player]]:
    """A Dreier table of three people whose forehand has named trumps (by suit)."""
    tid, people = await _open_table(bot, "dreier", options)
    await _do(bot, tid, people, lambda a: isinstance(a, ChooseTrump) and a.suit is not None)
    return tid, people


# --- Dreierschnapsen ------------------------------------------------------------------


@pytest.mark.parametrize("without_talon", [True, False])
async def test_dreier_without_talon_off_takes_the_without_talon_bids_away(
    bot: Bot, without_talon: bool
) -> None:
    tid, people = await _dreier_bidding(bot, {"dreier.without_talon": without_talon})
    forehand = _to_act(bot, tid, people)
    offered = await _offered(bot, tid, forehand)
    bids = [(label, a) for label, a in offered if isinstance(a, Bid)]
    assert bids, offered
    shown = [label for label, a in bids if a.without_talon]
    assert bool(shown) == without_talon, offered
    assert all(", no talon" in label for label in shown)


@pytest.mark.parametrize("raise_after_talon", [True, False])
async def test_dreier_raise_after_talon_off_offers_no_raise_with_the_discard(
    bot: Bot, raise_after_talon: bool
) -> None:
    tid, people = await _dreier_bidding(bot, {"dreier.raise_after_talon": raise_after_talon})
    declarer = _to_act(bot, tid, people)
    await _do(bot, tid, people, _is(Bid, contract="normal", without_talon=False))
    await _do(bot, tid, people, _is(Pass))
    await _do(bot, tid, people, _is(Pass))
    assert _to_act(bot, tid, people) is declarer  # he took the talon: his discard
    offered = await _offered(bot, tid, declarer)
    discards = [(label, a) for label, a in offered if isinstance(a, Discard)]
    assert discards, offered
    raises = [label for label, a in discards if a.contract]
    assert bool(raises) == raise_after_talon, offered


@pytest.mark.parametrize("caller_first", [True, False])
async def test_dreier_caller_first_lets_forehand_pass_before_the_others_bid(
    bot: Bot, caller_first: bool
) -> None:
    tid, people = await _dreier_bidding(bot, {"dreier.caller_first": caller_first})
    table = bot.svc.tables[tid]
    forehand = _to_act(bot, tid, people)
    offered = await _offered(bot, tid, forehand)
    assert any(isinstance(a, Bid) for _, a in offered), offered
    passes = [label for label, a in offered if isinstance(a, Pass)]
    if not caller_first:
        assert not passes, offered  # forehand opens: he may not pass the opening
        return
    assert passes == ["Pass"], offered
    await _do(bot, tid, people, _is(Pass))
    # the others bid after him, middlehand first
    middlehand = _to_act(bot, tid, people)
    seat = table.seat_of(forehand.key)
    assert seat is not None and table.seat_of(middlehand.key) == (seat + 1) % 3
    assert any(isinstance(a, Bid) for _, a in await _offered(bot, tid, middlehand))


@pytest.mark.parametrize("carinthian", [True, False])
async def test_dreier_carinthian_plays_the_normal_game_without_the_talon(
    bot: Bot, carinthian: bool
) -> None:
    tid, people = await _dreier_bidding(bot, {"dreier.carinthian": carinthian})
    declarer = _to_act(bot, tid, people)
    await _do(bot, tid, people, _is(Bid, contract="normal", without_talon=False))
    await _do(bot, tid, people, _is(Pass))
    await _do(bot, tid, people, _is(Pass))
    offered = await _offered(bot, tid, _to_act(bot, tid, people))
    discards = [label for label, a in offered if isinstance(a, Discard)]
    if not carinthian:
        assert _to_act(bot, tid, people) is declarer and discards, offered
        return
    # no talon to take: a defender is asked whether he doubles
    assert _to_act(bot, tid, people) is not declarer and not discards, offered
    assert {type(a) for _, a in offered} == {Double, Pass}, offered


async def test_a_dreier_declarer_who_bid_twice_plays_his_last_bid_as_bid(bot: Bot) -> None:
    """Cilli opens with the normal game, Anna bids a Bettler, Bert passes, Cilli bids
    a Schnapser over it and Anna passes: Cilli's contract is the Schnapser she bid
    last, not one "raised from" anything (her first bid was only outbid)."""
    tid, people = await _dreier_bidding(bot, {})
    for want in ("normal", "bettler", None, "schnapser", None):
        await _do(bot, tid, people, _is(Pass) if want is None else _is(Bid, contract=want))
    lines = bot.fc.tables[tid].message.text.splitlines()
    assert "Contract: Schnapser (6) by Cilli" in lines, lines


@pytest.mark.parametrize("on", [True, False])
@pytest.mark.parametrize("key", ["dreier.count_down", "dreier.cut_ritual"])
async def test_dreier_count_down_and_cut_ritual_show_on_the_table(
    bot: Bot, key: str, on: bool
) -> None:
    tid, _ = await _open_table(bot, "dreier", {key: on})
    table = bot.fc.tables[tid].message.text
    said = {
        "dreier.count_down": "Score, counting down from 24: Anna: 24 · ",
        "dreier.cut_ritual": "Anna cuts the pack.",
    }
    assert (said[key] in table) == on, table


# --- Bauernschnapsen ------------------------------------------------------------------


async def _bauern_bidding(bot: Bot, options: dict[str, object]) -> tuple[str, list[Player]]:
    """A Bauern table of four people (partners across) whose forehand has named
    trumps and opened with the normal game."""
    tid, people = await _open_table(bot, "bauern", options)
    await _do(bot, tid, people, lambda a: isinstance(a, ChooseTrump) and a.suit is not None)
    await _do(bot, tid, people, _is(Bid, contract="normal"))
    return tid, people


@pytest.mark.parametrize("kontra_beats_bettler", [True, False])
async def test_bauern_kontra_beats_bettler_offers_the_kontra_over_a_bettler(
    bot: Bot, kontra_beats_bettler: bool
) -> None:
    tid, people = await _bauern_bidding(bot, {"bauern.kontra_beats_bettler": kontra_beats_bettler})
    await _do(bot, tid, people, _is(Pass))  # forehand's left
    await _do(bot, tid, people, _is(Bid, contract="bettler"))  # forehand's partner
    dealer = _to_act(bot, tid, people)  # forehand's other opponent
    offered = await _offered(bot, tid, dealer)
    kontra = [label for label, a in offered if isinstance(a, Double)]
    assert kontra == (["Kontra"] if kontra_beats_bettler else []), offered
    if kontra_beats_bettler:
        # the Bettler falls: forehand holds the normal game again, doubled
        await _do(bot, tid, people, _is(Double))
        bidder = _to_act(bot, tid, people)  # the Bettler's bidder, who may bid again
        hand = bidder.hand(tid)
        assert hand is not None
        fell = t("en", "table.fell_to_kontra", contract=contract_name("bettler", "en"))
        assert fell in hand.message.text, hand.message.text
        doubled = f"Kontra: {dealer.user.name}"
        assert doubled in bot.fc.tables[tid].message.text.splitlines()
        # he bids on: the Gang wipes the Kontra, which the table no longer shows
        await _do(bot, tid, people, _is(Bid, contract="gang"))
        lines = bot.fc.tables[tid].message.text.splitlines()
        bids = next(x for x in lines if x.startswith("Bids: "))
        assert bids.endswith(f"{bidder.user.name}: Gang") and doubled not in lines, lines


async def test_bauern_kontra_over_a_bettler_leaves_forehand_his_own_normal_game(
    bot: Bot,
) -> None:
    """Cilli's Bettler falls to Done's Kontra and then all pass: Anna (forehand) plays
    the normal game she bid, doubled.  The contract line names it as she bid it: the
    Bettler that fell was Cilli's, not hers."""
    tid, people = await _bauern_bidding(bot, {"bauern.kontra_beats_bettler": True})
    await _do(bot, tid, people, _is(Pass))
    await _do(bot, tid, people, _is(Bid, contract="bettler"))
    await _do(bot, tid, people, _is(Double))
    await _pass_until_play(bot, tid, people)
    lines = bot.fc.tables[tid].message.text.splitlines()
    assert "Contract: Normal game (1–3) by Anna (×2)" in lines, lines


async def test_bauern_kontra_over_forehand_s_own_bettler_says_it_fell(bot: Bot) -> None:
    """Anna (forehand) takes Bert's Bettler over herself (she has the priority), and
    Bert's Kontra makes it fall: she plays the normal game, doubled, and the contract
    line says that her Bettler fell to a Kontra (not that she raised from it)."""
    tid, people = await _bauern_bidding(bot, {"bauern.kontra_beats_bettler": True})
    await _do(bot, tid, people, _is(Bid, contract="bettler"))  # Bert
    await _do(bot, tid, people, _is(Pass))  # Cilli
    await _do(bot, tid, people, _is(Pass))  # Done
    await _do(bot, tid, people, _is(Bid, contract="bettler"))  # Anna
    await _do(bot, tid, people, _is(Double))  # Bert
    await _pass_until_play(bot, tid, people)
    lines = bot.fc.tables[tid].message.text.splitlines()
    fell = "Contract: Normal game (1–3) (the Bettler fell to a Kontra) by Anna (×2)"
    assert fell in lines, lines


async def test_bauern_bids_line_holds_the_auction_not_the_kontra_round(bot: Bot) -> None:
    """Anna's normal game stands after three passes; in the Kontra round that follows
    Bert passes, Done says Kontra and the rest pass.  The table's "Bids:" line is the
    auction's four bids as they were when it ended: the Kontra round's passes are not
    bids, and its Kontra has its own line."""
    tid, people = await _bauern_bidding(bot, {})
    for _ in range(3):
        await _do(bot, tid, people, _is(Pass))
    auction = "Bids: " + " · ".join(
        f"{p.user.name}: {b}"
        for p, b in zip(people, ["Normal game", "Pass", "Pass", "Pass"], strict=True)
    )
    assert auction in bot.fc.tables[tid].message.text.splitlines()
    await _do(bot, tid, people, _is(Pass))  # Bert: no Kontra
    await _do(bot, tid, people, _is(Double))  # Done: Kontra
    await _pass_until_play(bot, tid, people)
    lines = bot.fc.tables[tid].message.text.splitlines()
    bids = [x for x in lines if x.startswith("Bids: ")]
    assert bids == [auction] and f"Kontra: {people[3].user.name}" in lines, lines


async def _bauern_bettler(bot: Bot, options: dict[str, object]) -> tuple[str, list[Player]]:
    """A Bauern table where forehand's left bid a Bettler, all passed and nobody
    doubled: the declarer (forehand's left) is to lead."""
    tid, people = await _bauern_bidding(bot, options)
    await _do(bot, tid, people, _is(Bid, contract="bettler"))
    for _ in range(3):
        await _do(bot, tid, people, _is(Pass))
    await _pass_until_play(bot, tid, people)  # no Kontra
    return tid, people


async def _pass_until_play(bot: Bot, tid: str, people: list[Player]) -> None:
    """Everyone passes (no bid, no double) until the one to act may play a card."""
    while not any(
        isinstance(a, PlayCard) for _, a in await _offered(bot, tid, _to_act(bot, tid, people))
    ):
        await _do(bot, tid, people, _is(Pass))


@pytest.mark.parametrize("partner_plays", [True, False])
async def test_bauern_bettler_partner_plays_gives_the_partner_his_turn(
    bot: Bot, partner_plays: bool
) -> None:
    tid, people = await _bauern_bettler(bot, {"bauern.bettler_partner_plays": partner_plays})
    table = bot.svc.tables[tid]
    declarer = _to_act(bot, tid, people)
    seat = table.seat_of(declarer.key)
    assert seat is not None
    partner = next(p for p in people if table.seat_of(p.key) == (seat + 2) % 4)
    await _do(bot, tid, people, _is(PlayCard))  # the declarer leads
    await _do(bot, tid, people, _is(PlayCard))  # his left
    # the declarer's partner is next in the round only when he plays
    assert (_to_act(bot, tid, people) is partner) == partner_plays
    hand = partner.hand(tid)
    assert hand is not None
    sits = t("en", "hand.sitting_out")
    assert (sits not in hand.message.text) == partner_plays, hand.message.text
    cards = [a for _, a in await _offered(bot, tid, partner) if isinstance(a, PlayCard)]
    assert bool(cards) == partner_plays


@pytest.mark.parametrize("points", [4, 5])
async def test_bauern_bettler_points_is_what_the_bettler_scores(bot: Bot, points: int) -> None:
    tid, people = await _bauern_bettler(bot, {"bauern.bettler_points": points})
    deal_ends = len([p for p in bot.fc.channel if p.kind == "deal_end"])
    while len([p for p in bot.fc.channel if p.kind == "deal_end"]) == deal_ends:
        await _do(bot, tid, people, _is(PlayCard))
    post = [p for p in bot.fc.channel if p.kind == "deal_end"][-1].message.text
    headline = post.splitlines()[0]
    assert contract_name("bettler", "en") in headline, post
    # won or lost, one team scores the Bettler's value
    assert sorted(bot.svc.tables[tid].deal_points[-1]) == [0, 0, points, points]
    assert f" +{points} " in headline and " +0 " in headline, post


#: The contracts an option adds or (Bauern's Bettler) takes away, and the seat whose
#: bids show them in the fixed deal: Dreier's forehand opens (a Bauernloch is his
#: alone), Bauern's forehand must open with the normal game, his left bids next.
#: Either holds an ace for the Ass-Bettler.
CONTRACT_OPTIONS = [
    ("dreier", "assenbettler"),
    ("dreier", "assbettler"),
    ("dreier", "plauderer"),
    ("dreier", "zehnergang"),
    ("dreier", "bauernloch"),
    ("bauern", "assbettler"),
    ("bauern", "zehnergang"),
    ("bauern", "bettler"),
]


@pytest.mark.parametrize("on", [True, False])
@pytest.mark.parametrize(("game_id", "contract"), CONTRACT_OPTIONS)
async def test_a_contract_option_puts_its_bid_on_the_buttons(
    bot: Bot, game_id: str, contract: str, on: bool
) -> None:
    opening = _dreier_bidding if game_id == "dreier" else _bauern_bidding
    tid, people = await opening(bot, {f"{game_id}.{contract}": on})
    offered = await _offered(bot, tid, _to_act(bot, tid, people))
    assert any(isinstance(a, Bid) for _, a in offered), offered
    name = contract_name(contract, "en")
    bids = [label for label, a in offered if isinstance(a, Bid) and a.contract == contract]
    assert bool(bids) == on, offered
    assert all(label.startswith((f"{name} ", f"{name}, ")) for label in bids), bids


# --- Zweierschnapsen ------------------------------------------------------------------


def _heuristic(table: Table, seat: int, codes: list[int]) -> int:
    """The rule-based AI's move, the same for the same table and turn."""
    code = heuristic(table, seat, codes, random.Random(f"{table.id}:{table.version}"))
    assert code is not None
    return code


async def _zweier_match(bot: Bot, options: dict[str, object]) -> tuple[str, list[int]]:
    """A Zweier match of two people who play as the rule-based AI, to its end: the
    finished post and the match's game points."""
    tid, people = await _open_table(bot, "zweier", options)
    table = bot.svc.tables[tid]
    await _play(bot, tid, people, _heuristic, lambda: False)
    assert table.match is not None
    final = bot.fc.channel[-1]
    assert final.kind == "finished"
    return final.message.text, list(table.match.summary()["scores"])


#: The seeds of a Zweier match the AI's play ends 7:0 in three deals (picked by a
#: script that played the first 30 prefixes; the test asserts the 7:0).
NIL_MATCH = "nil27"


@pytest.mark.parametrize("schneider", [True, False])
async def test_zweier_schneider_off_gives_a_loser_at_nil_one_bummerl(
    make_bot: Callable[..., Bot], schneider: bool
) -> None:
    bot = await make_bot(seed_source=seeds(NIL_MATCH)).start()
    try:
        text, scores = await _zweier_match(bot, {"zweier.schneider": schneider})
        assert sorted(scores) == [0, 7], scores  # the deals this test was picked for
        loser = users(2)[scores.index(0)]
        stats = await stats_text(bot.db, loser.key, loser.name, CHAT.key, "en")
    finally:
        await bot.stop()
    said = t("en", "table.bummerl", bummerl="")
    line = next(line for line in text.splitlines() if line.startswith(said))
    nil = f" ({t('en', 'table.schneider')})"
    assert line == said + (f"{loser.name}: 2{nil}" if schneider else f"{loser.name}: 1"), text
    received = "2 Bummerl received, 1 lost" if schneider else "1 Bummerl received, 0 lost"
    assert received in stats, stats


@pytest.mark.parametrize("auto_claim", [True, False])
async def test_auto_claim_off_gives_the_leader_a_claim_button(bot: Bot, auto_claim: bool) -> None:
    tid, people = await _open_table(bot, "zweier", {"auto_claim": auto_claim})
    await _do(bot, tid, people, _is(PlayCard))
    await _do(bot, tid, people, _is(PlayCard))
    # the trick's winner leads again, and has a trick: he may say he has 66
    offered = await _offered(bot, tid, _to_act(bot, tid, people))
    claims = [label for label, a in offered if isinstance(a, Claim)]
    assert claims == ([] if auto_claim else [t("en", "act.claim")]), offered


# --- Thousand -------------------------------------------------------------------------


def _finishing(table: Table, seat: int, codes: list[int]) -> int:
    """`finisher`'s move: forehand declares 100, one on the barrel bids above 120."""
    return finisher(table, seat, codes, random.Random(0))


#: The seeds of a Thousand match in which, played by `finisher`, Bert reaches the
#: barrel and falls off after three deals there, in deal 17 (picked by a script that
#: played the first 200 prefixes in the engine; the test asserts the fall).
BARREL_MATCH = "barrel105"


@pytest.mark.parametrize("fine", [120, 125])
async def test_tausend_barrel_fine_is_what_a_fall_from_the_barrel_costs(
    make_bot: Callable[..., Bot], fine: int
) -> None:
    bot = await make_bot(seed_source=seeds(BARREL_MATCH)).start()
    try:
        tid, people = await _open_table(bot, "tausend", {"tausend.barrel_fine": fine})
        fell = t("en", "result.note.barrel_attempts", name="Bert")
        posts = bot.fc.channel

        def fallen() -> bool:
            return any(p.kind == "deal_end" and fell in p.message.text for p in posts)

        await _play(bot, tid, people, _finishing, fallen)
        ends = [p.message.text for p in posts if p.kind == "deal_end"]
        table = bot.fc.tables[tid].message.text
    finally:
        await bot.stop()
    assert len(ends) == 17 and fell in ends[-1], ends[-1:]  # the deals it was picked for
    # the deal's result charges the fine, and the score shows him below the barrel by it
    assert f" · Bert -{fine} · " in ends[-1].splitlines()[0], ends[-1]
    scores = next(line for line in table.splitlines() if line.startswith("Score"))
    assert f"Bert: {880 - fine} " in scores, table


@pytest.mark.parametrize("golden_round", [True, False])
async def test_tausend_golden_round_deals_forehand_a_fixed_120(
    bot: Bot, golden_round: bool
) -> None:
    tid, people = await _open_table(bot, "tausend", {"tausend.golden_round": golden_round})
    forehand = _to_act(bot, tid, people)
    offered = await _offered(bot, tid, forehand)
    table = bot.fc.tables[tid].message.text
    if golden_round:  # no bidding: he plays 120, doubled, and gives his cards away
        assert f"Contract: Bid 120 (golden round) by {forehand.user.name} (×2)" in table, table
        assert not any(isinstance(a, Bid) for _, a in offered), offered
    else:
        assert [label for label, a in offered if isinstance(a, Bid)] == ["Bid 100"], offered


@pytest.mark.parametrize("blind_bid", [True, False])
async def test_tausend_blind_bid_deals_the_cards_face_down(bot: Bot, blind_bid: bool) -> None:
    tid, people = await _open_table(bot, "tausend", {"tausend.blind_bid": blind_bid})
    opener = _to_act(bot, tid, people)
    offered = await _offered(bot, tid, opener)
    hand = opener.hand(tid)
    assert hand is not None
    looks = [label for label, a in offered if isinstance(a, Look)]
    assert looks == (["Look at my cards"] if blind_bid else []), offered
    assert ("Hand: —" in hand.message.text.splitlines()) == blind_bid, hand.message.text


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_tausend_players_seats_and_deals_that_many(bot: Bot, players: int) -> None:
    tid, people = await _open_table(bot, "tausend", {"tausend.players": players})
    scores = next(s for s in bot.fc.tables[tid].message.text.splitlines() if s.startswith("Score"))
    assert scores.count(": 0") == players, scores
    held = {}
    for person in people:
        hand = person.hand(tid)
        assert hand is not None
        line = next(s for s in hand.message.text.splitlines() if s.startswith("Hand: "))
        held[person.key] = 0 if line == "Hand: —" else len(line.split()) - 1
    # two: nine cards each and two stocks; four: the dealer sits out
    want = {2: [9, 9], 3: [7, 7, 7], 4: [0, 7, 7, 7]}[players]
    assert sorted(held.values()) == want, held


@pytest.mark.parametrize(
    ("bids", "plays", "said"),
    [
        ((100, None, None), 130, "Bid 130 (raised from 100)"),
        ((100, 110, None, 120, None), 130, "Bid 130 (raised from 120)"),
        ((100, 110, None, 120, None), 120, "Bid 120"),
    ],
)
async def test_tausend_a_raise_after_the_gifts_shows_what_the_declarer_bid(
    bot: Bot, bids: tuple[int | None, ...], plays: int, said: str
) -> None:
    """Cilli wins the auction (with 100 outright, or with 120 over Anna's 110 after
    her own 100) and gives Anna and Bert a card each; then she raises to 130, or
    keeps her 120.  The table's contract is what she plays, "raised from" the last
    bid the auction heard from her (not her first), and no raise when she kept it."""
    tid, people = await _open_table(bot, "tausend", {})
    for value in bids:
        await _do(bot, tid, people, _is(Pass) if value is None else _is(Bid, value=value))
    declarer = _to_act(bot, tid, people)

    def raise_to(table: Table, seat: int, codes: list[int]) -> int:
        assert table.deal is not None
        actions = {decode(c, table.deal.contracts): c for c in codes}
        return actions.get(Raise(plays), codes[0])  # else her first gift

    def playing() -> bool:
        deal = bot.svc.tables[tid].deal
        assert deal is not None
        return any(isinstance(decode(c, deal.contracts), PlayCard) for c in deal.legal())

    await _play(bot, tid, people, raise_to, playing)
    lines = bot.fc.tables[tid].message.text.splitlines()
    assert f"Contract: {said} by {declarer.user.name}" in lines, lines
