"""The fake Discord works with the real discord.py: proof by a tiny throwaway bot.

The bot here is not the Schnapsen adapter; it exercises exactly the discord.py features
the adapter relies on (slash commands with subcommands, persistent ``DynamicItem``
buttons, DMs, ephemeral replies, deferring) so a failure points at the fake, not at game
code. Each test runs a fresh fake server and a fresh bot; the discord.py patches are
process-wide, so they are applied per test and undone afterwards.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import pytest
from discord import app_commands
from discord.ext import commands

from tests.e2e.fakes.discord.discordpy import ErrorLogGuard, running_client
from tests.e2e.fakes.discord.entities import FakeChannel, FakeGuild, FakeUser
from tests.e2e.fakes.discord.errors import InteractionFailed
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.fakes.discord.protocol import Limits, MessageFlag
from tests.e2e.fakes.discord.server import FakeDiscord

TABLE = 42


# --------------------------------------------------------------------------- the bot


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"game:(?P<table>[0-9]+):(?P<action>[a-z]+)",
):
    """A button that works on any message carrying its custom_id, even after a restart."""

    def __init__(self, table: int, action: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=action.title(),
                custom_id=f"game:{table}:{action}",
                style=discord.ButtonStyle.primary,
            )
        )
        self.table = table
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> GameButton:
        return cls(int(match["table"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: ThrowawayBot = interaction.client
        await bot.on_press(interaction, self.table, self.action)


ACTIONS = ("hand", "play", "dm", "slow", "double", "late", "expire")


def table_view(table: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ACTIONS:
        view.add_item(GameButton(table, action))
    return view


schnapsen = app_commands.Group(name="schnapsen", description="Play Schnapsen")


@schnapsen.command(name="new", description="Open a table")
@app_commands.describe(points="Points needed to win")
async def new_table(
    interaction: discord.Interaction[Any], points: app_commands.Range[int, 1, 24] = 7
) -> None:
    await interaction.response.send_message(
        f"Table {TABLE} open, {points} points to win", view=table_view(TABLE)
    )


@schnapsen.command(name="think", description="Defer with thinking, then fill in")
async def think(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.defer(thinking=True)
    await interaction.edit_original_response(content="Thought it through")


@schnapsen.command(name="announce", description="Post to the channel")
async def announce(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    assert isinstance(interaction.channel, discord.abc.Messageable)
    await interaction.channel.send("A new table is open")
    await interaction.followup.send("Announced", ephemeral=True)


@schnapsen.command(name="long", description="Try a custom_id over 100 characters")
async def long_id(interaction: discord.Interaction[Any]) -> None:
    bot: ThrowawayBot = interaction.client
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Too long", custom_id="x" * 101))
    try:
        await interaction.response.send_message("buttons", view=view)
    except discord.HTTPException as error:
        bot.outcomes.put_nowait(("long", error.code))
        await interaction.response.send_message("Could not show the buttons", ephemeral=True)


EXPORT = b'{"deals": []}\n'


def export_file(data: bytes = EXPORT) -> discord.File:
    return discord.File(io.BytesIO(data), filename="game.json")


@schnapsen.command(name="export", description="A file, ephemerally")
async def export(interaction: discord.Interaction[Any]) -> None:
    bot: ThrowawayBot = interaction.client
    try:
        await interaction.response.send_message("Here it is", file=export_file(), ephemeral=True)
    except discord.HTTPException as error:
        bot.outcomes.put_nowait(("export", (error.status, error.code)))
        await interaction.response.send_message("Too big to send", ephemeral=True)


@schnapsen.command(name="export-later", description="Defer, then files in followups")
async def export_later(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    await interaction.followup.send("First", file=export_file(), ephemeral=True)
    await interaction.followup.send("Second", file=export_file(b"2"), ephemeral=True)
    await interaction.edit_original_response(attachments=[export_file(b"replaced")])


class BidMenu(discord.ui.Select[discord.ui.View]):
    def __init__(self) -> None:
        super().__init__(
            custom_id=f"bid:{TABLE}",
            placeholder="Your bid",
            options=[discord.SelectOption(label=game, value=game.lower()) for game in GAMES],
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(
            content=f"{interaction.user.name} bids {self.values[0]}"
        )


@schnapsen.command(name="bid", description="Offer a bid menu")
async def bid(interaction: discord.Interaction[Any]) -> None:
    view = discord.ui.View(timeout=60)
    view.add_item(BidMenu())
    await interaction.response.send_message("Bidding", view=view)


GAMES = ("Normal", "Schnapser", "Bettler")


admin = app_commands.Group(
    name="admin",
    description="Moderation",
    default_permissions=discord.Permissions(manage_guild=True),
    guild_only=True,
)


@admin.command(name="reset", description="Reset a table")
async def reset(interaction: discord.Interaction[Any], table: int) -> None:
    await interaction.response.send_message(f"Table {table} reset", ephemeral=True)


class ThrowawayBot(commands.Bot):
    """Records what it observed in ``outcomes`` so tests can await it (bounded)."""

    def __init__(
        self, *, name: str = "bot", sync_guild: int | None = None, autosharded: bool = False
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.05,
        )
        self.name = name
        self.sync_guild = sync_guild
        self.outcomes: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.release = asyncio.Event()
        """Lets a test decide when a deliberately slow handler goes on."""
        self.tree.add_command(schnapsen)
        self.tree.add_command(admin)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(GameButton)
        if self.sync_guild is None:
            await self.tree.sync()
        else:
            guild = discord.Object(id=self.sync_guild)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)

    async def on_message(self, message: discord.Message) -> None:
        if message.author != self.user:
            self.outcomes.put_nowait(("message", message.content))

    async def outcome(self, timeout: float = 5.0) -> tuple[str, Any]:
        return await asyncio.wait_for(self.outcomes.get(), timeout)

    async def on_press(
        self, interaction: discord.Interaction[Any], table: int, action: str
    ) -> None:
        user = interaction.user
        if action == "hand":
            await interaction.response.send_message(f"Your hand, {user.name}", ephemeral=True)
        elif action == "play":
            try:
                await interaction.response.edit_message(content=f"{user.name} played ({self.name})")
            except discord.HTTPException as error:
                self.outcomes.put_nowait(("play_failed", error.code))
                await interaction.response.send_message(f"Table {table} continues here")
        elif action == "dm":
            try:
                await user.send(f"Your cards at table {table}")
            except discord.Forbidden as error:
                self.outcomes.put_nowait(("dm_failed", error.code))
                await interaction.response.send_message(
                    "Your DMs are closed; here is your hand instead", ephemeral=True
                )
            else:
                await interaction.response.send_message("Sent you a DM", ephemeral=True)
        elif action == "slow":
            await interaction.response.defer()
            await interaction.edit_original_response(content=f"{user.name} played slowly")
        elif action == "double":
            results = await asyncio.gather(
                interaction.response.defer(), interaction.response.defer(), return_exceptions=True
            )
            codes = [r.code for r in results if isinstance(r, discord.HTTPException)]
            self.outcomes.put_nowait(("double", codes))
        elif action == "late":
            await self.release.wait()
            try:
                await interaction.response.send_message("Sorry for the wait")
            except discord.NotFound as error:
                self.outcomes.put_nowait(("late", error.code))
        elif action == "boom":
            raise RuntimeError("boom: a broken handler")
        elif action == "expire":
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.release.wait()
            try:
                await interaction.followup.send("Still there?")
            except discord.HTTPException as error:
                self.outcomes.put_nowait(("expired", (error.status, error.code)))


# --------------------------------------------------------------------------- fixtures


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    table: FakeChannel
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser
    """Carol closed her DMs."""
    moderator: FakeUser


@pytest.fixture
def log_guard() -> Iterator[ErrorLogGuard]:
    guard = ErrorLogGuard("discord")
    guard.install()
    yield guard
    guard.uninstall()
    guard.check()


@pytest.fixture
async def world(log_guard: ErrorLogGuard) -> AsyncIterator[World]:
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    async with FakeDiscord(limits=Limits()) as fake:
        guild = fake.add_guild("Wirtshaus")
        table = fake.add_text_channel(guild, "schnapsen")
        users = [fake.add_user(name) for name in ("alice", "bob")]
        carol = fake.add_user("carol", dms_closed=True)
        moderator = fake.add_user("moderator")
        for user in (*users, carol):
            fake.add_member(guild, user)
        fake.add_member(guild, moderator, manage_guild=True)
        with fake.patched():
            yield World(fake, guild, table, users[0], users[1], carol, moderator)
        fake.assert_healthy()
    assert saved == (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)


@pytest.fixture
async def bot(world: World) -> AsyncIterator[ThrowawayBot]:
    async with running_client(ThrowawayBot(), world.fake) as client:
        yield client


async def open_table(world: World, user: FakeUser | None = None) -> FakeMessage:
    """/schnapsen new, returning the table message with its buttons."""
    interaction = await world.fake.slash(user or world.alice, world.table, "schnapsen new")
    return await interaction


# --------------------------------------------------------------------------- tests


async def test_login_ready_and_guild_available(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and not guild.unavailable
    assert guild.me is not None and guild.me.id == fake.bot_user.id
    assert [c.name for c in guild.text_channels] == ["schnapsen"]
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.application_id == fake.application_id
    [session] = fake.sessions
    assert session.shard is None
    [connection] = fake.connections
    assert connection.requested_compression == "zlib-stream"
    assert connection.compression == "zlib-stream"
    assert {r.route for r in fake.requests} >= {"/users/@me", "/oauth2/applications/@me"}


@pytest.mark.parametrize("scope", ["global", "guild"])
async def test_slash_sync_then_invocation_replies_with_buttons(world: World, scope: str) -> None:
    fake = world.fake
    sync_guild = world.guild.id if scope == "guild" else None
    async with running_client(ThrowawayBot(sync_guild=sync_guild), fake):
        synced = fake.commands(world.guild if scope == "guild" else None)
        assert {c["name"] for c in synced} == {"schnapsen", "admin"}
        assert all(c["id"].isdigit() for c in synced)

        interaction = await fake.slash(world.alice, world.table, "schnapsen new", points=11)
        message = await interaction
        assert interaction.callback_type == 4
        assert message.content == f"Table {TABLE} open, 11 points to win"
        assert [[b.label for b in row] for row in message.rows] == [
            ["Hand", "Play", "Dm", "Slow", "Double"],
            ["Late", "Expire"],
        ]
        assert message.button("Play").custom_id == f"game:{TABLE}:play"
        assert message.interaction_metadata is not None
        assert message.interaction_metadata["name"] == "schnapsen new"
        assert fake.channel_messages(world.table) == [message]

    with pytest.raises(ValueError, match="points"):
        await fake.slash(world.alice, world.table, "schnapsen new", points=99)
    with pytest.raises(LookupError):
        await fake.slash(world.alice, world.table, "schnapsen nonsense")


async def test_default_member_permissions_hide_a_command(world: World, bot: ThrowawayBot) -> None:
    with pytest.raises(PermissionError):
        await world.fake.slash(world.alice, world.table, "admin reset", table=1)
    reply = await (await world.fake.slash(world.moderator, world.table, "admin reset", table=1))
    assert reply.content == "Table 1 reset"
    assert reply.ephemeral_for is world.moderator


async def test_dynamic_button_press_updates_the_message(world: World, bot: ThrowawayBot) -> None:
    message = await open_table(world)
    press = await world.fake.click(world.bob, message, "Play")
    assert await press.wait_acknowledged() == 7
    assert message.content == "bob played (bot)"
    assert [revision.content for revision in message.history] == [
        f"Table {TABLE} open, 7 points to win"
    ]
    assert message.edited_at is not None


async def test_dynamic_button_works_after_a_restart(world: World) -> None:
    fake = world.fake
    async with running_client(ThrowawayBot(name="first"), fake):
        message = await open_table(world)
    assert fake.sessions == []

    async with running_client(ThrowawayBot(name="second"), fake):
        press = await fake.click(world.bob, message, f"game:{TABLE}:play")
        await press.wait_acknowledged()
        assert message.content == "bob played (second)"


async def test_dm_and_closed_dms(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await open_table(world)

    reply = await (await fake.click(world.alice, message, "Dm"))
    assert reply.content == "Sent you a DM"
    assert [m.content for m in fake.dms(world.alice)] == [f"Your cards at table {TABLE}"]

    press = await fake.click(world.carol, message, "Dm")
    assert await bot.outcome() == ("dm_failed", 50007)
    fallback = await press
    assert fallback.ephemeral_for is world.carol
    assert fake.dms(world.carol) == []
    assert [r.code for r in fake.requests if r.status == 403] == [50007]


async def test_ephemeral_reply_is_visible_only_to_the_presser(
    world: World, bot: ThrowawayBot
) -> None:
    fake = world.fake
    message = await open_table(world)
    hand = await (await fake.click(world.alice, message, "Hand"))
    assert hand.content == "Your hand, alice"
    assert hand.flags & MessageFlag.EPHEMERAL
    assert fake.ephemerals(world.alice) == [hand]
    assert fake.ephemerals(world.bob) == []
    assert hand not in fake.channel_messages(world.table)
    assert hand in fake.visible_messages(world.alice, world.table)
    assert hand not in fake.visible_messages(world.bob, world.table)
    with pytest.raises(PermissionError):
        await fake.click(world.bob, hand, "anything", forged=True)

    # Only the interaction token reaches an ephemeral message, never a channel route.
    with pytest.raises(discord.NotFound) as raised:
        await bot.http.get_message(world.table.id, hand.id)
    assert raised.value.code == 10008


async def test_defer_then_edit_original(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    thinking = await fake.slash(world.alice, world.table, "schnapsen think")
    assert await thinking.wait_acknowledged() == 5
    reply = await thinking
    assert reply.content == "Thought it through"
    assert not reply.loading

    message = await open_table(world)
    press = await fake.click(world.bob, message, "Slow")
    assert await press.wait_acknowledged() == 6
    await fake.wait_for(lambda: message.content == "bob played slowly")
    assert press.original is message


async def test_second_acknowledgement_is_rejected_with_40060(
    world: World, bot: ThrowawayBot
) -> None:
    message = await open_table(world)
    press = await world.fake.click(world.alice, message, "Double")
    assert await bot.outcome() == ("double", [40060])
    assert press.callback_type == 6
    assert [error.code for error in press.rejections] == [40060]


async def test_late_first_response_gets_10062(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await open_table(world)
    fake.limits.ack_deadline = 0.2
    press = await fake.click(world.alice, message, "Late")
    with pytest.raises(InteractionFailed):
        await press.wait_acknowledged()
    bot.release.set()
    assert await bot.outcome() == ("late", 10062)
    assert not press.acknowledged


async def test_expired_token_rejects_followups(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await open_table(world)
    fake.limits.token_lifetime = 0.3
    press = await fake.click(world.alice, message, "Expire")
    assert await press.wait_acknowledged() == 5
    await fake.wait_for(lambda: press.token_expired)
    bot.release.set()
    assert await bot.outcome() == ("expired", (401, 50027))


@pytest.mark.parametrize(
    ("method", "route"),
    [
        ("POST", "/channels/{channel_id}/messages"),
        ("POST", "/interactions/{interaction_id}/{token}/callback"),
        ("POST", "/webhooks/{webhook_id}/{token}"),
    ],
)
async def test_rate_limited_route_is_retried(
    world: World, bot: ThrowawayBot, method: str, route: str
) -> None:
    fake = world.fake
    fake.rate_limit(method, route, times=2, retry_after=0.05)
    interaction = await fake.slash(world.alice, world.table, "schnapsen announce")
    reply = await interaction
    assert reply.content == "Announced"
    assert interaction.followups == []  # the first followup fills in the deferred reply
    assert [m.content for m in fake.channel_messages(world.table)] == ["A new table is open"]
    assert [r.status for r in fake.requests_to(method, route)] == [429, 429, 200]


async def test_custom_id_over_100_characters_is_rejected(world: World, bot: ThrowawayBot) -> None:
    interaction = await world.fake.slash(world.alice, world.table, "schnapsen long")
    assert await bot.outcome() == ("long", 50035)
    reply = await interaction
    assert reply.content == "Could not show the buttons"
    [rejection] = interaction.rejections
    errors = rejection.errors
    assert errors is not None
    custom_id_errors = errors["data"]["components"]["0"]["components"]["0"]["custom_id"]["_errors"]
    assert custom_id_errors[0]["code"] == "BASE_TYPE_MAX_LENGTH"


async def test_component_layout_limits(world: World, bot: ThrowawayBot) -> None:
    def button(index: int) -> dict[str, Any]:
        return {"type": 2, "style": 1, "label": str(index), "custom_id": f"b{index}"}

    too_many_rows = [{"type": 1, "components": [button(i)]} for i in range(6)]
    too_wide_row = [{"type": 1, "components": [button(i) for i in range(6)]}]
    for components in (too_many_rows, too_wide_row):
        route = discord.http.Route(
            "POST", "/channels/{channel_id}/messages", channel_id=world.table.id
        )
        with pytest.raises(discord.HTTPException) as raised:
            await bot.http.request(route, json={"content": "x", "components": components})
        assert raised.value.code == 50035
    assert world.fake.channel_messages(world.table) == []


async def test_forged_and_stale_clicks(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await open_table(world)
    forged = await fake.click(world.bob, message, "game:7:play", forged=True)
    await forged.wait_acknowledged()
    assert message.content == "bob played (bot)"

    fake.limits.ack_deadline = 0.2
    ignored = await fake.click(world.bob, message, "not-a-game-button", forged=True)
    with pytest.raises(InteractionFailed):
        await ignored.wait_acknowledged()


async def test_editing_an_old_message_hits_30046(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await open_table(world)
    fake.age_message(message, 2 * 3600)
    press = await fake.click(world.alice, message, "Play")
    assert await bot.outcome() == ("play_failed", 30046)
    replacement = await press
    assert replacement is not message
    assert replacement.content == f"Table {TABLE} continues here"
    assert message.history == []


async def test_gateway_resume_replays_missed_events(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await open_table(world)
    [session] = fake.sessions
    await fake.drop_connections()
    press = await fake.click(world.bob, message, "Play")  # sent while the bot is away
    await fake.wait_for(lambda: session.resumes == 1 and session.connection is not None)
    await press.wait_acknowledged()
    assert message.content == "bob played (bot)"
    assert fake.sessions == [session]


async def test_autosharded_bot_uses_gateway_bot(world: World) -> None:
    fake = world.fake
    client = commands.AutoShardedBot(
        command_prefix=commands.when_mentioned,
        intents=discord.Intents.default(),
        guild_ready_timeout=0.05,
    )
    async with running_client(client, fake):
        assert [r.status for r in fake.requests_to("GET", "/gateway/bot")] == [200]
        [session] = fake.sessions
        assert session.shard == (0, 1)
        assert client.get_guild(world.guild.id) is not None


async def test_slash_command_in_a_dm(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    reply = await (await fake.slash(world.alice, None, "schnapsen think"))
    assert reply.content == "Thought it through"
    assert reply.channel.is_dm and reply.channel.recipient is world.alice
    assert fake.dms(world.alice) == [reply]
    with pytest.raises(PermissionError):  # guild_only: Discord hides it in DMs
        await fake.slash(world.moderator, None, "admin reset", table=1)


async def test_select_menu(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await (await fake.slash(world.alice, world.table, "schnapsen bid"))
    [menu] = message.selects
    assert menu.placeholder == "Your bid"
    assert [value for _, value in menu.options] == ["normal", "schnapser", "bettler"]
    with pytest.raises(ValueError):
        await fake.select(world.bob, message, "Your bid", ["durchmarsch"])
    # discord.py stores the message's view once its answer to the interaction returns,
    # after the message exists here: a select before that finds no view (Python 3.13
    # schedules it so)
    views = bot._connection._view_store._views
    await fake.wait_for(lambda: message.id in views or None, description="the view stored")
    choice = await fake.select(world.bob, message, "Your bid", ["schnapser"])
    assert await choice.wait_acknowledged() == 7
    assert message.content == "bob bids schnapser"


async def test_user_messages_respect_the_message_content_intent(
    world: World, bot: ThrowawayBot
) -> None:
    fake = world.fake
    await fake.post(world.alice, world.table, "hello table")
    assert await bot.outcome() == ("message", "")  # no MESSAGE_CONTENT intent
    await fake.post(world.alice, world.table, f"{fake.bot_user.mention} deal")
    assert await bot.outcome() == ("message", f"{fake.bot_user.mention} deal")


async def test_error_log_guard_catches_handler_exceptions(
    world: World, bot: ThrowawayBot, log_guard: ErrorLogGuard
) -> None:
    fake = world.fake
    log_guard.allow("boom: a broken handler")
    message = await open_table(world)
    fake.limits.ack_deadline = 0.2
    with ErrorLogGuard() as inner:
        press = await fake.click(world.alice, message, f"game:{TABLE}:boom", forged=True)
        with pytest.raises(InteractionFailed):
            await press.wait_acknowledged()
        [record] = inner.records
        assert record.exc_info is not None and "boom" in str(record.exc_info[1])
        inner.records.clear()


async def test_concurrent_presses_each_get_their_own_reply(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    message = await open_table(world)
    players = [world.alice, world.bob, world.carol, world.moderator]
    presses = await asyncio.gather(*(fake.click(p, message, "Hand") for p in players))
    replies = await asyncio.gather(*presses)
    for player, reply in zip(players, replies, strict=True):
        assert reply.content == f"Your hand, {player.username}"
        assert fake.ephemerals(player) == [reply]


async def test_world_changes_reach_a_connected_bot(world: World, bot: ThrowawayBot) -> None:
    fake = world.fake
    created = asyncio.ensure_future(bot.wait_for("guild_channel_create", timeout=5))
    channel = fake.add_text_channel(world.guild, "second-table")
    assert (await created).id == channel.id

    joined = asyncio.ensure_future(bot.wait_for("guild_join", timeout=5))
    guild = fake.add_guild("Kaffeehaus")
    assert (await joined).id == guild.id


async def test_files_on_an_interaction_response(world: World, bot: ThrowawayBot) -> None:
    """A multipart callback (type 4): ``payload_json`` plus ``files[0]``, as discord.py
    sends a ``discord.File``; the message carries it as an attachment."""
    interaction = await world.fake.slash(world.alice, world.table, "schnapsen export")
    assert await interaction.wait_acknowledged() == 4
    reply = await interaction
    assert reply.content == "Here it is" and reply.ephemeral_for is world.alice
    [attachment] = reply.attachments
    assert (attachment["filename"], attachment["size"]) == ("game.json", len(EXPORT))
    assert attachment["ephemeral"] is True  # Discord's mark on an ephemeral message's files
    assert reply.files[int(attachment["id"])] == EXPORT
    assert attachment["url"].endswith(f"/{attachment['id']}/game.json")


async def test_files_on_followups_and_an_original_response_edit(
    world: World, bot: ThrowawayBot
) -> None:
    """The first followup after a "thinking" defer fills in the deferred message, file
    and all; the next is a message of its own; an edit naming only a new file replaces
    the old one."""
    interaction = await world.fake.slash(world.alice, world.table, "schnapsen export-later")
    assert await interaction.wait_acknowledged() == 5
    [second] = await interaction.wait_followups()
    original = interaction.original
    assert original is not None
    await world.fake.wait_for(lambda: bool(original.history) and original.edited_at is not None)
    assert original.content == "First" and not original.loading
    [attachment] = original.attachments
    assert attachment["filename"] == "game.json"
    assert list(original.files.values()) == [b"replaced"]
    assert second.content == "Second" and second.ephemeral_for is world.alice
    assert list(second.files.values()) == [b"2"]


async def test_an_upload_over_the_size_limit_is_refused(world: World, bot: ThrowawayBot) -> None:
    """Discord refuses a request whose files exceed the interaction's
    ``attachment_size_limit`` with 413 / 40005, and nothing is sent."""
    world.fake.limits.max_upload = len(EXPORT) - 1
    interaction = await world.fake.slash(world.alice, world.table, "schnapsen export")
    assert await bot.outcome() == ("export", (413, 40005))
    assert interaction.payload["attachment_size_limit"] == len(EXPORT) - 1
    reply = await interaction
    assert reply.content == "Too big to send" and reply.attachments == []


async def test_a_dropped_request_is_never_carried_out(world: World, bot: ThrowawayBot) -> None:
    """A held request that is dropped (the bot was killed while it was on its way)
    changes nothing and gets no answer; the next one passes."""
    fake = world.fake
    channel = bot.get_partial_messageable(world.table.id)
    sent = await channel.send("Table open")
    path = f"/channels/{world.table.id}/messages/{sent.id}"
    hold = fake.hold("PATCH", path)
    edit = asyncio.create_task(sent.edit(content="Table closed"))
    await hold.wait_held()
    hold.drop()
    with pytest.raises((aiohttp.ClientError, OSError)):
        await edit
    [message] = fake.channel_messages(world.table)
    assert message.content == "Table open" and message.history == []

    await sent.edit(content="Table closed")
    assert message.content == "Table closed"
    assert [r.status for r in fake.requests_to("PATCH", path)] == [0, 200]


async def test_a_chosen_refusal_is_answered_as_discord_spells_it(
    world: World, bot: ThrowawayBot
) -> None:
    """`refuse` answers the chosen requests with Discord's error for the code (status,
    message, code) and carries none out; the requests after them pass."""
    fake = world.fake
    channel = bot.get_partial_messageable(world.table.id)
    sent = await channel.send("Table open")
    path = f"/channels/{world.table.id}/messages/{sent.id}"
    fake.refuse("PATCH", path, 10008)
    with pytest.raises(discord.NotFound) as gone:
        await sent.edit(content="Table closed")
    assert (gone.value.status, gone.value.code, gone.value.text) == (404, 10008, "Unknown Message")
    [message] = fake.channel_messages(world.table)
    assert message.content == "Table open"
    await sent.edit(content="Table closed")
    assert [(r.status, r.code) for r in fake.requests_to("PATCH", path)] == [
        (404, 10008),
        (200, None),
    ]

    posts = "/channels/{channel_id}/messages"
    refusals = fake.refuse("POST", posts, 50013, times=100)
    for _ in range(2):
        with pytest.raises(discord.Forbidden) as refused:
            await channel.send("Deal 2")
        assert (refused.value.status, refused.value.code) == (403, 50013)
    refusals.end()
    await channel.send("Deal 3")
    assert [m.content for m in fake.channel_messages(world.table)] == ["Table closed", "Deal 3"]


async def test_mass_and_role_mentions_ring_as_allowed_mentions_allow(
    world: World, bot: ThrowawayBot
) -> None:
    """ "@here" rings the whole server and a role's mention that role's members, as a
    user's mention rings him: each only as far as the message's `allowed_mentions`
    allow (what a nickname that reads as a mention may do to the bot's notes)."""
    fake = world.fake
    role = fake.add_role(world.guild, "Kartenrunde", 0)
    world.guild.members[world.bob.id].roles.append(role)
    channel = bot.get_partial_messageable(world.table.id)
    text = f"@here <@&{role.id}> {world.alice.mention}"
    allowed = {
        "all": discord.AllowedMentions.all(),
        "roles": discord.AllowedMentions(everyone=False, users=False, roles=True),
        "none": discord.AllowedMentions.none(),
    }
    sent = {name: await channel.send(text, allowed_mentions=a) for name, a in allowed.items()}
    stored = {m.id: m for m in fake.channel_messages(world.table)}
    rung = {name: {u.username for u in stored[s.id].pinged} for name, s in sent.items()}
    members = {world.alice, world.bob, world.carol, world.moderator}
    assert rung["all"] >= {u.username for u in members}
    assert rung["roles"] == {"bob"}
    assert rung["none"] == set()
