"""A Telegram group's first evening with the bot, end to end.

Real python-telegram-bot against the fake Bot API, as the people in the group meet the
bot: it is added, someone types a command wrong, a player joins without having started
the private chat, a player sits at tables in two groups.  What matters is that every
message anyone types gets an answer that says what to do next.
"""

from __future__ import annotations

from pathlib import Path

from telegram import Update

from bot.i18n import cards_text
from engine import protocol as P
from tests.e2e.clocks import reminded
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.protocol import BOT_USERNAME
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    Players,
    confirmed,
    deal_over,
    fake,
    hand_message,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]

BOT = BOT_USERNAME
GAMES = "zweier, dreier, bauern, tausend"


async def answer_to(fake: FakeTelegram, user: FakeUser, chat: FakeChat, text: str) -> FakeMessage:
    """`user` types `text` in `chat`; the bot's next message there."""
    typed = user.send(chat, text)
    return await fake.wait_for_message(chat, after=typed)


async def test_the_bot_added_to_a_group_says_how_to_begin(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Added to a group, the bot says how to open a table and that each player must
    start its private chat once (with the link), in the language of whoever added it;
    /help in a group says the same."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", greet_after=0.1)
    try:
        anna = fake.create_user("Anna", started=True)
        toni = fake.create_user("Toni", language_code="de-AT")
        english = fake.create_group("Evening", members=[anna], creator=anna, bot_status="left")
        german = fake.create_group("Abend", members=[toni], creator=toni, bot_status="left")
        fake.set_bot_status(english, "member", by=anna)
        fake.set_bot_status(german, "member", by=toni)
        hello = await fake.wait_for_message(english)
        assert "/new <game>" in hello.text
        assert f"open https://t.me/{BOT} and press Start once" in hello.text
        hallo = await fake.wait_for_message(german)
        assert "/new <Spiel>" in hallo.text and f"https://t.me/{BOT}" in hallo.text

        helped = await answer_to(fake, anna, english, "/help")
        assert helped.text == hello.text
    finally:
        await stop_rig(rig)


