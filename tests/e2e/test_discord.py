"""The Discord adapter end to end: the real discord.py against the fake Discord.

Each test gets a fresh fake (guild, channel, players; discord.py patched to it and
restored after), the real core on a SQLite file in tmp_path, and fails on any ERROR
log or any hidden card in a channel message (`discord_world`).  Whole games of the
other variants are in test_discord_games.py.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path
from typing import Any

import discord
import pytest
from pydantic import SecretStr

from adapters.discord import render, serve
from adapters.discord.commands import help as help_commands
from adapters.discord.texts import text
from bot import app
from bot import results as R
from bot.config import Config
from bot.i18n import card_label, t
from bot.service import ChatRef, Outcome, TableService, Timings, UserRef
from bot.store import Store, StoreError
from engine.games import available, game
from tests.app_logs import retry_warnings, run_logged, the_one_error
from tests.e2e.clocks import end_live, remind, run_out
from tests.e2e.discord_harness import (
    World,
    assert_closed_cleanly,
    discord_world,
    is_current,
    secret_cards,
)
from tests.e2e.fakes.discord.entities import FakeUser
from tests.e2e.fakes.discord.interaction import FakeInteraction
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.fakes.discord.protocol import Limits, MessageFlag
from tests.e2e.fakes.discord.server import FakeDiscord

MANAGE_GUILD = 1 << 5


async def start_zweier(world: World, host: FakeUser, guest: FakeUser) -> tuple[str, FakeMessage]:
    table_id, lobby = await world.open_table(host, "zweier")
    await world.click(guest, lobby, "Join")
    await world.settle()
    await world.click(host, lobby, "Start")
    await world.settle()
    return table_id, lobby


def table_message(world: World, table_id: str) -> FakeMessage:
    return world.table_messages(table_id)[-1]


async def reply_to(world: World, user: FakeUser, message: FakeMessage, target: str) -> str:
    """Press and return the ephemeral answer the presser got."""
    interaction = await world.fake.click(user, message, target)
    if await interaction.wait_acknowledged() == 4:
        answer = await interaction
    else:
        [answer] = await interaction.wait_followups()
    assert answer.ephemeral_for is user, answer
    return answer.content


async def next_press(world: World, table_id: str) -> tuple[FakeUser, FakeMessage]:
    step, user, message = await world.fake.wait_for(
        lambda: world.next_move(table_id), description="a player to act"
    )
    assert step == "press"
    return user, message


def current_ids(world: World, table_id: str, message: FakeMessage) -> list[str]:
    table = world.service.tables[table_id]
    return [b.custom_id for b in message.buttons if b.custom_id and is_current(b.custom_id, table)]


async def new_table_with_no_such_preset(world: World, user: FakeUser) -> FakeInteraction:
    """`/schnapsen new` in the channel, refused: the answer is public until the core
    has refused it (a bot started with ``ack_budget=0`` "thinks" in public first)."""
    return await world.fake.slash(
        user, world.channel, "schnapsen new", game="zweier", preset="nonsense"
    )


async def assert_refused_in_private(world: World, refused: FakeInteraction) -> None:
    """The refusal of `new_table_with_no_such_preset` reached its user alone: nothing
    of it in the channel."""
    [answer] = await refused.wait_followups()
    assert answer.ephemeral_for is refused.user and answer.content.startswith("Unknown preset")
    public = [m.content for m in world.fake.channel_messages(world.channel)]
    assert not any("Unknown preset" in c for c in public)


# --------------------------------------------------------------------------- commands


async def test_slash_commands_are_synced_with_german_names(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        commands = {c["name"]: c for c in world.fake.commands()}
        assert set(commands) == {
            "schnapsen",
            "leaderboard",
            "stats",
            "rules",
            "record",
            "settings",
            "abort",
            "resign",
            "forgetme",
            "help",
        }
        assert commands["leaderboard"]["name_localizations"] == {"de": "rangliste"}
        assert commands["forgetme"]["name_localizations"] == {"de": "vergiss-mich"}
        [table] = commands["record"]["options"]
        assert commands["record"]["name_localizations"] == {"de": "protokoll"}
        assert table["name_localizations"] == {"de": "tisch"} and not table.get("required")
        [new] = commands["schnapsen"]["options"]
        assert (new["name"], new["name_localizations"]) == ("new", {"de": "neu"})
        game, preset = new["options"]
        assert game["required"] and not preset.get("required", False)
        assert game["name_localizations"] == {"de": "spiel"}
        zweier = next(c for c in game["choices"] if c["value"] == "zweier")
        assert zweier["name_localizations"] == {"de": "Schnapsen (zu zweit)"}
        assert preset.get("autocomplete") is True
        settings = commands["settings"]
        assert settings["default_member_permissions"] == str(MANAGE_GUILD)
        assert settings["contexts"] == [0]  # servers only
        with pytest.raises(PermissionError):  # hidden from members without Manage Server
            await world.fake.slash(world["anna"], world.channel, "settings")


async def test_settings_rules_help_and_empty_boards(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, moderator = world["anna"], world.moderator

        shown = await world.slash(moderator, "settings")
        assert shown.ephemeral_for is moderator
        assert (
            "Settings for this server" in shown.content
            and "language = default (en)" in shown.content
        )
        saved = await world.slash(moderator, "settings", key="language", value="de")
        assert saved.content == "Saved: language = de"
        bad = await world.slash(moderator, "settings", key="turn_timeout", value="soon")
        assert "turn_timeout must be a number" in bad.content
        # the two fields read as Telegram's words: a game and its preset or option,
        # key=value
        for key, value, said in [
            ("zweier", "manual_claims", "Saved: preset.zweier = manual_claims"),
            ("zweier", "auto_claim on", "Saved: zweier.auto_claim = on"),
            ("zweier auto_claim", "off", "Saved: zweier.auto_claim = off"),
            ("turn_timeout=90", None, "Saved: turn_timeout = 90"),
            # a preset that is an option's name too: a value given means a change
            ("dreier", "carinthian", "Saved: preset.dreier = carinthian"),
            # a value given, but the words name one setting only: which value?
            ("dreier", "plauderer", "Which value should dreier.plauderer get?"),
            # a preset by its name for players, whole; a word that names nothing
            ("dreier", "Alle Spiele", "Saved: preset.dreier = all_contracts"),
            ("dreier", "kaerntner", "Bad setting: unknown preset 'kaerntner' for dreier"),
            ("dreier", "Kärntner Art", "Bad setting: unknown preset 'Kärntner Art' for dreier"),
            # as the preset list shows it
            ("dreier", "alle Spiele (all_contracts)", "Saved: preset.dreier = all_contracts"),
        ]:
            fields: dict[str, Any] = {"key": key} | ({"value": value} if value else {})
            out = await world.slash(moderator, "settings", **fields)
            assert out.content.startswith(said), (key, value, out.content)

        # the server's language is now German: a new lobby speaks it
        _, lobby = await world.open_table(anna, "zweier")
        assert [b.label for b in lobby.buttons][:2] == ["Mitspielen", "Aufstehen"]

        rules = await world.slash(anna, "rules", game="zweier")
        assert rules.ephemeral_for is anna and "66" in rules.content
        own = await world.slash(anna, "rules")  # anna's table's game, with its options
        assert own.content.startswith("Schnapsen (2 players)")
        help_text = await world.slash(anna, "help")
        assert "/schnapsen new" in help_text.content and help_text.ephemeral_for is anna
        board = await world.slash(anna, "leaderboard", game="zweier", scope="global")
        assert board.content.endswith(
            "No rated games yet: only matches against other people count."
        )
        assert board.ephemeral_for is None
        later = await world.slash(anna, "leaderboard", game="zweier", scope="global", page=2)
        assert later.content.endswith(
            "No rated games yet: only matches against other people count."
        )
        stats = await world.slash(anna, "stats")
        assert stats.content == "anna has no finished games yet."
        none = await world.slash(world["bert"], "abort")
        assert none.content == "Du hast hier keinen Tisch."  # bert's client is German
        # without a table: every game's summary, in one message Discord takes (2,000)
        overview = await world.slash(world["bert"], "rules")
        assert "wer zuerst 1000 hat" in overview.content  # the last game's, whole
        # each answer cost one request (Discord's rate limits count them all): none
        # was edited after it was sent
        edits = "/webhooks/{webhook_id}/{token}/messages/{message_id}"
        assert world.fake.requests_to("PATCH", edits) == []


async def test_an_answer_longer_than_a_message_arrives_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord takes 2,000 characters a message: rules longer than that (here made
    so) reach Anna whole, in two messages seen by her alone, the second following
    the first where the first had to stop."""
    long = "\n".join(f"Rule {n}: " + "x" * 90 for n in range(30))
    monkeypatch.setattr(help_commands, "asked_rules", lambda *args: long)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna = world["anna"]
        asked = await world.fake.slash(anna, world.channel, "rules", game="zweier")
        first = await asked
        [second] = await asked.wait_followups()
        assert first.ephemeral_for is anna and second.ephemeral_for is anna
        assert len(first.content) <= 2000
        assert f"{first.content}\n{second.content}" == long


