"""'Rematch' on Telegram: the button under a match's summary opens the same game again
where the summary is (its forum topic too), and the other player's press seats him."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.fakes.telegram_api import FakeTelegram
from tests.e2e.telegram_harness import confirmed, fake, log_guard, press, start_rig, stop_rig
from tests.e2e.test_telegram_topics import forum_players, open_in_topic

__all__ = ["fake", "log_guard"]


async def test_rematch_opens_in_the_matchs_topic_and_the_other_player_joins_it(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = forum_players(fake, ["Anna", "Berti", "Cilli"])
        anna, berti, cilli = players.users
        group = players.group
        topic = group.create_topic("Schnapsen")
        table_id, lobby = await open_in_topic(rig, group, topic, anna, berti)
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await confirmed(fake, anna, group, "/resign")
        summary = await fake.wait_for_message(group, contains="Anna resigned.")
        assert summary.message_thread_id == topic
        assert [b.text for b in summary.buttons()] == ["Rematch"]

        # Cilli did not play: she is told to open her own table, nothing opens
        refused = await press(fake, cilli, summary, "Rematch")
        assert refused.show_alert and f"Only the players of table {table_id}" in (
            refused.text or ""
        )
        answer = await press(fake, berti, summary, "Rematch")
        assert not answer.show_alert, answer.text
        rematch = await fake.wait_for_message(group, contains=f"A rematch of table {table_id}")
        assert rematch.message_thread_id == topic, group.transcript()
        assert "Host: Berti" in rematch.text
        [new] = [t for t in rig.adapter.service.tables.values() if t.rematch_of == table_id]

        # Anna (who blocked the bot meanwhile) presses too: that seats her there, no
        # second lobby, and she is given the link to the private chat, as by Join
        anna.block_bot()
        await fake.wait_for(lambda: rig.adapter.unreachable, what="the block heard")
        answer = await press(fake, anna, summary, "Rematch")
        assert answer.url and answer.url.endswith(f"?start={new.id}"), answer
        await fake.wait_for(lambda: "Anna" in rematch.text, what="Anna in the lobby")
        assert [t.id for t in rig.adapter.service.tables.values() if t.rematch_of == table_id] == [
            new.id
        ]
        anna.start_bot(new.id)  # she follows the link
        await fake.wait_for(lambda: not rig.adapter.unreachable, what="the unblock heard")
        assert not (await press(fake, berti, rematch, "Start")).show_alert
        await fake.wait_for(lambda: new.status.value == "playing", what="the rematch started")
    finally:
        await stop_rig(rig)
