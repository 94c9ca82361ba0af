"""Presses the core must refuse, each with nothing changed."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable

import pytest

from bot.i18n import card_label
from bot.payload import decode, game_action, table_verb
from bot.service import ChatRef, Outcome, TableUpdate, UserRef
from bot.table import Table
from bot.views import HandView
from engine import protocol as P
from engine.actions import PlayCard
from engine.actions import encode as encode_action
from engine.cards import CARDS
from engine.games import available

from .fakechat import CHAT, Bot, Player, button, open_table, snapshot, until_discard_menu, users

OUTSIDER = UserRef("tg", "999", "Zaungast")


async def _zweier(bot: Bot) -> tuple[str, list[Player]]:
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    return tid, players


def _turn(bot: Bot, tid: str, players: list[Player]) -> tuple[Player, HandView]:
    for pl in players:
        hv = pl.hand(tid)
        if hv is not None and hv.your_turn:
            return pl, hv
    raise AssertionError("nobody's turn")


def _actions(hv: HandView) -> list[str]:
    return [b.payload for b in hv.message.all_buttons() if decode(b.payload).is_game_action]


async def test_stale_press_is_refused(bot: Bot) -> None:
    tid, players = await _zweier(bot)
    # play until someone is to act holding a hand view of an older version
    for _ in range(40):
        pl, hv = _turn(bot, tid, players)
        old = [
            h
            for h in bot.fc.hand_history
            if h.user == pl.key and h.your_turn and h is not hv and _actions(h)
        ]
        if old:
            break
        await pl.take_turn(tid)
    else:
        pytest.fail("no earlier turn")
    before = await snapshot(bot, tid)
    stale = _actions(old[-1])[0]
    out = await bot.svc.act(pl.user, stale)
    assert not out.ok and out.code == "stale"
    assert await snapshot(bot, tid) == before
    # the current buttons still work
    out = await bot.svc.act(pl.user, _actions(hv)[0])
    assert out.ok


async def test_double_press_applies_once(bot: Bot) -> None:
    tid, players = await _zweier(bot)
    pl, hv = _turn(bot, tid, players)
    payload = _actions(hv)[0]
    v0 = bot.svc.tables[tid].version
    log0 = len(await bot.store.table_log(tid))  # type: ignore[union-attr]
    outs = await asyncio.gather(*(bot.svc.act(pl.user, payload) for _ in range(3)))
    assert sorted(o.ok for o in outs) == [False, False, True]
    assert {o.code for o in outs if not o.ok} == {"stale"}
    table = bot.svc.tables[tid]
    assert table.version == v0 + 1
    assert len(await bot.store.table_log(tid)) == log0 + 1  # type: ignore[union-attr]
    assert sum(len(d.actions) for d in table.deals) == 1


async def test_a_card_pressed_as_the_other_resigns_is_refused_as_gone(bot: Bot) -> None:
    """A card pressed while the other player's resignation ends the match (it waits
    for the table meanwhile) is told the table is gone, and is not played."""
    tid, players = await _zweier(bot)
    pl, hv = _turn(bot, tid, players)
    other = next(p for p in players if p is not pl)
    presses: list[asyncio.Future[Outcome]] = []

    def press_now(update: TableUpdate) -> None:
        if update.kind == "finished":  # told under the table's lock, before it closes
            presses.append(asyncio.ensure_future(bot.svc.act(pl.user, _actions(hv)[0])))

    bot.fc.on_update.append(press_now)
    assert (await bot.svc.resign(CHAT, other.user)).ok
    [pressed] = await asyncio.gather(*presses)
    assert (pressed.ok, pressed.code) == (False, "unknown_table"), pressed
    assert not any(e["k"] == "act" for e in await bot.db.table_log(tid))


async def test_concurrent_joins_for_the_last_seat(bot: Bot) -> None:
    a, b, c = (bot.player(u) for u in users(3))
    out = await bot.svc.create_table(CHAT, a.user, "zweier")
    tid = out.table_id
    assert tid is not None
    join = button(bot.fc.lobbies[tid].message, "j")
    outs = await asyncio.gather(b.press(join), c.press(join))
    assert sorted(o.code for o in outs) == ["ok", "table_full"]
    table = bot.svc.tables[tid]
    assert table.is_full() and len(table.humans()) == 2


async def test_a_join_counts_only_from_the_table_s_chat(bot: Bot) -> None:
    """Any client can send any payload from any message: a Join from another chat
    (a stranger's private chat) or by a user of another platform seats nobody."""
    a, b = (bot.player(u) for u in users(2))
    out = await bot.svc.create_table(CHAT, a.user, "zweier")
    tid = out.table_id
    assert tid is not None
    join = button(bot.fc.lobbies[tid].message, "j").payload
    private = ChatRef("tg", b.user.id, "")
    refused = await bot.svc.act(b.user, join, private)
    assert (refused.ok, refused.code) == (False, "join_in_chat")
    dora = UserRef("dc", "4242", "Dora")
    elsewhere = await bot.svc.act(dora, join, ChatRef("dc", "-1001"))
    assert (elsewhere.ok, elsewhere.code) == (False, "unknown_table")
    assert bot.svc.tables[tid].humans() == [a.user.key]
    joined = await bot.svc.act(b.user, join, CHAT)
    assert joined.ok and bot.svc.tables[tid].humans() == [a.user.key, b.user.key]


async def test_only_a_join_must_come_from_the_table_s_chat(bot: Bot) -> None:
    """A Telegram player's hand is in his private chat: a card pressed there is
    played, not refused as a Join from elsewhere."""
    tid, players = await _zweier(bot)
    pl, hv = _turn(bot, tid, players)
    v0 = bot.svc.tables[tid].version
    private = ChatRef("tg", pl.user.id, "")
    out = await bot.svc.act(pl.user, _actions(hv)[0], private)
    assert (out.ok, out.code) == (True, "ok"), out
    assert bot.svc.tables[tid].version > v0


async def test_press_by_someone_not_seated(bot: Bot) -> None:
    tid, players = await _zweier(bot)
    pl, hv = _turn(bot, tid, players)
    before = await snapshot(bot, tid)
    v = bot.svc.tables[tid].version
    for payload in [
        *_actions(hv),
        table_verb(tid, v, "h"),
        table_verb(tid, v, "tb"),
        table_verb(tid, v, "ab"),
        table_verb(tid, v, "l"),
        table_verb(tid, v, "pg", 1),
    ]:
        out = await bot.svc.act(OUTSIDER, payload)
        assert not out.ok and out.code in ("not_seated", "not_in_lobby"), (payload, out)
        assert out.hand is None
    assert await snapshot(bot, tid) == before
    # the other seated player cannot press the one to act's buttons either
    other = next(p for p in players if p is not pl)
    for payload in _actions(hv):
        out = await bot.svc.act(other.user, payload)
        assert not out.ok and out.code == "not_your_turn"
    assert await snapshot(bot, tid) == before


async def test_a_card_pressed_at_a_lobby_is_refused_as_not_playing(bot: Bot) -> None:
    """No card is dealt before the start: a card's payload sent to a lobby (forged,
    the lobby shows none) is refused as such and changes nothing."""
    host = bot.player(users(1)[0])
    tid = (await bot.svc.create_table(CHAT, host.user, "zweier")).table_id
    assert tid is not None
    before = await snapshot(bot, tid)
    out = await bot.svc.act(host.user, game_action(tid, bot.svc.tables[tid].version, 0))
    assert (out.ok, out.code, out.text) == (False, "not_playing", "The game is not running.")
    assert await snapshot(bot, tid) == before


async def test_malformed_and_forged_payloads(bot: Bot) -> None:
    tid, players = await _zweier(bot)
    pl, hv = _turn(bot, tid, players)
    table = bot.svc.tables[tid]
    v = table.version
    assert table.deal is not None
    legal = set(table.deal.legal())
    illegal_codes = [c for c in range(0, 70) if c not in legal][:20]
    not_in_hand = [c.index for c in CARDS if c not in (hv.view.hand if hv.view is not None else ())]
    forged = [
        "",
        "x",
        ":",
        "::",
        f"{tid}",
        f"{tid}:{v}",
        f"{tid}:{v}:",
        f"{tid}:{v}:a",
        f"{tid}:{v}:zz",
        f"{tid}:{v}:j1",
        f"{tid}:{v}:rm",
        f"{tid}:-1:a0",
        f"{tid}:{v}:a-1",
        f"{tid.upper()}:{v}:a0",
        f"{tid}:{v}:a0 ",
        f" {tid}:{v}:a0",
        f"{tid}:{v}:a0\n",
        f"{tid}:{v}:a0:a1",
        f"{tid}:{v}:a１",
        f"{tid}:{v}:a" + "9" * 7,
        f"{tid}:" + "9" * 10 + ":a0",
        "x" * 65,
        "ζ" * 40,
        f"zz{tid}:{v}:a0",
        f"nosuch:{v}:a0",
        *(game_action(tid, v, c) for c in illegal_codes),
        *(game_action(tid, v, c) for c in not_in_hand),
        game_action(tid, v, 999999),
        table_verb(tid, v, "rm", 1),
        table_verb(tid, v, "rm", 99),
        table_verb(tid, v, "s", 1),
        table_verb(tid, v, "j"),
        table_verb(tid, v, "ai"),
        table_verb(tid, v, "st"),
        table_verb(tid, v, "tb"),
        table_verb(tid, v, "dp", 999999),
        table_verb(tid, v, "dp", 1),
        table_verb(tid, v, "pg", 1),
        table_verb(tid, v, "pg", 0),
        table_verb(tid, v + 5, "pg", 999999),
        f"{tid}:{v}:dr5",
    ]
    before = await snapshot(bot, tid)
    hidden = {c for p in players if p is not pl for c in (p.hand(tid).view.hand)}  # type: ignore[union-attr]
    codes = set()
    for payload in forged:
        out = await bot.svc.act(pl.user, payload)
        if out.ok:
            # only menus may say yes: they change nothing and show the presser's hand
            assert decode(payload).verb in ("pg", "dp"), payload
            assert out.hand is not None and out.hand.user == pl.key
            continue
        codes.add(out.code)
        assert out.text, payload
        # a refusal names no card another seat holds
        for c in hidden:
            assert card_label(c) not in out.text, (payload, out.text)
    assert await snapshot(bot, tid) == before
    assert {"malformed", "unknown_table", "illegal", "stale", "not_in_lobby"} <= codes
    assert codes <= {
        "malformed",
        "unknown_table",
        "illegal",
        "stale",
        "not_in_lobby",
        "not_replaced",
        "already_seated",
    }


@pytest.mark.parametrize(
    ("game_id", "options", "n"), [("dreier", None, 3), ("tausend", {"tausend.players": 2}, 2)]
)
async def test_forged_menu_payloads_in_a_discard(
    make_bot: Callable[..., Bot], game_id: str, options: dict[str, object] | None, n: int
) -> None:
    """Hand menus (discard picking) with forged numbers are refused, not crashes."""
    if game_id not in available():
        pytest.skip(f"{game_id} is not implemented yet")
    bot = await make_bot().start()
    try:
        found = await until_discard_menu(bot, game_id, options, n)
        if found is None:
            pytest.skip("no discard menu came up")
        tid, pl = found
        v = bot.svc.tables[tid].version
        before = await snapshot(bot, tid)
        rng = random.Random(5)
        hv = pl.hand(tid)
        assert hv is not None and hv.view is not None
        held = sum(1 << c.index for c in hv.view.hand)
        shown = [decode(b.payload) for b in hv.message.all_buttons()]
        for p in shown:  # the menu's own buttons lead on, with buttons to press
            if p.verb == "dp":
                out = await bot.svc.act(pl.user, p.encode())
                assert out.ok and out.hand is not None and out.hand.message.all_buttons()
                # after a first card, "pick again" goes back to the start of the pick
                again = [
                    b
                    for b in out.hand.message.all_buttons()
                    if (decode(b.payload).verb, decode(b.payload).arg) == ("dp", 0)
                ]
                assert [b.label for b in again] == ["↺ Pick again"]
                back = await bot.svc.act(pl.user, again[0].payload)
                assert back.ok and back.hand is not None
                assert back.hand.message.text == hv.message.text
        forged = [~held & (2**24 - 1), 2**24 - 1, 999999, 2**26, 1 << 30]
        forged += [rng.randrange(1, 10**8) | (~held & (2**24 - 1)) for _ in range(5)]
        for arg in forged:
            arg %= 10**8
            out = await bot.svc.act(pl.user, f"{tid}:{v}:dp{arg}")
            assert not out.ok and out.code == "malformed", (arg, out)
        for arg in (99, 9999):
            out = await bot.svc.act(pl.user, table_verb(tid, v, "pg", arg))
            assert not out.ok and out.code == "malformed", out
        other = next(p for p in bot.fc.hands if p[0] == tid and p[1] != pl.key)[1]
        other_user = next(u for u in users(n) if u.key == other)
        out = await bot.svc.act(other_user, shown[0].encode())
        assert not out.ok and out.code in ("not_your_turn", "illegal"), out
        assert await snapshot(bot, tid) == before
    finally:
        await bot.stop()


@pytest.mark.parametrize("game_id", available())
async def test_fuzzed_action_codes_are_refused_cleanly(
    make_bot: Callable[..., Bot], game_id: str
) -> None:
    """Any number in an action payload: a refusal with a reason, never an exception."""
    bot = await make_bot().start()
    try:
        n = {"zweier": 2, "bauern": 4}.get(game_id, 3)
        players = [bot.player(u) for u in users(n)]
        tid = await open_table(bot, game_id, players)
        rng = random.Random(game_id)
        for _ in range(6):
            table = bot.svc.tables.get(tid)
            if table is None or table.deal is None:
                break
            _, mover = _mover(table, players)
            legal = set(table.deal.legal())
            before = await snapshot(bot, tid)
            codes = [rng.randrange(0, 10**k) for k in (2, 3, 4, 5, 6) for _ in range(40)]
            for code in codes:
                if code in legal:
                    continue
                out = await bot.svc.act(mover.user, game_action(tid, table.version, code))
                assert not out.ok and out.code == "illegal" and out.text, (code, out)
            assert await snapshot(bot, tid) == before
            for _ in range(rng.randrange(1, 4)):
                for p in players:
                    if await p.take_turn(tid) is not None:
                        break
    finally:
        await bot.stop()


async def test_a_card_that_does_not_follow_suit_is_refused_in_the_player_s_words(
    make_bot: Callable[..., Bot],
) -> None:
    """Dreier plays with Farbzwang from the first trick: an off-suit card pressed
    (a forged or stale button, or a card typed at the terminal) is refused with the
    rule in the player's language, not the engine's English."""
    bot = await make_bot().start()
    try:
        players = [bot.player(u) for u in users(3)]
        tid = await open_table(bot, "dreier", players)
        for _ in range(300):
            table = bot.svc.tables.get(tid)
            if table is None or table.deal is None:
                break
            seat, mover = _mover(table, players)
            dseat = table.deal_seat(seat)
            view = P.view(table.deal, dseat if dseat is not None else seat)
            if view.phase == "play" and view.trick:
                led = view.trick[0][1].suit
                off = [c for c in view.hand if c.suit != led]
                if off and any(c.suit == led for c in view.hand):
                    german = dataclasses.replace(mover.user, lang="de")
                    code = encode_action(PlayCard(off[0]))
                    out = await bot.svc.act(german, game_action(tid, table.version, code))
                    assert out.code == "illegal"
                    assert out.text == "Nicht erlaubt: du musst Farbe bekennen", out.text
                    return
            for p in players:
                if await p.take_turn(tid) is not None:
                    break
        pytest.fail("no trick to follow came up")
    finally:
        await bot.stop()


def _mover(table: Table, players: list[Player]) -> tuple[int, Player]:
    """The seat to act and the player who sits there."""
    seat = table.to_act()
    assert seat is not None
    mover = next(p for p in players if p.key == table.seats[seat].user)  # type: ignore[union-attr]
    return seat, mover


@pytest.mark.parametrize(
    ("game", "options", "said"),
    [
        ("tausend", {"players": "5"}, "players must be one of 2, 3, 4, not 5"),
        ("dreier", {"dreier.assenbettler": "maybe"}, "assenbettler is on or off, not maybe"),
    ],
)
async def test_a_bad_options_value_is_named_as_the_host_types_it(
    bot: Bot, game: str, options: dict[str, str], said: str
) -> None:
    """Not by the engine's id with its game's prefix ("tausend.players")."""
    anna = bot.player(users(1)[0])
    out = await bot.svc.create_table(CHAT, anna.user, game, options=options)
    assert not out.ok and out.text is not None, out
    assert out.text.endswith(said), out.text
    assert f"{game}." not in out.text, out.text


async def test_a_pasted_page_is_not_echoed_back_whole(bot: Bot) -> None:
    """A game, preset or option name thousands of characters long: the answer names
    its start and still ends with what there is to choose from (a message holds 4,096
    characters on Telegram, 2,000 on Discord)."""
    anna = bot.player(users(1)[0])
    long = "x" * 4000
    for game, preset, options, ends in [
        (long, None, None, "Games: zweier, dreier, bauern, tausend."),
        ("zweier", long, None, "Presets: standard, manual_claims."),
        ("zweier", None, {long: "on"}, "(options: auto_claim, schneider)"),
        ("zweier", None, {"auto_claim": long}, "auto_claim is on or off, not"),
    ]:
        out = await bot.svc.create_table(CHAT, anna.user, game, preset=preset, options=options)
        assert not out.ok and out.text is not None, out
        assert len(out.text) < 300 and "x" * 39 + "…" in out.text, out.text
        assert ends in out.text, out.text
    for key in ("preset.dreier", long):  # a setting's value, a setting's name
        said = await bot.svc.update_setting(CHAT, anna.user, key, long, is_admin=True)
        assert not said.ok and len(said.text or "") < 600, said.text
        assert "x" * 39 + "…" in (said.text or ""), said.text