async def test_a_command_typed_wrong_gets_an_answer(fake: FakeTelegram, tmp_path: Path) -> None:
    """A typo of one of the bot's commands, a game it does not know, a group command
    in the private chat, or words there: each is answered with what to do instead of
    silence or nonsense.  Commands of other bots in the group are left alone, those
    that look like one of ours too (/report is not a typo of /record), and an edited
    message gets no second answer."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna"])
        anna = players.users[0]
        group, private = players.group, anna.private_chat

        said = await answer_to(fake, anna, group, "/nwe dreier")
        assert said.text == "I do not know /nwe. Did you mean /new?"
        said = await answer_to(fake, anna, group, "/nwee")
        assert said.text == "I do not know /nwee. Did you mean /new?"
        said = await answer_to(fake, anna, group, "/stast")
        assert said.text == "I do not know /stast. Did you mean /stats?"
        said = await answer_to(fake, anna, group, f"/nue@{BOT}")
        assert said.text == "I do not know /nue. Did you mean /new?"
        said = await answer_to(fake, anna, group, f"/deal@{BOT}")
        assert said.text == "I do not know /deal; /help lists what I understand."
        said = await answer_to(fake, anna, group, f"/status@{BOT}")  # named: surely ours
        assert said.text == "I do not know /status. Did you mean /stats?"
        others = ["/report spam", "/status", "/reset", "/about", "/setrules", "/news", "/ban x"]
        for text in others:  # other bots' commands, some much like ours: not answered
            anna.send(group, text)
        anna.send(group, "/new@other_bot")
        said = await answer_to(fake, anna, group, "/rules xyz")
        assert said.text == f"Unknown game xyz. Games: {GAMES}."  # was "xyz\nxyz"
        assert await rig.adapter.outbox.drain(5)
        bot_said = [m.text for m in group.bot_messages()]
        assert len(bot_said) == 7, bot_said  # nothing for the other bots' commands
        # the words after a game, as /new reads them: not dropped for the standard rules
        said = await answer_to(fake, anna, group, "/rules tausend golden")
        assert "• golden round: until everyone has dealt once" in said.text, said.text
        said = await answer_to(fake, anna, group, "/rules zweier auto_claim = off")
        assert "• 66 is claimed for you the moment you have it: off" in said.text
        said = await answer_to(fake, anna, group, "/rules dreier xyz")
        assert said.text.startswith("Unknown preset xyz. Presets: standard,"), said.text

        said = await answer_to(fake, anna, group, "/leaderboard skat")
        assert said.text == f"Unknown game skat. Games: {GAMES}."  # not "no games yet"
        said = await answer_to(fake, anna, group, "/leaderboard schnapsen")  # another name
        assert said.text.startswith("Leaderboard — Schnapsen (2 players)")
        said = await answer_to(fake, anna, group, "/leaderboard zweier global")
        assert "No rated games yet" in said.text  # a real game and scope still work
        said = await answer_to(fake, anna, group, "/leaderboard zweier page 2")
        assert "No rated games yet" in said.text  # "page" is no game
        said = await answer_to(fake, anna, group, "/stats @bert")  # not Anna's own
        assert said.text.startswith("/stats shows your statistics in this chat")
        assert "as a reply to one of their messages" in said.text
        said = await answer_to(fake, anna, group, "/stats global")
        assert said.text == "Anna has no finished games yet."

        said = await answer_to(fake, anna, private, "/abort")
        assert said.text == "Use this command in a group."  # not "no table of yours"
        said = await answer_to(fake, anna, private, "/resign")
        assert said.text == "Use this command in a group."
        words = anna.send(private, "hello?")
        said = await fake.wait_for_message(private, after=words)
        assert "Open a table: /new" in said.text
        said = await answer_to(fake, anna, private, "/play")
        assert said.text == "I do not know /play; /help lists what I understand."
        said = await answer_to(fake, anna, private, "/status")  # the private chat is ours
        assert said.text == "I do not know /status. Did you mean /stats?"
        assert await rig.adapter.outbox.drain(5)
        assert not [m for m in group.bot_messages() if "/ban" in m.text or "other_bot" in m.text]

        # Anna corrects what she typed.  Telegram sends the edits if the bot ever asked
        # for them (or made before it said it does not): handed to it here as such.
        answered = len(private.bot_messages()), len(group.bot_messages())
        typo = anna.send(group, "/nwe")
        await fake.wait_for_message(group, after=typo)
        answered = answered[0], answered[1] + 1
        for message, text in ((words, "hello, anyone?"), (typo, "/nwee zweier")):
            edited = anna.edit(message, text)
            assert edited is not None
            update = Update.de_json(fake.update(edited), rig.adapter.app.bot)
            await rig.adapter.app.process_update(update)
        assert await rig.adapter.outbox.drain(5)
        assert (len(private.bot_messages()), len(group.bot_messages())) == answered
    finally:
        await stop_rig(rig)


async def test_joining_again_without_the_private_chat_gives_the_link_again(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Berti joins without ever having started the bot and closes the private chat the
    answer opened; pressing Join again opens it again, instead of "You already have a
    seat at this table", which leaves him stuck while the host cannot start."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna = fake.create_user("Anna", started=True)
        berti = fake.create_user("Berti")
        group = fake.create_group("Evening", members=[anna, berti], creator=anna)
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host: Anna")
        first = await press(fake, berti, lobby, "Join")
        assert first.url is not None and first.url.startswith(f"https://t.me/{BOT}?start=")
        again = await press(fake, berti, lobby, "Join")
        assert (again.url, again.text, again.show_alert) == (first.url, first.text, False)

        # once he has started the bot, a second Join is the core's plain refusal
        berti.start_bot(payload=first.url.rsplit("=", 1)[1])
        await fake.wait_for_message(berti.private_chat, contains="You sit at table")
        seated = await press(fake, berti, lobby, "Join")
        assert seated.show_alert and seated.text == "You already have a seat at this table."
    finally:
        await stop_rig(rig)


async def test_a_reminder_answers_the_hand_of_its_table(fake: FakeTelegram, tmp_path: Path) -> None:
    """Anna and Berti play in two groups at once; the turn reminder in the private
    chat is a reply to the hand message of the table that waits, so it says which one
    (the reminder's text names no table) and a tap on it leads to the buttons.  Turns
    are long, and the test sends the reminder of one table's turn itself: with a short
    turn, a store write slower than the turn (a loaded machine) left none to see."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        office = fake.create_group("Office", members=[anna, berti], creator=anna)
        other, other_lobby = await open_table(rig, Players(office, players.users), "/new zweier")
        assert not (await press(fake, anna, other_lobby, "Start")).show_alert
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert

        table = rig.table(table_id)
        assert table is not None and table.to_act() is not None
        waited = players.users[table.to_act() or 0]
        assert await reminded(rig.service, table_id)  # its timer's callback, run now
        note = await fake.wait_for_message(waited.private_chat, contains="it is your turn")
        hand = hand_message(waited, table_id)
        assert hand is not None and hand is not hand_message(waited, other)
        assert note.reply_to is hand
    finally:
        await stop_rig(rig)


async def test_the_hands_of_a_finished_deal_say_it_is_over(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Once a deal is scored, each player's hand message of it says so (in his
    language), instead of a last "Your turn." without buttons or "Waiting for ...";
    after the match no hand is left saying it waits for anyone."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna = fake.create_user("Anna", started=True)
        toni = fake.create_user("Toni", started=True, language_code="de")
        players = Players(
            fake.create_group("Evening", members=[anna, toni], creator=anna), [anna, toni]
        )
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await play(rig, table_id, players.users, until=deal_over(rig, table_id))
        assert await rig.adapter.outbox.drain(5)
        first = {u.first_name: u.private_chat.bot_messages()[1] for u in players.users}
        table = rig.table(table_id)
        assert table is not None
        ended = table.deals[0]
        state = ended.state0
        for match_seat, action in ended.actions:
            state, _ = P.apply(state, ended.spec.seats.index(match_seat), action)
        # the hand as the deal left it: the cards each still held, then the note
        anna_lines = first["Anna"].text.split("\n")
        assert anna_lines[0] == f"Your hand at table {table_id} in Evening — Schnapsen (2 players)"
        assert anna_lines[-1] == "Deal 1 is over; the result is in the group."
        toni_lines = first["Toni"].text.split("\n")
        assert (
            toni_lines[0] == f"Deine Karten am Tisch {table_id} in „Evening“ — Schnapsen (zu zweit)"
        )
        assert toni_lines[-1] == "Runde 1 ist vorbei; das Ergebnis steht in der Gruppe."
        for lines, lang, key in ((anna_lines, "en", "Hand"), (toni_lines, "de", "Karten")):
            seat = 0 if lang == "en" else 1
            held = P.view(state, ended.spec.seats.index(seat)).hand
            assert f"{key}: {cards_text(held, lang)}" in lines, lines
        assert not any("Your turn" in x or "Waiting" in x for x in anna_lines)

        await confirmed(fake, anna, players.group, "/resign")
        await fake.wait_for(lambda: rig.table(table_id) is None, what="the match to end")
        assert await rig.adapter.outbox.drain(5)
        for user in players.users:
            last = user.private_chat.bot_messages()[-1]
            assert last is not first[user.first_name] and not last.buttons()
            assert last.text.split("\n")[-1] in ("The match is over.", "Die Partie ist vorbei.")
            assert "Waiting" not in last.text and "Warte auf" not in last.text
    finally:
        await stop_rig(rig)


async def test_a_lobby_closed_before_the_start_says_so(fake: FakeTelegram, tmp_path: Path) -> None:
    """Anna opens a table, Toni joins, Anna closes it again with /abort: the lobby
    left in the group no longer says the host can start, nor when it closes."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna = fake.create_user("Anna", started=True)
        toni = fake.create_user("Toni", started=True)
        players = Players(
            fake.create_group("Evening", members=[anna, toni], creator=anna), [anna, toni]
        )
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert "the host can start" in lobby.text
        anna.send(players.group, "/abort")
        await fake.wait_for(lambda: rig.table(table_id) is None, what="the table to close")
        assert await rig.adapter.outbox.drain(5)
        assert "This table was closed." in lobby.text and "Toni" in lobby.text
        assert "host can start" not in lobby.text and "lobby closes" not in lobby.text
        assert not lobby.buttons()
        # its Start pressed from a client that still shows it (the first keyboard)
        answer = await fake.wait_answer(anna.press(lobby, "Start", revision=0))
        assert answer.show_alert and answer.text == "That table is closed.", answer
    finally:
        await stop_rig(rig)