async def test_zweier_match_then_leaderboard_and_stats(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id, lobby = await start_zweier(world, anna, bert)
        assert lobby.buttons == [] and lobby.content.endswith("The game has already started.")
        assert "2. bert" in lobby.content and "lobby closes" not in lobby.content

        await world.play(table_id)
        await world.settle()

        messages = world.fake.channel_messages(world.channel)
        assert "Game over!" in messages[-1].content
        # nothing left to press but the summary's Rematch
        assert [b.label for b in messages[-1].buttons] == ["Rematch"]
        assert all(m.buttons == [] for m in messages[:-1])
        assert all(m.buttons == [] for p in (anna, bert) for m in world.fake.dms(p))
        # one DM hand per deal and player; each ends saying its deal or the match is over
        deals = len(world.table_messages(table_id))
        assert len(world.fake.dms(anna)) == len(world.fake.dms(bert)) == deals
        for p, lang in ((anna, "en"), (bert, "de")):  # bert reads German
            *done, last = world.fake.dms(p)
            hand_line = {"en": "\nHand: ", "de": "\nKarten: "}[lang]  # as the deal left it
            for k, m in enumerate(done, 1):
                assert m.content.endswith(text(lang, "hand_deal_over", deal=k)), m.content
                assert hand_line in m.content, m.content
            assert last.content.endswith(t(lang, "hand.match_over")), last.content

        board = await world.slash(anna, "leaderboard", game="zweier")
        assert "Leaderboard — Schnapsen (2 players) (this server)" in board.content
        assert "1. " in board.content and "anna" in board.content and "bert" in board.content
        stats = await world.slash(bert, "stats", user=anna)
        assert stats.content.startswith("Statistik für anna")  # bert reads German
        assert "Schnapsen (zu zweit): 1 gespielt" in stats.content

        # another server sees anna's games there only, unless it asks for all servers
        guild = world.fake.add_guild("Beisl")
        elsewhere = world.fake.add_text_channel(guild, "karten")
        world.fake.add_member(guild, bert)
        await world.settle()
        there = await (await world.fake.slash(bert, elsewhere, "stats", user=anna))
        assert there.content == "anna hat noch keine beendete Partie."
        everywhere = await (
            await world.fake.slash(bert, elsewhere, "stats", user=anna, scope="global")
        )
        assert "Schnapsen (zu zweit): 1 gespielt" in everywhere.content


async def test_a_server_manager_closes_a_table_he_does_not_sit_at(tmp_path: Path) -> None:
    """/abort from a member who may manage the server closes an abandoned table (by
    its id when the server has several); from anyone else without a seat it is refused."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, clara = world["anna"], world["bert"], world["clara"]
        table_id, _ = await start_zweier(world, anna, bert)
        refused = await world.slash(clara, "abort", table=table_id)
        assert (
            refused.content == f"You are not playing at a table {table_id} here."
        )  # the one named
        nowhere = await world.slash(clara, "abort", table="nosuch1")
        assert nowhere.content == "You are not playing at a table nosuch1 here."  # alike: no hint
        assert table_id in world.service.tables
        # the chat is the server, but a bare /abort in another channel does not close
        # this channel's table: it says where the tables are
        elsewhere = await world.slash(world.moderator, "abort", where=world.outsider_channel)
        assert table_id in world.service.tables
        assert "No table plays in this channel" in elsewhere.content
        assert f"{table_id} in <#{world.channel.id}>" in elsewhere.content
        reply = await world.slash(world.moderator, "abort")  # bare, in the table's channel
        assert reply.ephemeral_for is world.moderator
        assert reply.content == f"Table {table_id} is closed; it counts for nobody."
        await world.settle()
        assert table_id not in world.service.tables
        closing = world.fake.channel_messages(world.channel)[-1].content
        assert "an admin closed it" in closing
        assert_closed_cleanly(world, table_id)


async def test_a_lobby_closed_before_its_match_loses_its_buttons(tmp_path: Path) -> None:
    """A server manager closes a table still in its lobby (Bert has joined, nobody
    pressed Start): the lobby message keeps who sat down but loses Join, Leave and
    Start, which could only be refused now."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id, lobby = await world.open_table(world["anna"], "zweier")
        await world.click(world["bert"], lobby, "Join")
        await world.settle()
        assert lobby.buttons
        await world.slash(world.moderator, "abort")
        await world.settle()
        assert table_id not in world.service.tables
        assert "bert" in lobby.content and lobby.buttons == []


# --------------------------------------------------------------------------- failure cases


async def test_the_closed_dms_note_names_the_button_as_the_table_shows_it(
    tmp_path: Path,
) -> None:
    """Fritz's Discord speaks German but the table English: the channel note tells
    him to press “Show my hand”, the label on the table, not its German name."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fritz = world.fake.add_user("fritz", locale="de", dms_closed=True)
        world.fake.add_member(world.guild, fritz)
        table_id, _ = await start_zweier(world, world["anna"], fritz)
        [note] = [
            m for m in world.fake.channel_messages(world.channel) if fritz.mention in m.content
        ]
        assert "Press “Show my hand” on the table message" in note.content
        labels = [b.label for b in table_message(world, table_id).buttons]
        assert "Show my hand" in labels


async def test_closed_dms_fall_back_to_ephemeral_hands(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, emil = world["anna"], world["emil"]
        table_id, _ = await start_zweier(world, anna, emil)

        notes = [m for m in world.fake.channel_messages(world.channel) if emil.mention in m.content]
        assert len(notes) == 1 and "cannot send you direct messages" in notes[0].content
        assert world.fake.dms(emil) == []

        hand = await reply_to(world, emil, table_message(world, table_id), "Show my hand")
        assert hand.startswith(f"Your hand at table {table_id}")
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 2)
        await world.settle()

        ephemerals = world.fake.ephemerals(emil)
        hands = [m for m in ephemerals if m.content.startswith("Your hand")]
        assert hands and all(m.flags & MessageFlag.EPHEMERAL for m in hands)
        # an ephemeral hand follows the game while its token lasts: it was edited
        assert any(m.history for m in hands)
        # one failed DM per deal, no retry loop; the note is not repeated
        failures = [r for r in world.fake.requests if r.code == 50007]
        assert len(failures) == len(table.deals)
        notes = [m for m in world.fake.channel_messages(world.channel) if emil.mention in m.content]
        assert len(notes) == 1


async def test_a_second_show_my_hand_retires_the_first(tmp_path: Path) -> None:
    """Two "Show my hand" views of one hand: the older one says where the hand went
    and loses its buttons (they would act on an old picture); the newer one follows
    the game."""
    async with discord_world(tmp_path) as world:
        emil = world["emil"]
        table_id, _, first = await show_emil_his_hand(world)
        second = await (
            await world.fake.click(emil, table_message(world, table_id), "Show my hand")
        )
        note = "(Shown again below: this view no longer follows the game.)"
        await world.fake.wait_for(
            lambda: world.fake.messages[first.id].content.endswith(note) or None,
            description="the first view retired",
        )
        assert not world.fake.messages[first.id].buttons
        assert second.content.startswith(f"Your hand at table {table_id}")
        assert note not in world.fake.messages[second.id].content


async def show_emil_his_hand(world: World) -> tuple[str, FakeInteraction, FakeMessage]:
    """The bot started, Anna and Emil (closed DMs) at a Zweier match, and the hand
    "Show my hand" gave Emil, live: the table, that press (whose token a test may
    expire) and the hand."""
    await world.start_bot()
    anna, emil = world["anna"], world["emil"]
    table_id, _ = await start_zweier(world, anna, emil)
    shown = await world.fake.click(emil, table_message(world, table_id), "Show my hand")
    hand = await shown
    await world.settle()
    assert hand.buttons and hand.ephemeral_for is emil
    return table_id, shown, hand


async def emil_plays_from_show_my_hand(world: World) -> tuple[str, FakeMessage]:
    """`show_emil_his_hand` without the press: the table and Emil's hand."""
    table_id, _, hand = await show_emil_his_hand(world)
    return table_id, hand


async def stop_following(world: World, table_id: str, user: FakeUser, hand: FakeMessage) -> str:
    """`user`'s ephemeral hand stops following the game now (`end_live`); once its
    last edit says so, that note."""
    end_live(world.adapter, table_id, f"dc:{user.id}")
    ended = text("en", "live_ended", show_hand="Show my hand")
    await world.fake.wait_for(
        lambda: hand.content.endswith(ended), description="the hand's last edit"
    )
    return ended


async def test_an_ephemeral_hand_goes_quiet_when_its_table_closes(tmp_path: Path) -> None:
    """Emil plays from "Show my hand".  When both players vote the table closed, the
    hand he holds shows its last picture without buttons, not a "Your turn." with
    cards to press that nothing would answer."""
    async with discord_world(tmp_path) as world:
        anna, emil = world["anna"], world["emil"]
        table_id, hand = await emil_plays_from_show_my_hand(world)
        await world.slash(anna, "abort")
        await world.slash(emil, "abort")
        await world.settle()
        assert table_id not in world.service.tables
        assert hand.buttons == [] and "Hand: " in hand.content


async def test_a_forgetme_mid_match_quiets_the_ephemeral_hand_too(tmp_path: Path) -> None:
    """Emil plays from "Show my hand" and deletes his data mid-match: the hand he holds
    says the computer plays on, without buttons, as a DM hand does; not a "Your turn."
    with cards to press that would only be refused."""
    async with discord_world(tmp_path) as world:
        emil = world["emil"]
        table_id, hand = await emil_plays_from_show_my_hand(world)
        await world.click(emil, await world.slash(emil, "forgetme"), "Delete my data")
        await world.settle()
        assert table_id in world.service.tables
        assert world.service.tables[table_id].seat_of(f"dc:{emil.id}") is None
        await world.fake.wait_for(
            lambda: "Your data was deleted" in hand.content or None, description="the note"
        )
        assert hand.buttons == [] and "Hand: " not in hand.content


async def test_a_press_on_an_ephemeral_hand_that_fell_behind_brings_it_up_to_date(
    tmp_path: Path,
) -> None:
    """Emil plays from "Show my hand"; the hand stops following the game and the game
    moves on (Anna votes to close).  A button he presses on it is out of date: the hand
    he pressed on is brought up to date in place, with buttons that count, not left
    behind with a refusal beside it whose every button would be refused too."""
    async with discord_world(tmp_path) as world:
        anna, emil = world["anna"], world["emil"]
        table_id, hand = await emil_plays_from_show_my_hand(world)
        ended = await stop_following(world, table_id, emil, hand)
        await world.slash(anna, "abort")  # a vote: a new version, the hand's buttons go stale
        await world.settle()
        assert hand.buttons and current_ids(world, table_id, hand) == []
        answers = len(world.fake.ephemerals(emil))

        stale = hand.buttons[0].custom_id
        assert stale is not None
        await world.click(emil, hand, stale)
        await world.settle()
        assert len(current_ids(world, table_id, hand)) == len(hand.buttons) > 0
        assert "Hand: " in hand.content and ended not in hand.content
        assert len(world.fake.ephemerals(emil)) == answers  # no "out of date" beside it


async def test_a_card_played_from_an_ephemeral_hand_that_stopped_following_restarts_it(
    tmp_path: Path,
) -> None:
    """Emil's hand from "Show my hand" has stopped following the game (its time is up,
    its buttons still count).  He plays a card from it: the hand shows the table after
    his move and follows the game again, not its old picture with the note that it
    stopped."""
    async with discord_world(tmp_path) as world:
        anna, emil = world["anna"], world["emil"]
        table_id, hand = await emil_plays_from_show_my_hand(world)
        await stop_following(world, table_id, emil, hand)
        await world.click(emil, hand, current_ids(world, table_id, hand)[0])
        await world.settle()
        now = world.service.hand(table_id, f"dc:{emil.id}")
        assert now is not None and hand.content == render.content(now.message)

        user, own = await next_press(world, table_id)  # and on, as the game goes
        assert user is anna
        await world.click(anna, own, current_ids(world, table_id, own)[0])
        await world.settle()
        now = world.service.hand(table_id, f"dc:{emil.id}")
        assert now is not None and hand.content == render.content(now.message)


async def test_a_card_pressed_on_an_ephemeral_hand_after_the_computer_played_is_too_late(
    tmp_path: Path,
) -> None:
    """Emil plays from "Show my hand"; his time runs out and the computer plays for
    him, and his press of a card on the hand as he saw it comes after that: he is told
    it was too late, not silently shown the hand as it now is."""
    async with discord_world(tmp_path) as world:
        emil = world["emil"]
        table_id, hand = await emil_plays_from_show_my_hand(world)
        [card, *_] = current_ids(world, table_id, hand)
        version = world.service.tables[table_id].version
        assert run_out(world.service, table_id, f"dc:{emil.id}")
        await world.fake.wait_for(
            lambda: world.service.tables[table_id].version > version or None,
            description="the computer's move for Emil",
        )
        await world.settle()

        late = await world.fake.click(emil, hand, card, forged=True)  # as he saw it
        await late.wait_acknowledged()
        await world.settle()
        assert [r.content for r in late.responses] == [t("en", "refuse.too_late")]


async def test_ephemeral_hands_are_not_edited_past_their_token(tmp_path: Path) -> None:
    """An ephemeral hand follows the game until its time is up; its last edit says
    that it stopped, and once its token ran out nothing tries to edit it (401 /
    50027).  Its end and the token's are set here, not left to two short timers: a
    late answer on a loaded machine would move the one but not the other."""
    async with discord_world(tmp_path) as world:
        emil = world["emil"]
        table_id, shown, first = await show_emil_his_hand(world)
        await stop_following(world, table_id, emil, first)
        shown.expire_token()

        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        # the old ephemeral was left alone once its token ran out: no 401 / 50027
        assert [r for r in world.fake.requests if r.code == 50027] == []
        assert first.ephemeral_for is emil


async def test_an_ephemeral_hand_played_from_outlives_the_token_it_was_shown_with(
    tmp_path: Path,
) -> None:
    """Emil plays a card from the hand "Show my hand" gave him: from then on the hand
    follows the game through that press's token, so when the token of "Show my hand"
    runs out (15 minutes on Discord) his hand still shows the table as it is."""
    async with discord_world(tmp_path) as world:
        anna, emil = world["anna"], world["emil"]
        table_id, shown, hand = await show_emil_his_hand(world)
        await world.click(emil, hand, current_ids(world, table_id, hand)[0])
        await world.settle()
        shown.expire_token()

        user, own = await next_press(world, table_id)
        assert user is anna
        await world.click(anna, own, current_ids(world, table_id, own)[0])
        await world.settle()
        now = world.service.hand(table_id, f"dc:{emil.id}")
        assert now is not None and hand.content == render.content(now.message)
        assert [r for r in world.fake.requests if r.code == 50027] == []


async def test_restart_mid_deal_old_buttons_still_work(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_log.actions) >= 3)  # type: ignore[union-attr]
        await world.settle()
        shown = table_message(world, table_id)
        user, hand = await next_press(world, table_id)
        [button] = current_ids(world, table_id, hand)[:1]

        await world.restart()
        assert world.service.tables[table_id] is not table  # rebuilt from the log

        version = world.service.tables[table_id].version
        await world.click(user, hand, button)  # a button sent by the previous process
        await world.settle()
        assert world.service.tables[table_id].version > version
        assert table_message(world, table_id) is shown  # the same message, edited
        assert shown.history[-1].content != shown.content

        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        assert any("Deal 1 over" in m.content for m in world.fake.channel_messages(world.channel))
        # the new process still writes each player's hand in their language
        assert all(m.content.startswith("Deine Karten") for m in world.fake.dms(bert))


async def test_lobby_survives_a_restart(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id, lobby = await world.open_table(anna, "zweier")
        await world.restart()
        await world.click(bert, lobby, "Join")
        await world.settle()
        assert "2. bert" in lobby.content
        await world.click(anna, lobby, "Start")
        await world.settle()
        assert len(world.table_messages(table_id)) == 1
        assert len(world.fake.dms(anna)) == len(world.fake.dms(bert)) == 1


async def test_presses_by_someone_not_at_the_table(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, otto = world["anna"], world["bert"], world["otto"]
        table_id, lobby = await world.open_table(anna, "zweier")
        assert await reply_to(world, otto, lobby, "Start") == "Only the host (anna) can do that."
        await world.click(bert, lobby, "Join")
        await world.settle()
        assert await reply_to(world, otto, lobby, "Join") == "The table is full."
        await world.click(anna, lobby, "Start")
        await world.settle()

        message = table_message(world, table_id)
        answer = await reply_to(world, otto, message, "Show my hand")
        assert answer == "You are not playing at this table."
        # otto copies the player's current move into a button of his own
        _, hand = await next_press(world, table_id)
        [move] = current_ids(world, table_id, hand)[:1]
        version = world.service.tables[table_id].version
        interaction = await world.fake.click(otto, message, move, forged=True)
        await interaction.wait_acknowledged()
        assert (await interaction).content == "You are not playing at this table."
        assert world.service.tables[table_id].version == version


async def test_concurrent_double_press_counts_once(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        user, hand = await next_press(world, table_id)
        [move] = current_ids(world, table_id, hand)[:1]
        table = world.service.tables[table_id]
        assert table.deal_log is not None
        before = len(table.deal_log.actions)

        presses = await asyncio.gather(
            world.fake.click(user, hand, move), world.fake.click(user, hand, move)
        )
        await asyncio.gather(*(p.wait_acknowledged() for p in presses))
        await world.settle()

        assert len(table.deal_log.actions) == before + 1
        refusals = [r.content for p in presses for r in p.responses if r.ephemeral]
        assert refusals == [t(user.locale, "refuse.stale")]
        # no double acknowledgement (40060), but the re-sent answer of a cut
        assert all(world.refusals(p) == [] for p in presses)


async def test_a_slow_new_table_refusal_stays_private(tmp_path: Path) -> None:
    """`/schnapsen new` answers publicly (the lobby is for everyone), so when it is
    slow its "thinking…" is public; a refusal then must not fill that in for the
    whole channel (Discord keeps the defer's visibility): it goes to the user alone."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(ack_budget=0)  # every answer is deferred first
        anna = world["anna"]
        refused = await new_table_with_no_such_preset(world, anna)
        assert await refused.wait_acknowledged() == 5
        await assert_refused_in_private(world, refused)
        assert refused.original is not None and refused.original.deleted

        # a table it opens is still shown to everybody, deferred or not
        table_id, lobby = await world.open_table(anna, "zweier")
        assert not lobby.ephemeral and table_id in world.service.tables
        assert not any(i.failed for i in world.fake.interactions)


async def test_a_nickname_stays_on_its_server(tmp_path: Path) -> None:
    """Anna is "Nachteule" on a second server: its table calls her so, but the
    name boards and records of every server show is her account's, so the nickname
    she gave herself there is not shown on the first server's leaderboard."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna = world["anna"]
        second = world.fake.add_guild("Kaffeehaus")
        channel = world.fake.add_text_channel(second, "karten")
        world.fake.add_member(second, anna, nick="Nachteule")
        await world.fake.wait_for(
            lambda: world.adapter.client.get_guild(second.id) is not None,
            description="the second server",
        )
        _, lobby = await world.open_table(anna, "zweier", where=channel)
        assert "Nachteule" in lobby.content
        rows = await world.service.store.fetchall(
            "SELECT name FROM players WHERE key = ?", (f"dc:{anna.id}",)
        )
        assert rows == [("anna",)]

        # a DM has no server and no rated match: its board is that of all servers
        dm = world.fake.dm_channel(anna, create=True)
        board = await world.slash(anna, "leaderboard", where=dm, game="zweier")
        assert "(everywhere)" in board.content.splitlines()[0]


async def test_forged_custom_ids_get_an_answer(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna = world["anna"]
        _, lobby = await world.open_table(anna, "zweier")
        unknown = await world.slash(anna, "schnapsen new", game="zweier", preset="nonsense")
        assert unknown.ephemeral_for is anna and unknown.content.startswith("Unknown preset")
        forged = {
            "s:nonsense": "That button is not one of mine.",
            "s:zzzzzzz:5:a3": "That table is closed.",
            "s:" + "9" * 98: "That button is not one of mine.",
            "other:42": "This button is not one of mine.",
        }
        for custom_id, expected in forged.items():
            interaction = await world.fake.click(anna, lobby, custom_id, forged=True)
            reply = await interaction
            assert (reply.content, reply.ephemeral_for) == (expected, anna)
        assert "1. anna" in lobby.content and "2. (free)" in lobby.content


async def test_rate_limits_are_waited_out(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        edits = "/channels/{channel_id}/messages/{message_id}"
        callbacks = "/interactions/{interaction_id}/{token}/callback"
        fake.rate_limit("PATCH", edits, times=3, retry_after=0.05)
        fake.rate_limit("POST", callbacks, times=1, retry_after=0.05)
        seen = len(fake.requests)
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()

        def statuses(method: str, route: str) -> list[int]:
            return [r.status for r in fake.requests[seen:] if r in fake.requests_to(method, route)]

        edited = statuses("PATCH", edits)
        assert edited[:3] == [429, 429, 429] and set(edited[3:]) == {200}
        assert statuses("POST", callbacks)[:2] == [429, 200]
        assert any("Deal 1 over" in m.content for m in fake.channel_messages(world.channel))


async def test_a_slow_core_is_deferred_within_the_deadline(tmp_path: Path) -> None:
    async with discord_world(tmp_path, limits=Limits(ack_deadline=1.5)) as world:
        await world.start_bot(ack_budget=0.1)
        anna, bert, otto = world["anna"], world["bert"], world["otto"]
        table_id, _ = await start_zweier(world, anna, bert)
        service = world.service
        act = service.act

        async def slow_act(
            user: UserRef, payload: str, chat: ChatRef | None = None, **kw: Any
        ) -> Outcome:
            await asyncio.sleep(0.5)  # longer than the budget: the press is deferred
            return await act(user, payload, chat, **kw)

        service.act = slow_act  # type: ignore[method-assign]
        message = table_message(world, table_id)
        refused = await world.fake.click(otto, message, "Show my hand")
        assert await refused.wait_acknowledged() == 6  # deferred, then followed up
        [answer] = await refused.wait_followups()
        assert answer.content == "You are not playing at this table." and answer.ephemeral

        shown = await world.fake.click(anna, message, "Show my hand")
        assert await shown.wait_acknowledged() == 6
        [hand] = await shown.wait_followups()
        assert hand.ephemeral_for is anna and hand.buttons is not None
        user, dm = await next_press(world, table_id)
        press = await world.fake.click(user, dm, current_ids(world, table_id, dm)[0])
        assert await press.wait_acknowledged() == 6
        await world.settle()
        # a question's button, deferred: the question still becomes the answer
        question = await world.slash(anna, "resign")
        resigned = await world.fake.click(anna, question, "Resign")
        assert await resigned.wait_acknowledged() == 6
        await world.settle()
        assert question.content.startswith("You resigned: ") and not question.buttons
        assert not any(i.failed for i in world.fake.interactions)


@pytest.mark.parametrize("trouble", ["too_old", "deleted"])
async def test_a_table_message_that_cannot_be_edited_is_posted_again(
    tmp_path: Path, trouble: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The table message is too old to edit, or a moderator deleted it: the next move
    posts it anew (and plays on there), and the log says why a second one appeared,
    as information, not a warning."""
    caplog.set_level(logging.INFO, logger="adapters")
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        first = table_message(world, table_id)
        if trouble == "too_old":
            world.fake.age_message(first, 2 * 3600)
        else:
            first.deleted = True
        user, hand = await next_press(world, table_id)
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        await world.settle()
        second = table_message(world, table_id)
        assert second is not first and "Deal 1" in second.content
        # the one edit of the first message was refused; whatever else Discord refused
        # meanwhile (a press's answer cut as too slow and sent again: 40060) is not it
        edits = world.fake.requests_to("PATCH", f"/channels/{world.channel.id}/messages/{first.id}")
        code = 30046 if trouble == "too_old" else 10008
        assert [r.code for r in edits] == [code]
        [line] = [r for r in caplog.records if "posting anew" in r.getMessage()]
        assert line.levelno == logging.INFO
        assert table_id in line.getMessage() and str(code) in line.getMessage()
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        assert second.buttons == [] and second.history  # edited on, then finalised


async def test_a_deal_s_table_message_keeps_the_picture_the_deal_ended_with(
    tmp_path: Path,
) -> None:
    """When a deal ends, its table message (the next deal gets a new one) is drawn one
    last time as the deal left it, without buttons: the last card's change is the
    deal's end, which no move's edit showed."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        assert world.bot is not None
        [end] = [u for u in world.bot.recorder.updates if u.kind == "deal_end"]
        assert end.result is not None and end.result.table is not None
        first = world.table_messages(table_id)[0]
        assert first.content == render.content(end.result.table.message)
        assert first.buttons == []


async def test_turn_reminder_then_the_computer_takes_over(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        # the other player never moves either: his turn, next, may not run out before
        # the late one takes his seat back (the table would close, nobody left).  So
        # the turns are long, and the test sends the late one's reminder and ends his
        # turn itself (with 2.5 s turns a take-back 2.5 s late found the table closed)
        timings = Timings(turn_timeout=30, reminder_before=10, missed_turns_limit=1, ai_delay=0)
        await world.start_bot(timings=timings)
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        table = world.service.tables[table_id]
        seat = table.to_act()
        assert seat is not None
        late = anna if table.seats[seat].user == f"dc:{anna.id}" else bert  # type: ignore[union-attr]

        def said(text: str) -> FakeMessage | None:
            sent = [m for m in world.fake.messages.values() if m.channel is world.channel]
            return next((m for m in sent if text in m.content), None)  # deleted ones too

        assert remind(world.service, table_id)
        reminder = await world.fake.wait_for(lambda: said("it is your turn"))
        assert late.mention in reminder.content and late in reminder.pinged
        assert run_out(world.service, table_id, f"dc:{late.id}")
        replaced = await world.fake.wait_for(lambda: said("the computer takes the seat"))
        assert late in replaced.pinged
        await world.settle()
        # the turn it reminded of is over: the channel keeps no "it is your turn"
        assert reminder.deleted and not replaced.deleted
        message = table_message(world, table_id)
        assert "Take my seat back" in [b.label for b in message.buttons]
        back_press = await world.click(late, message, "Take my seat back")
        await world.settle()
        # his DMs are open: his hand is in his DM, not in a second, ephemeral copy
        assert not world.fake.ephemerals(late) and not back_press.responses
        assert "Take my seat back" not in [b.label for b in table_message(world, table_id).buttons]
        # the channel that read he was replaced reads that he is back, without a ping
        back = await world.fake.wait_for(lambda: said("is back and plays the seat again"))
        assert late.mention in back.content and late not in back.pinged


async def test_resign_and_forget_me(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        # /resign asks first, Anna alone: a slip of the finger costs no match
        question = await world.slash(anna, "resign")
        assert question.content.startswith(f"Resign the match at table {table_id}?")
        assert question.ephemeral_for is anna and [b.label for b in question.buttons] == ["Resign"]
        await world.settle()
        assert table_id in world.service.tables
        press = await world.click(anna, question, "Resign")
        await world.settle()
        # the question became the answer, without its button, and is the only answer
        assert question.content.startswith("You resigned: you lose the match")
        assert not question.buttons
        assert press.followups == []
        result = world.fake.channel_messages(world.channel)[-1].content
        assert "anna resigned." in result and "Winner: bert" in result
        for p, lang in ((anna, "en"), (bert, "de")):  # no hand waits for a move any more
            assert world.fake.dms(p)[-1].content.endswith(t(lang, "hand.match_over"))
        assert table_id not in world.service.tables
        # with no match to resign there is nothing to ask: Bert is told so, privately,
        # in his language, and given no button
        refused = await world.slash(bert, "resign")
        assert refused.content == t("de", "refuse.no_table") and refused.ephemeral_for is bert
        assert not refused.buttons
        # /forgetme asks too; nothing is deleted until the button is pressed
        asked = await world.slash(anna, "forgetme")
        assert asked.content.startswith("Delete your data: results, ratings and settings?")
        assert asked.ephemeral_for is anna
        assert (await world.slash(anna, "stats")).content != "anna has no finished games yet."
        press = await world.click(anna, asked, "Delete my data")
        await world.settle()
        assert asked.content.startswith("Your data is deleted") and not asked.buttons
        assert press.followups == []
        assert (await world.slash(anna, "stats")).content == "anna has no finished games yet."


# --------------------------------------------------------------------------- the runner


async def test_autosharded_client_from_config(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        # one shard: discord.py waits 5 s between identifies, too long for a test
        await world.start_bot(config={"discord_shard_count": 1, "discord_shard_ids": [0]})
        [session] = world.fake.sessions
        assert session.shard == (0, 1)
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        assert len(world.table_messages(table_id)) == 2


async def test_serve_runs_until_stopped(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        store = await Store(world.db).open()
        service = TableService(store, timings=Timings(ai_delay=0))
        await service.start()
        config = Config(_env_file=None, discord_token=SecretStr(world.fake.token))  # type: ignore[call-arg]
        stop = asyncio.Event()
        task = asyncio.create_task(serve(service, config, stop))
        try:
            await world.fake.wait_for(lambda: world.fake.sessions and world.fake.commands())
            reply = await world.slash(world["anna"], "help")
            assert "/schnapsen new" in reply.content
            assert len(service.listeners) == 1
        finally:
            stop.set()
            await asyncio.wait_for(task, 10)
            await service.stop()
            await store.close()
        assert service.listeners == [] and world.fake.sessions == []


def discord_only(token: str, db: Path, **kw: Any) -> Config:
    """The configuration of a bot with a Discord token only (no .env file)."""
    return Config(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=SecretStr(token),
        telegram_token=None,
        database_path=db,
        **kw,
    )


async def open_a_table_then_stop(world: World, task: asyncio.Task[int], stop: asyncio.Event) -> str:
    """Once the app's bot is connected, Anna opens a table; then stop, exit code 0."""
    fake = world.fake
    try:
        await fake.wait_for(lambda: fake.sessions and fake.commands())
        table_id, lobby = await world.open_table(world["anna"], "zweier")
        assert "1. anna" in lobby.content
    finally:
        stop.set()
        assert await asyncio.wait_for(task, app.SHUTDOWN_GRACE + 2) == 0
    return table_id


async def test_the_app_runner_serves_discord(tmp_path: Path) -> None:
    """`python -m bot` with a Discord token: bot.app loads this adapter and stops it."""
    async with discord_world(tmp_path) as world:
        fake = world.fake
        config = discord_only(fake.token, world.db, ai_delay=0)
        stop = asyncio.Event()
        task = asyncio.create_task(app.run(config, stop=stop))
        table_id = await open_a_table_then_stop(world, task, stop)
        assert fake.sessions == []
        async with Store(world.db) as store:  # the lobby is still open, for the next start
            assert (await store.message_refs(table_id)).keys() == {"channel", "lobby"}


async def test_discord_out_of_reach_at_start_is_tried_until_it_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Logging in fails while Discord cannot be reached: the runner warns and tries
    again (the other adapters would go on serving) until it gets through."""
    async with discord_world(tmp_path) as world:
        fake = world.fake
        config = discord_only(fake.token, world.db, ai_delay=0)
        with socket.socket() as s:  # nothing listens here
            s.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{s.getsockname()[1]}/api/v10"
        caplog.set_level(logging.WARNING, logger="bot.app")
        stop = asyncio.Event()
        reachable = discord.http.Route.BASE
        discord.http.Route.BASE = dead
        try:
            task = asyncio.create_task(app.run(config, stop=stop, retry_delays=(0.1,)))
            while caplog.text.count("cannot reach the platform") < 2:
                assert not task.done()
                await asyncio.sleep(0.02)
        finally:
            discord.http.Route.BASE = reachable  # the network is back
        await open_a_table_then_stop(world, task, stop)
    tries = retry_warnings(caplog.records)
    assert tries[0].startswith("discord: cannot reach the platform (ClientConnector")


async def test_a_wrong_discord_token_stops_the_bot_with_one_clear_line(tmp_path: Path) -> None:
    async with FakeDiscord() as fake:
        wrong = "wrong." + fake.token
        config = discord_only(wrong, tmp_path / "bot.sqlite3", log_level="DEBUG")
        with fake.patched():
            code, logs = await run_logged(config, retry_delays=(0.1,))
    assert the_one_error(code, logs).endswith(
        "discord: Discord rejected DISCORD_TOKEN (401 Unauthorized); "
        "copy the bot token again from the Developer Portal"
    )
    assert "cannot reach" not in logs  # a wrong token is not retried
    assert wrong not in logs


# --------------------------------------------------------------------------- the checks


async def test_the_hidden_card_check_catches_a_leak(tmp_path: Path) -> None:
    """Guard the guard: a card from a hand in a channel message is reported."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        assert table.deal_log is not None
        hidden = sorted(secret_cards(table.deal_log), key=lambda c: c.index)
        assert len(hidden) >= 10  # two hands of five, nothing played yet
        leak = card_label(hidden[0])
        channel = world.adapter.client.get_partial_messageable(world.channel.id)
        await channel.send(f"psst: {leak}")
        assert len(world.fake.leaks) == 1 and leak in world.fake.leaks[0]
        world.fake.leaks.clear()

        # and a hand DMed to the wrong player is reported too
        anna, bert = world["anna"], world["bert"]
        bert_hand = world.service.hand(table_id, f"dc:{bert.id}")
        assert bert_hand is not None
        dm = await world.adapter.client.create_dm(discord.Object(id=anna.id))
        await dm.send(bert_hand.message.text)
        assert len(world.fake.leaks) == 1 and "anna was shown" in world.fake.leaks[0]
        world.fake.leaks.clear()


async def test_a_german_server_gets_german_tables_until_an_admin_says_otherwise(
    tmp_path: Path,
) -> None:
    """The server's preferred locale is German: its tables speak German without an
    admin finding /settings; a language an admin sets wins."""
    async with discord_world(tmp_path) as world:
        world.guild.locale = "de"
        await world.start_bot()
        anna = world["anna"]
        _, lobby = await world.open_table(anna, "zweier")
        assert "Mitspielen" in [b.label for b in lobby.buttons], lobby.content
        listed = await world.slash(world.moderator, "settings", key="language")
        assert "language = Standard (de)" in listed.content or "language = default (de)" in (
            listed.content
        ), listed.content
        await world.slash(anna, "abort")
        await world.settle()
        await world.slash(world.moderator, "settings", key="language", value="en")
        _, lobby = await world.open_table(anna, "zweier")
        assert "Join" in [b.label for b in lobby.buttons], lobby.content


@pytest.mark.parametrize("store_fails", [False, True], ids=["deleted", "store_failed"])
async def test_a_forgetme_mid_match_leaves_no_live_looking_dm_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_fails: bool
) -> None:
    """His DM hand says the computer plays on, without buttons.  When the database
    fails, nothing of it is done: he keeps his seat and his live hand."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        hand = world.hand_message(bert, table_id)
        assert hand is not None and hand.buttons
        if store_fails:

            async def failing(*args: object, **kwargs: object) -> None:
                raise StoreError("disk full")

            monkeypatch.setattr(R, "forget_ops", failing)
        content = hand.content
        await world.click(bert, await world.slash(bert, "forgetme"), "Meine Daten löschen")
        await world.settle()
        seat = world.service.tables[table_id].seat_of(f"dc:{bert.id}")
        if store_fails:
            assert seat is not None and hand.buttons and hand.content == content
            return
        assert seat is None
        await world.fake.wait_for(
            lambda: "Daten wurden gelöscht" in hand.content or None, description="the note"
        )
        assert not hand.buttons and hand.content.startswith("Deine Karten")


async def test_the_last_person_s_forgetme_closes_the_table_and_says_so_in_his_dm(
    tmp_path: Path,
) -> None:
    """Anna plays a computer and deletes her data: the table closes, and her DM hand
    says so without buttons (she is no longer seated, so no last picture comes)."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna = world["anna"]
        table_id, lobby = await world.open_table(anna, "zweier")
        await world.click(anna, lobby, "Add computer")
        await world.settle()
        await world.click(anna, world.fake.messages[lobby.id], "Start")
        await world.settle()

        def her_hand() -> FakeMessage | None:  # with buttons: the computer may lead first
            hand = world.hand_message(anna, table_id)
            return hand if hand is not None and hand.buttons else None

        hand = await world.fake.wait_for(her_hand, description="her hand's buttons")
        await world.click(anna, await world.slash(anna, "forgetme"), "Delete my data")
        await world.settle()
        assert table_id not in world.service.tables
        await world.fake.wait_for(
            lambda: hand.content.endswith("This table was closed.") or None, description="note"
        )
        assert not hand.buttons and hand.content.startswith("Your hand at table")


async def test_the_preset_list_offers_the_presets_of_the_game_in_question(
    tmp_path: Path,
) -> None:
    """Typing into a preset option, the player is offered the presets of the game
    chosen (/schnapsen new), or in /rules without a game those of his table's game
    there (that is whose rules /rules shows), else every game's; named in his
    language, narrowed by what he typed (a name or an id)."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake, anna, bert = world.fake, world["anna"], world["bert"]  # Bert reads German

        async def offered(user: FakeUser, command: str, **options: Any) -> list[str]:
            choices = await fake.autocomplete(user, world.channel, command, "preset", **options)
            return [c["value"] for c in choices]

        def presets(*games: str) -> set[str]:
            return {p for g in games for p in game(g).presets}

        assert set(await offered(anna, "schnapsen new", game="tausend", preset="")) == presets(
            "tausend"
        )
        german = await fake.autocomplete(
            bert, world.channel, "schnapsen new", "preset", game="dreier", preset="Alle Sp"
        )
        assert german == [{"name": "alle Spiele (all_contracts)", "value": "all_contracts"}]
        assert await offered(anna, "schnapsen new", game="dreier", preset="carin") == ["carinthian"]
        assert set(await offered(anna, "rules", preset="")) == presets(*available())
        await world.open_table(anna, "bauern")
        assert set(await offered(anna, "rules", preset="")) == presets("bauern")
        assert set(await offered(bert, "rules", preset="")) == presets(*available())
        assert set(await offered(anna, "rules", game="tausend", preset="")) == presets("tausend")


async def test_help_names_the_buttons_as_the_channel_shows_them(tmp_path: Path) -> None:
    """Bert reads German, the server's messages are English: his help is German but
    names the buttons he will find on them ("Join", not "Mitspielen")."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        german = (await world.slash(world["bert"], "help")).content
        assert german.startswith("Schnapsen-Bot") and "„Join“" in german, german
        assert "„Show my hand“" in german and "Mitspielen" not in german, german
        english = (await world.slash(world["anna"], "help")).content
        assert "“Join”" in english and "“Show my hand”" in english, english


async def test_a_client_language_we_lack_reads_the_servers(tmp_path: Path) -> None:
    """François's Discord is French, the server German: the bot speaks no French, so
    his answers — the core's refusals and the adapter's own — are German, as the
    server's messages are; Anna's English client still reads English."""
    async with discord_world(tmp_path) as world:
        world.guild.locale = "de"
        francois = world.fake.add_user("francois", locale="fr")
        world.fake.add_member(world.guild, francois)
        await world.start_bot()
        none = await world.slash(francois, "abort")
        assert none.content == t("de", "refuse.no_table"), none.content
        unknown = await world.slash(francois, "record", table="xyz")
        assert unknown.content == t("de", "record.unknown", table="xyz"), unknown.content
        help_text = (await world.slash(francois, "help")).content
        assert help_text.startswith("Schnapsen-Bot"), help_text
        english = await world.slash(world["anna"], "abort")
        assert english.content == t("en", "refuse.no_table"), english.content


async def test_rules_of_a_preset(tmp_path: Path) -> None:
    """/rules takes a preset as /schnapsen new does: its rules, or its name refused;
    a preset without a game is of the asker's table's game, else he is asked which."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        rules = {c["name"]: c for c in world.fake.commands()}["rules"]
        _, preset = rules["options"]
        assert preset["name_localizations"] == {"de": "vorlage"} and preset["autocomplete"]
        anna = world["anna"]
        golden = await world.slash(anna, "rules", game="tausend", preset="golden")
        assert "• golden round: until everyone has dealt once" in golden.content
        bad = await world.slash(anna, "rules", game="dreier", preset="xyz")
        assert bad.content.startswith("Unknown preset xyz. Presets: standard,"), bad.content
        which = await world.slash(anna, "rules", preset="golden")
        assert which.content.startswith("Which game's preset? Name the game too"), which.content
        await world.open_table(anna, "tausend")
        own = await world.slash(anna, "rules", preset="golden")
        assert "• golden round: until everyone has dealt once" in own.content
