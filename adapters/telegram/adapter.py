"""The Telegram adapter: python-telegram-bot 22 in front of the core's `TableService`.

Thin by design: commands and button presses become core calls; the core's neutral
views become plain-text messages with inline keyboards.  No game rule lives here.

Where things are shown
- The group sees a lobby message, then one table message per deal (edited as play
  goes on) and a result message per deal.  It never sees a hand.
- Each seated human has one private hand message per deal in their private chat
  with the bot, edited in place; hand menus and "Show my hand" edit it too.
- Message ids are remembered in the store (`set_message_ref`: slots ``lobby``,
  ``table`` and ``hand:<user>``), so after a restart the same messages are edited.
- In a forum supergroup, a command is answered in the topic it was typed in, and a
  table opened there posts all its group messages there (the topic kept in the slot
  ``topic``, so a restart keeps to it).  Without a topic: the General topic.

The private chat (deep links)
Telegram lets a bot write privately only to users who started it.  On Join (and for
the host on /new) the adapter says hello privately; if Telegram refuses (a 403, or
the 400 "chat not found" it often gives for a user it has no chat with), the press is
answered with a ``t.me/<bot>?start=<table>`` link that opens the private
chat, and the lobby shows who is missing.  The host's Start is refused while a seated
human is known to be unreachable, so the table waits in the lobby.  A user found
unreachable later (a restart forgot who had started, or the user blocked the bot) is
named in the group with the link, and gets the hand the moment they press Start.

A group upgraded to a supergroup
Telegram gives it a new chat id: requests to the old one fail with `ChatMigrated`, and
service messages (``migrate_to_chat_id`` in the old group, ``migrate_from_chat_id`` in
the new one) say so.  Whichever comes first, `migrate` moves the chat once: the
outbox's queue, the core's tables, settings, results and leaderboard (`move_chat`), and
the lobby or running deal's table message, posted anew in the supergroup.  Updates
from the supergroup wait until that is done, so /abort or /resign there find the table.
Telegram also says the bot joined the supergroup; that is no new group to greet
(`_greet`).

When Telegram refuses or fails
A group that removes the bot or takes its right to post (a ``my_chat_member`` update, a
403, a 400 such as "not enough rights to send" or "CHAT_WRITE_FORBIDDEN", see
`outbox.refuses`) loses its tables: they close as an abort does
(nothing scored), each player is told privately, and the group gets nothing more until
the bot is added back or a command comes from it.  A user who blocks the bot is one
who has not started it (above).  A message someone deleted is posted anew at its next
edit ("Show my hand" checks at once).  Out of reach, Telegram is tried again until it
answers: polls with one warning line per failure, the outbox without dropping anything.
Meanwhile the persons' turn clocks stop; with a webhook, a quiet table learns of the
outage from a light probe made while a turn's clock runs (`_watch_reach`).

A finished match's record
/record [table] in a group sends the record of its newest finished match (or the one
named) as a JSON document whose caption says who sat where and how to verify it; a
running match has none, its cards being secret (`bot.records`).

Limits
All output goes through `Outbox` (ordered per chat, coalesced edits, throttled, 429
honoured), the record's document too.  Callback queries are answered at once,
refusals as an alert for the presser only.  Updates are deduplicated by `update_id`
(webhooks redeliver), and each one handled is stored: Telegram sends again, after a
restart, what a killed bot had handled but not yet confirmed (`_recall_handled`).
Webhook updates may come out of order: a user's block older than his last /start is
no block (`_on_my_member`).
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import hmac
import logging
import re
import shlex
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from aiohttp import web
from telegram import (
    BotCommand,
    CallbackQuery,
    ChatMemberRestricted,
    MaybeInaccessibleMessage,
    Update,
)
from telegram import Message as TgMessage
from telegram import User as TgUser
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import HTTPXRequest

from adapters.recent import Recent
from bot.boards import leaderboard_text, stats_text
from bot.config import Config
from bot.i18n import game_named, norm_lang, supported_lang, t, typed
from bot.locks import KeyedLocks
from bot.payload import SELF, Payload, parsed
from bot.ports import PlatformUnreachable, TokenRejected
from bot.records import record_reply
from bot.rules_text import asked_rules, rules_summary
from bot.service import ChatRef, Outcome, TableService, TableUpdate, UserRef
from bot.settings import setting_words
from bot.table import Status
from bot.turn_pings import PING_AFTER, TurnPings
from bot.turn_pings import SLOT as PING
from bot.views import (
    Button,
    HandView,
    Message,
    ResultView,
    match_summary_text,
    settings_text,
    started_lobby_text,
)
from engine.games import available

from .outbox import Attachment, Btn, Content, Handle, Outbox, Throttle, parts, refuses
from .texts import COMMANDS, GERMAN_COMMANDS, tt

log = logging.getLogger(__name__)

#: What a question's button (`Outcome.confirm`) answers when it has done its work.
_CONFIRMED = frozenset({"resigned", "forgotten"})

#: getChatMember's refusals that mean "no member of this chat" (so no admin): any other
#: refusal says nothing about the user.
_NO_MEMBER = re.compile(r"user not found|participant_id_invalid|user_not_participant", re.I)


class _AdminUnknowable(Exception):
    """Telegram refuses to say who administers the chat (not for an outage)."""


def _calm_last_poll(record: logging.LogRecord) -> bool:
    """PTB's stop asks Telegram once more which updates were read; out of reach (an
    outage, or another process polling with the token) it logs an ERROR with a long
    traceback for what is no error of a clean stop: the updates come again at the
    next start, where each is handled once (`mark_handled`).  One warning line says
    so instead."""
    if record.getMessage().startswith("Error while calling `get_updates` one more time"):
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.msg = (
            "Telegram was out of reach at the stop: the last updates may come again at "
            "the next start (each is handled once)"
        )
        record.args, record.exc_info, record.exc_text = (), None, None
    return True


#: On the logger itself, so every handler (and a test's capture) sees the calm line.
_UPDATER_LOG = logging.getLogger("telegram.ext.Updater")
if _calm_last_poll not in _UPDATER_LOG.filters:
    _UPDATER_LOG.addFilter(_calm_last_poll)

PLATFORM = "tg"
#: The updates the bot asks for: commands and service messages, button presses, and
#: changes of its own membership (removed from a group, blocked by a user).
UPDATES = ["message", "callback_query", "my_chat_member"]
#: The message-reference slot that keeps the forum topic a table was opened in.
TOPIC = "topic"
#: The abort reason of a table whose group no longer lets the bot post.
GROUP_LOST = "group_lost"
#: The abort reason of a table whose forum topic was closed or deleted.
TOPIC_LOST = "topic_lost"
App = Application[Any, Any, Any, Any, Any, Any]
MAX_ALERT = 200  # answerCallbackQuery text limit
REMATCH = "re"  # the verb of "Rematch" under a match's summary
#: Webhook mode: seconds without a word from Telegram after which, while a person's
#: turn clock runs (or Telegram is out of reach), a probe asks whether it is there.
#: Well below the shortest turn a chat may set (10 s), so an outage on a quiet table
#: holds the clock before it runs out.
PROBE_AFTER = 3.0
#: Seconds a bot added to a supergroup waits before it says how to begin.  Telegram
#: tells of a group's upgrade to a supergroup with the bot "joining" the supergroup
#: too (``my_chat_member``, left -> member), which is no new group to greet: the
#: service messages that tell it is an upgrade may come just before or just after.
GREET_AFTER = 2.0
#: How many users the adapter keeps in mind (their language, that they started the
#: bot): a bot that runs for months sees more users than it needs to remember.
REMEMBER_USERS = 10_000
#: Seconds a chat's queue in the outbox outlives its last message.
OUTBOX_IDLE = 60.0
#: How many of the newest update ids the bot keeps as handled, in memory and in the
#: store.  Telegram sends again only those it was not told were received: one poll's
#: batch (at most 100), or the webhook deliveries not yet answered.
KEEP_UPDATES = 10_000
#: Seconds a handled update is kept in the store at most: Telegram keeps an update
#: for 24 hours, and sends nothing older again.
KEEP_UPDATES_FOR = 2 * 86_400.0

#: Only new messages are answered: an edit of one (Telegram sends those a bot asked
#: for before, or that were made before it said it does not want them) would bring the
#: same answer again, or a second table for an edited /new.
_NEW = filters.UpdateType.MESSAGE
#: Words before a leaderboard's page number, English and German.
_PAGE_WORDS = frozenset({"page", "p.", "seite", "s."})
#: What `_cmd_other` answers: commands no handler took, and words in a private chat
#: (the group's words do not reach a bot in privacy mode, nor concern it).
_OTHER = (filters.COMMAND | (filters.TEXT & filters.ChatType.PRIVATE)) & _NEW


class Stop(Protocol):
    async def wait(self) -> Any: ...


@dataclass(eq=False)
class _TableState:
    """Which messages show one table."""

    chat_id: int
    thread: int | None = None  # the forum topic its group messages go to (None: General)
    lobby: Handle | None = None
    table: Handle | None = None
    hands: dict[str, Handle] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)  # told in the group to start the bot
    pings: dict[str, Handle] = field(default_factory=dict)  # "your turn", until he moves
    #: /resign's questions in the group: their buttons go when the table closes
    questions: list[Handle] = field(default_factory=list)


#: How wide a row of buttons may be, in characters, before a phone cuts labels short:
#: Telegram gives every button of a row the same width, so it is the longest label
#: (with its padding) times the buttons in the row that must fit.
ROW_WIDTH = 40
_PADDING = 2


def content_of(message: Message, notes: list[str] | None = None) -> Content:
    """A core `Message` as Telegram content (plain text, callback buttons)."""
    text = message.text
    if notes:
        text = text + "\n" + "\n".join(notes)
    rows = tuple(
        tuple(Btn(b.label, data=b.payload) for b in line)
        for row in message.buttons
        for line in phone_rows(row)
    )
    return Content(text, rows)


def phone_rows(row: Sequence[Button]) -> list[list[Button]]:
    """One of the core's rows (up to five, Discord's limit) as the rows a phone shows
    whole: "K♥ + marriage in trumps (40)" beside four other cards would read "K♥ +…".
    Telegram has no five-row limit, so a row may become several; the order stays."""
    out: list[list[Button]] = []
    widest = 0
    for button in row:
        width = len(button.label) + _PADDING
        line = out[-1] if out else None
        if line is not None and (len(line) + 1) * max(widest, width) <= ROW_WIDTH:
            line.append(button)
            widest = max(widest, width)
        else:
            out.append([button])
            widest = width
    # as many lines, evened out where they fit: five bids as 3 + 2, not 4 and a
    # lone button under them
    n, k = len(row), len(out)
    sizes = [n // k + (i < n % k) for i in range(k)]
    starts = [sum(sizes[:i]) for i in range(k)]
    even = [list(row[a : a + size]) for a, size in zip(starts, sizes, strict=True)]
    if all(_fits(line) for line in even):
        return even
    return out


def _fits(line: Sequence[Button]) -> bool:
    return len(line) == 1 or len(line) * max(len(b.label) + _PADDING for b in line) <= ROW_WIDTH


def sentences_within(text: str, limit: int) -> str:
    """The start of `text` that fits `limit`, ended at a sentence or a line where
    one ends after its first third (not "(normal game, Bettler, …)…")."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("\n"), head.rfind("; "))
    return head[: end + 1].rstrip() if end >= limit // 3 else head


def user_ref(user: TgUser) -> UserRef:
    """The person, with his app's language where we speak it (else none:
    `TableService.reader` gives him the chat's or the table's)."""
    return UserRef(PLATFORM, str(user.id), user.full_name, supported_lang(user.language_code))


def user_id(user_key: str) -> int:
    return int(user_key.split(":", 1)[1])


class TelegramAdapter:
    """Handlers, the table listener and the outbox, around one PTB `Application`."""

    def __init__(
        self,
        service: TableService,
        token: str,
        *,
        api_url: str = "https://api.telegram.org/bot",
        throttle: Throttle | None = None,
        answer_budget: float = 2.0,
        poll_timeout: float = 10.0,
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
        webhook_listen: str = "0.0.0.0",
        webhook_port: int = 8443,
        probe_after: float = PROBE_AFTER,
        greet_after: float = GREET_AFTER,
        remember_users: int = REMEMBER_USERS,
        outbox_idle: float = OUTBOX_IDLE,
        ping_after: float = PING_AFTER,
    ) -> None:
        self.service = service
        self.turn_pings = TurnPings(ping_after)
        self.answer_budget = answer_budget
        self.poll_timeout = poll_timeout
        self.webhook_url = webhook_url
        # Without a secret anyone who reaches the port could post updates in any
        # user's name; Telegram sends back whatever secret `setWebhook` registered.
        # One derived from the token is the same at every start, so the updates
        # Telegram retries across a restart are not refused by a new one.
        self.webhook_secret = webhook_secret or (_derived_secret(token) if webhook_url else None)
        self.webhook_listen = webhook_listen
        self.webhook_port = webhook_port
        self.probe_after = probe_after
        self.greet_after = greet_after
        builder = ApplicationBuilder().token(token).base_url(api_url).concurrent_updates(True)
        if webhook_url:
            builder = builder.updater(None)
        else:
            builder = builder.get_updates_request(_PollRequest(self._poll_answered))
        self.app: App = builder.build()
        self._out_of_reach = False  # a poll or a send failed to connect; none answered since
        self.outbox = Outbox(
            self.app.bot,
            throttle=throttle,
            on_posted=self._remember_ref,
            on_refused=self._on_refused,
            on_topic_refused=self._on_topic_refused,
            on_migrated=self._on_migrated,
            on_reach=self._on_reach if webhook_url else None,  # polling: `_poll_failed`
            idle_after=outbox_idle,
        )
        self.states: dict[str, _TableState] = {}
        #: A user's Telegram language, from his last update (forgotten: the table's
        #: language, as after a restart, until his next update tells it again).
        self.langs: Recent[str, str] = Recent(remember_users)
        #: Users known to have started the bot (forgotten: the next join greets him
        #: again, which tells anew).
        self.reachable: Recent[int, bool] = Recent(remember_users)
        #: Users Telegram said we may not write to.  Not capped: it gates Start; a
        #: user leaves it with the last open table he sits at (`_close`).
        self.unreachable: set[int] = set()
        self.lost: set[int] = set()  # groups that removed the bot or took its right to post
        self._losing_topics: set[tuple[int, int | None]] = set()  # forum topics whose tables close
        #: Work started by a platform event (a lost group's tables closing, the clocks
        #: started after an outage), waited for at shutdown.
        self._background: set[asyncio.Task[None]] = set()
        self._seen: Recent[int, None] = Recent(KEEP_UPDATES)
        #: Where the store keeps the updates handled: this bot's (a new token may be
        #: a new bot, whose update ids start anew); set at start (`_recall_handled`).
        self._source: str | None = None
        #: Presses answered before the core was done (`_on_press`): handled when it is.
        self._busy: dict[int, asyncio.Task[Outcome]] = {}
        #: A user's newest update that says he lets the bot write to him (his /start,
        #: his unblocking it), by `update_id`: a block Telegram delivers after it, but
        #: made before it, is no block.
        self._let_in: Recent[int, int] = Recent(remember_users)
        self._lobby_locks: dict[str, asyncio.Lock] = {}  # a lobby's joins and Start
        #: The forum topic of each /new being handled, by (chat, host): the core shows
        #: the new lobby before it says which table it made (`_state` reads it).
        self._opening: dict[tuple[str, str], int] = {}
        #: One /new per host and chat opened at a time.
        self._opening_locks: KeyedLocks[tuple[str, str]] = KeyedLocks()
        #: Groups that moved: old id -> the new one, and the work of moving while it
        #: runs (None once done, so a finished task is not kept for every upgrade).
        self._moves: dict[int, tuple[int, asyncio.Task[None] | None]] = {}
        self._greetings: set[asyncio.Task[None]] = set()  # supergroups to greet soon
        self._webhook: web.AppRunner | None = None
        self._prober: asyncio.Task[None] | None = None
        self._add_handlers()

    @classmethod
    def from_config(cls, service: TableService, config: Config, **kw: Any) -> TelegramAdapter:
        if config.telegram_token is None:
            raise ValueError("TELEGRAM_TOKEN is not set")
        secret = config.telegram_webhook_secret
        kw.setdefault("webhook_url", config.telegram_webhook_url)
        kw.setdefault("webhook_secret", secret.get_secret_value() if secret else None)
        kw.setdefault("webhook_listen", config.telegram_webhook_listen)
        kw.setdefault("webhook_port", config.telegram_webhook_port)
        return cls(
            service,
            config.telegram_token.get_secret_value(),
            api_url=config.telegram_api_url,
            **kw,
        )

    # --- running ---------------------------------------------------------------------

    async def run(self, stop: Stop, ready: Callable[[], None] | None = None) -> None:
        """Serve until `stop` is set; inside the caller's event loop.

        A wrong token is `TokenRejected`; no connection while starting (before the
        first poll or the webhook is set) is `PlatformUnreachable`, for the runner to
        try again.  Later outages are PTB's to ride out: polling retries on its own."""
        serving = False

        def started() -> None:
            nonlocal serving
            serving = True
            if ready is not None:
                ready()

        try:
            await self._serve(stop, started)
        except InvalidToken:  # its message holds the token: never passed on
            raise TokenRejected(
                "Telegram rejected TELEGRAM_TOKEN; copy the token again from @BotFather"
            ) from None
        except BadRequest as e:  # a NetworkError to PTB, but no outage: a setting
            if serving:
                raise
            setting = "TELEGRAM_WEBHOOK_URL / TELEGRAM_WEBHOOK_SECRET" if self.webhook_url else None
            raise TokenRejected(
                f"Telegram refused the start-up ({e.message})"
                + (f"; check {setting}" if setting else "")
            ) from None
        except NetworkError as e:
            if serving:
                raise
            raise PlatformUnreachable(f"{type(e).__name__}: {e}") from None

    async def _serve(self, stop: Stop, ready: Callable[[], None]) -> None:
        async with self.app:
            await self._recall_handled()
            await self._restore()
            await self.service.listen(self, PLATFORM)
            try:
                await self._set_commands()
                await self.app.start()
                if self.webhook_url:
                    await self._start_webhook()
                    self._prober = self._spawn(self._watch_reach())
                else:
                    assert self.app.updater is not None
                    await self.app.updater.start_polling(
                        poll_interval=0,
                        timeout=int(self.poll_timeout),
                        allowed_updates=UPDATES,
                        error_callback=self._poll_failed,
                    )
                log.info("telegram adapter running as @%s", self.app.bot.username)
                ready()
                await stop.wait()
            finally:
                if self._prober is not None:
                    self._prober.cancel()
                    self._prober = None
                for greeting in self._greetings:  # not worth holding up the shutdown
                    greeting.cancel()
                # no new updates; let presses in progress finish; then flush the output
                if self.app.updater is not None and self.app.updater.running:
                    await self.app.updater.stop()
                if self._webhook is not None:
                    await self._webhook.cleanup()
                    self._webhook = None
                if self.app.running:
                    await self.app.stop()
                with contextlib.suppress(ValueError):
                    self.service.listeners.remove(self)
                # a chat being moved, the tables of a lost group closing: let them land
                moving = [task for _, task in self._moves.values() if task is not None]
                moving += self._background
                if moving:
                    await asyncio.wait(moving, timeout=5.0)
                if not await self.outbox.drain(5.0):
                    log.warning("telegram outbox not empty at shutdown")
                await self.outbox.close()

    def _poll_failed(self, error: TelegramError) -> None:
        """Fetching updates failed (Telegram out of reach); PTB tries again, waiting
        longer each time, up to 30 s.  One line per try: its default is an ERROR with a
        traceback every time, a wall of them for an outage that is not the bot's fault.
        The players' presses cannot reach us meanwhile, so their turns' clocks stop."""
        log.warning("cannot fetch updates from Telegram (%s); trying again", error)
        self._lose_reach()

    async def _poll_answered(self) -> None:
        """Telegram answers again (before the updates the poll brings are handled)."""
        await self._regain_reach()

    def _on_reach(self, reachable: bool) -> None:
        """Webhook mode has no poll to fail: the outbox's requests (and probes) that
        cannot connect are the sign of an outage (presses cannot reach the bot then,
        most likely), and its first request Telegram answers the sign of the end."""
        if reachable:
            self._spawn(self._regain_reach())
        else:
            log.warning("telegram out of reach; the persons' turns wait")
            self._lose_reach()

    def _lose_reach(self) -> None:
        """Presses cannot reach us: the persons' turns' clocks stop (once an outage)."""
        if not self._out_of_reach:
            self._out_of_reach = True
            self.service.hold(PLATFORM)

    async def _regain_reach(self) -> None:
        """The turns held since the outage get their time, as after a restart."""
        if self._out_of_reach:
            self._out_of_reach = False
            if self in self.service.listeners:  # not shut down meanwhile
                await self.service.listen(self, PLATFORM)

    async def _watch_reach(self) -> None:
        """Webhook mode: a quiet table (nothing to send, no reminder due) would not
        notice an outage, and its person's turn would run out while his presses cannot
        reach the bot.  So while a person's clock runs, or Telegram is out of reach, a
        probe asks after `probe_after` seconds without a word from Telegram."""
        while True:
            quiet = time.monotonic() - self.outbox.contact_at
            if quiet < self.probe_after:
                await asyncio.sleep(self.probe_after - quiet)
            elif self._out_of_reach or self._clock_runs():
                await self.outbox.probe()
            else:
                await asyncio.sleep(self.probe_after)

    def _clock_runs(self) -> bool:
        """A person's turn clock runs at one of our tables."""
        tables = self.service.tables.values()
        return any(tb.platform == PLATFORM and tb.deadline is not None for tb in tables)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _set_commands(self) -> None:
        for lang, commands in COMMANDS.items():
            try:
                await self.app.bot.set_my_commands(
                    [BotCommand(c, d) for c, d in commands],
                    language_code=None if lang == "en" else lang,
                )
            except TelegramError as e:
                log.warning("could not set the command menu (%s): %s", lang, e)

    async def _start_webhook(self) -> None:
        """Receive updates over HTTP(S): check the secret, dedupe, queue for PTB."""
        assert self.webhook_url is not None
        path = urlsplit(self.webhook_url).path or "/"

        async def receive(request: web.Request) -> web.Response:
            got = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
            if not hmac.compare_digest(got.encode(), (self.webhook_secret or "").encode()):
                return web.Response(status=403)
            try:
                data = await request.json()
                update = Update.de_json(data, self.app.bot)
            except Exception:
                return web.Response(status=400)
            await self.app.update_queue.put(update)  # duplicates stop at `_dedupe`
            return web.Response()

        server = web.Application()
        server.router.add_post(path, receive)
        runner = web.AppRunner(server, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, self.webhook_listen, self.webhook_port).start()
        self._webhook = runner
        await self.app.bot.set_webhook(
            self.webhook_url,
            secret_token=self.webhook_secret,
            allowed_updates=UPDATES,
        )

    def _first_time(self, update_id: int) -> bool:
        return self._seen.first_time(update_id, None)

    async def _recall_handled(self) -> None:
        """The updates handled before this start, so that those Telegram sends again
        are dropped (`_dedupe`): a bot killed before it confirmed them (PTB does with
        the next poll, or at a clean stop; a webhook delivery, with its answer) gets
        them again, and a second /new, Join or setting would be handled twice."""
        store = self.service.store
        self._source = f"{PLATFORM}:{self.app.bot.id}"
        await store.forget_handled_updates(time.time() - KEEP_UPDATES_FOR)
        for update_id in await store.handled_updates(self._source):
            self._seen[update_id] = None

    async def _handled(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """After the handlers: store that the update was handled (`_recall_handled`).
        Not before: one a kill cut short is handled when Telegram sends it again.  A
        press answered while the core was still busy counts once the core is done."""
        update_id = update.update_id
        busy = self._busy.pop(update_id, None)
        if busy is not None and not busy.done():
            busy.add_done_callback(lambda _: self._spawn(self._store_handled(update_id)))
            return
        await self._store_handled(update_id)

    async def _store_handled(self, update_id: int) -> None:
        if self._source is None:
            return
        try:
            await self.service.store.mark_handled(self._source, update_id, keep=KEEP_UPDATES)
        except Exception as e:  # the store failed: a kill now might bring it once more
            log.warning("could not store that update %s was handled: %s", update_id, e)

    async def _restore(self) -> None:
        """Reattach to the messages of open tables and show their current state."""
        store = self.service.store
        for row in await store.open_tables():
            if not row.chat.startswith(PLATFORM + ":"):
                continue
            refs = await store.message_refs(row.id)
            st = self._state(row.id, row.chat)
            topic = refs.pop(TOPIC, "").partition("/")[2]
            if topic.isdigit():
                st.thread = int(topic)
            for slot, ref in refs.items():
                chat_id, _, message_id = ref.partition("/")
                if not message_id.isdigit():
                    continue
                # the topic is the group's: a hand in a private chat has none
                thread = None if slot.startswith(("hand:", PING)) else st.thread
                handle = Handle(int(chat_id), row.id, slot, int(message_id), thread=thread)
                if slot.startswith(PING):
                    # a ping the last run left: whose turn it rang is not known any
                    # more, and the reminder comes anyway; it goes
                    st.pings[slot[len(PING) :]] = handle
                    self._unping(st, slot[len(PING) :])
                elif slot == "lobby":
                    st.lobby = handle
                elif slot == "table":
                    st.table = handle
                elif slot.startswith("hand:"):
                    st.hands[slot[5:]] = handle
            self._refresh(row.id)

    def _refresh(self, table_id: str) -> None:
        """Edit a table's messages to its current state (after a restart)."""
        table = self.service.tables.get(table_id)
        st = self.states.get(table_id)
        if table is None or st is None:
            return
        if table.status == Status.LOBBY:
            self._show_lobby(table_id, st)
        elif table.status == Status.PLAYING:
            self._show_table(table_id, st)
            for user in self.service.seat_users(table_id):
                self._show_hand(table_id, st, user)

    # --- the listener: called under the table lock, only queues ---------------------

    async def table_update(self, update: TableUpdate) -> None:
        if update.platform != PLATFORM:
            return
        self._on_update(update)

    def _on_update(self, u: TableUpdate) -> None:
        st = self._state(u.table_id, u.chat)
        tid = u.table_id
        kind = u.kind
        if kind == "lobby":
            self._show_lobby(tid, st)
        elif kind == "started":
            if st.lobby is not None:
                lobby = self.service.lobby(tid)
                if lobby is not None:  # its last words, not "the host can start"
                    expiry = self.service.timings.lobby_expiry
                    text = started_lobby_text(lobby.message.text, self._table_lang(tid), expiry)
                    self.outbox.edit(st.lobby, Content(text))
                self.outbox.freeze(st.lobby)
            if st.table is not None:
                self.outbox.freeze(st.table)
            for hand in st.hands.values():
                self.outbox.freeze(hand)
            st.table = None
            st.hands = {}
            self.turn_pings.new_hands(tid)  # new messages: they ring themselves
            self._show_table(tid, st)
            for user in self.service.seat_users(tid):
                self._show_hand(tid, st, user)
        elif kind == "action":
            self._show_table(tid, st)
            for user in self.service.seat_users(tid):
                self._show_hand(tid, st, user)
        elif kind in ("deal_end", "finished"):
            final = u.result.table if u.result is not None else None
            if st.table is not None and final is not None:
                # the deal as it ended (last trick included), without buttons
                self.outbox.edit(st.table, content_of(final.message).bare())
            elif st.table is not None and kind == "finished":
                self._show_table(tid, st)  # a finished table has no buttons
            elif st.table is not None:
                self.outbox.freeze(st.table)
            if kind == "finished":
                self._settle(tid, st, "hand_match_over", u.result)
            elif u.result is not None:
                self._settle(tid, st, "hand_deal_over", u.result, deal=u.result.deal_no)
            if u.result is not None:
                self._to_group(st, content_of(u.result.shown()))
            elif kind == "finished" and (table := self.service.tables.get(tid)) is not None:
                # ended before any deal was scored (a resignation): the summary alone
                summary = match_summary_text(table, self.service.style_for(tid))
                self._to_group(st, Content(summary))
            if kind == "finished":
                self._close(tid, st)
        elif kind == "aborted":
            lang = self._table_lang(tid)
            table = self.service.tables.get(tid)
            reason = (table.abort_reason if table is not None else None) or "host"
            # a lobby closed before the start says so (not "the host can start")
            closed = self.service.lobby(tid) if table is not None and not table.deals else None
            if st.lobby is not None and closed is not None:
                self.outbox.edit(st.lobby, content_of(closed.message))
            view = self.service.table(tid) if table is not None and table.deals else None
            if st.table is not None and view is not None:
                # the table as it was left: no one "to act", no votes still asked for
                self.outbox.edit(st.table, content_of(view.message).bare())
            for h in (st.lobby if closed is None else None, st.table):
                if h is not None:
                    self.outbox.freeze(h)
            self._settle(tid, st, "hand_closed", None)
            if reason in (GROUP_LOST, TOPIC_LOST):  # nobody there reads it: tell the players
                for user in self.service.seat_users(tid):
                    if user_id(user) not in self.unreachable:
                        note = tt(self.langs.get(user) or lang, reason, table=tid)
                        self.outbox.send(user_id(user), Content(note))
            else:
                text = t(lang, "result.aborted", table=tid, reason=t(lang, f"abort.{reason}"))
                self._to_group(st, Content(text))
            self._close(tid, st)
        elif kind == "reminder" and u.user is not None:
            self._remind(tid, st, u.user)
        elif kind == "replaced" and u.user is not None:
            lang = self._table_lang(tid)
            text = t(
                lang,
                "remind.replaced",
                name=self._seat_name(tid, u.user),
                n=self.service.timings.missed_turns_limit,
            )
            self._to_group(st, Content(text))
        elif kind == "back" and u.user is not None:
            name = self._seat_name(tid, u.user)
            self._to_group(st, Content(t(self._table_lang(tid), "remind.back", name=name)))

    def _settle(
        self,
        table_id: str,
        st: _TableState,
        key: str,
        result: ResultView | None,
        **values: Any,
    ) -> None:
        """The hand messages of a deal that ended show the hand as the deal left it
        (`result.hands`: the cards still held, what one was shown) and say that it is
        over, instead of the last "Your turn." (without its buttons) or "Waiting for
        ...", which nothing would ever change: the move that ended the deal brings no
        hand of its own, and after the last deal no new hand comes below.  A turn ping
        waiting for a move goes: the move was the deal's end."""
        for user in list(st.pings):
            self._unping(st, user)
        for user, handle in st.hands.items():
            if handle.latest is None:
                self.outbox.freeze(handle)
                continue
            lang = self.langs.get(user) or self._table_lang(table_id)
            final = result.hand_of(user, norm_lang(lang)) if result is not None else None
            # without it, the title alone says which table it was
            if final is not None and key == "hand_match_over":
                self.outbox.edit(handle, Content(final.text))  # it ends saying so itself
                continue
            shown = final.text if final is not None else handle.latest.text.split("\n", 1)[0]
            self.outbox.edit(handle, Content(f"{shown}\n{tt(lang, key, **values)}"))

    def _close(self, table_id: str, st: _TableState) -> None:
        for question in st.questions:
            self.outbox.freeze(question)
        self.states.pop(table_id, None)
        self.turn_pings.forget(table_id)
        self._lobby_locks.pop(table_id, None)
        # `unreachable` gates the Start of tables he sits at; with none left it may
        # forget him: a join greets him first, and a refusal puts him back.
        for user in self.service.seat_users(table_id):
            if not any(
                tb.id != table_id and tb.platform == PLATFORM and tb.seat_of(user) is not None
                for tb in self.service.tables.values()
            ):
                self.unreachable.discard(user_id(user))
        store = self.service.store

        async def drop() -> None:
            await store.drop_message_refs(table_id)

        self.outbox.call(st.chat_id, drop)

    def _state(self, table_id: str, chat: str) -> _TableState:
        st = self.states.get(table_id)
        if st is None:
            st = self.states[table_id] = _TableState(int(chat.split(":", 1)[1]))
            table = self.service.tables.get(table_id)
            if table is not None:
                thread = self._opening.get((table.chat, table.host))
                if thread is not None:
                    self._keep_topic(table_id, st, thread)
        return st

    def _keep_topic(self, table_id: str, st: _TableState, thread: int) -> None:
        """A table opened in a forum topic posts there, after a restart too: the topic
        is stored with its message references (slot `TOPIC`), before its lobby's."""
        st.thread = thread
        store = self.service.store
        ref = f"{st.chat_id}/{thread}"

        async def keep() -> None:
            if table_id in self.states:  # not closed meanwhile (its refs dropped)
                await store.set_message_ref(table_id, TOPIC, ref)

        self.outbox.call(st.chat_id, keep)

    def _to_group(self, st: _TableState, content: Content) -> None:
        """A one-off message about a table to its group, in the table's topic."""
        self.outbox.send(st.chat_id, content, thread=st.thread)

    def _show_lobby(self, table_id: str, st: _TableState) -> None:
        view = self.service.lobby(table_id)
        if view is None:
            return
        lang = self._table_lang(table_id)
        missing = [u for u in view.seats if u is not None and u.user and self._unreachable(u.user)]
        notes = []
        if missing:
            names = ", ".join(s.name for s in missing if s is not None)
            notes.append(tt(lang, "lobby_need_start", names=names, link=self.deep_link(table_id)))
        content = content_of(view.message, notes)
        if st.lobby is None:
            st.lobby = Handle(st.chat_id, table_id, "lobby", thread=st.thread)
            self.outbox.post(st.lobby, content)
        else:
            self.outbox.edit(st.lobby, content)

    def _show_table(self, table_id: str, st: _TableState) -> None:
        view = self.service.table(table_id)
        if view is None:
            return
        content = content_of(view.message)
        if st.table is None:
            st.table = Handle(st.chat_id, table_id, "table", thread=st.thread)
            self.outbox.post(st.table, content)
        else:
            self.outbox.edit(st.table, content)

    def _show_hand(
        self,
        table_id: str,
        st: _TableState,
        user: str,
        view: HandView | None = None,
        *,
        asked: bool = False,
    ) -> None:
        """Post or edit `user`'s private hand message (never anywhere else); `asked`:
        the user wants to see it ("Show my hand"), so it is checked even if nothing
        changed — he may have deleted it, and then it is posted anew."""
        uid = user_id(user)
        if view is None:
            view = self.service.hand(table_id, user, self.langs.get(user))
        if view is None:
            return
        handle = st.hands.get(user)
        if uid in self.unreachable or (handle is not None and handle.dead):
            self._warn(table_id, st, user)
            return
        content = content_of(view.message)
        if handle is None:
            handle = st.hands[user] = Handle(uid, table_id, f"hand:{user}")
            self.outbox.post(handle, content)  # a new message: Telegram rings for it
        else:
            self.outbox.edit(handle, content, force=asked)
        mine = self.service.his_turn(table_id, user)
        self._turn_ping(table_id, st, user, mine, posted=handle.message_id is None)

    def _turn_ping(
        self, table_id: str, st: _TableState, user: str, your_turn: bool, *, posted: bool
    ) -> None:
        """A turn that comes after a wait rings (`bot.turn_pings`): a short reply to
        the hand message, deleted once he has moved, so his private chat keeps the
        hands and not a "your turn" for every trick."""
        said = self.turn_pings.shown((table_id, user), your_turn, new=posted)
        if said is not None:
            self._unping(st, user)
        if said == "ping":
            lang = self.langs.get(user) or self._table_lang(table_id)
            text = self.turn_pings.text(lang, table_id, self.service.seconds_left(table_id))
            self._ping(table_id, st, user, text)

    def _ping(self, table_id: str, st: _TableState, user: str, text: str) -> None:
        """His one notice of this turn, a reply to his hand, in place of one still
        standing; its ref is stored (`on_posted`) until it is deleted, so a restart
        deletes one the last run left."""
        self._unping(st, user)
        ping = st.pings[user] = Handle(user_id(user), table_id, PING + user)
        self.outbox.post(ping, Content(text), reply_to=st.hands.get(user))

    def _unping(self, st: _TableState, user: str) -> None:
        ping = st.pings.pop(user, None)
        if ping is None:
            return
        self.outbox.delete(ping)
        store, table_id, slot = self.service.store, ping.table_id, PING + user

        async def forget() -> None:
            await store.drop_message_ref(table_id, slot)

        self.outbox.call(ping.chat_id, forget)

    def _warn(self, table_id: str, st: _TableState, user: str) -> None:
        """Tell the group (once per table) that `user` must open the private chat."""
        if user in st.warned:
            return
        st.warned.add(user)
        text = tt(
            self._table_lang(table_id),
            "deliver_hand",
            name=self._seat_name(table_id, user),
            link=self.deep_link(table_id),
        )
        self._to_group(st, Content(text))

    def _remind(self, table_id: str, st: _TableState, user: str) -> None:
        lang = self.langs.get(user) or self._table_lang(table_id)
        text = t(
            lang,
            "remind.turn",
            name=self._seat_name(table_id, user),
            seconds=self.service.seconds_left(table_id),
        )
        uid = user_id(user)
        if uid in self.unreachable:
            self._to_group(st, Content(text))
        else:
            # a reply to his hand message: it says which table (he may sit at tables
            # in two groups) and a tap leads to the buttons.  It stands in for his
            # ping (one notice a turn) and goes the same way once he has moved, so
            # the chat keeps no "20 s left" of turns long over.
            self._ping(table_id, st, user, text)

    # --- helpers ---------------------------------------------------------------------

    @property
    def private_link(self) -> str:
        """The bot's private chat, where hands and /forgetme's question go."""
        return f"https://t.me/{self.app.bot.username}"

    def deep_link(self, table_id: str) -> str:
        return f"{self.private_link}?start={table_id}"

    def _unreachable(self, user: str) -> bool:
        return user.startswith(PLATFORM + ":") and user_id(user) in self.unreachable

    def _table_lang(self, table_id: str) -> str:
        table = self.service.tables.get(table_id)
        return norm_lang(table.settings.get("lang") if table is not None else None)

    def _seat_name(self, table_id: str, user: str) -> str:
        table = self.service.tables.get(table_id)
        if table is not None:
            seat = table.seat_of(user)
            s = table.seats[seat] if seat is not None else None
            if s is not None:
                return s.name
        return user

    async def _remember_ref(self, handle: Handle) -> None:
        if handle.slot is None or handle.table_id not in self.states:
            return
        await self.service.store.set_message_ref(handle.table_id, handle.slot, handle.ref)

    def _on_refused(self, chat_id: int) -> None:
        """Telegram refused a message: a group that removed the bot (or took its right
        to post) loses its tables; a user's private chat, the tables that wait for him
        are told."""
        if chat_id < 0:
            self._lose_group(chat_id)
            return
        self.unreachable.add(chat_id)
        self.reachable.pop(chat_id, None)
        key = f"{PLATFORM}:{chat_id}"
        for table_id, st in list(self.states.items()):
            table = self.service.tables.get(table_id)
            if table is None or table.seat_of(key) is None:
                continue
            if table.status == Status.LOBBY:
                self._show_lobby(table_id, st)
            else:
                self._warn(table_id, st, key)

    def _on_topic_refused(self, chat_id: int, thread: int | None) -> None:
        """A forum topic was closed or deleted (None: the General topic closed): its
        tables close as a lost group's do (nobody could follow them there), the
        group's other topics play on."""
        key = (chat_id, thread)
        if key in self._losing_topics:
            return  # the messages it had waiting are refused too
        ids = [tid for tid, st in self.states.items() if (st.chat_id, st.thread) == key]
        if not ids:
            return
        self._losing_topics.add(key)

        async def close() -> None:
            try:
                closed = await self.service.close_tables(ids, TOPIC_LOST)
            except Exception as e:  # the store failed (the core said so): try next time
                log.warning("could not close the tables of topic %s in %s: %s", thread, chat_id, e)
                return
            finally:
                self._losing_topics.discard(key)  # a table opened there later counts anew
            log.warning(
                "telegram topic %s of group %s no longer lets the bot post; closed: %s",
                thread,
                chat_id,
                ", ".join(closed) or "none",
            )

        self._spawn(close())

    def _lose_group(self, chat_id: int) -> None:
        """The group removed the bot or took its right to post (a 403, a 400 that says
        so, a ``my_chat_member`` update; once however many say so).  Nothing
        more is sent there, and its tables close as an abort closes them: nobody there
        could follow or stop them, and the computer would otherwise play the absent
        players' turns to the end of a match nobody saw."""
        chat_id = self.outbox.current_chat(chat_id)
        if chat_id in self.lost:
            return
        self.lost.add(chat_id)
        self.outbox.block(chat_id)

        async def close() -> None:
            try:
                closed = await self.service.close_chat(ChatRef(PLATFORM, str(chat_id)), GROUP_LOST)
            except Exception as e:  # the store failed (the core said so): try next time
                self.lost.discard(chat_id)
                log.warning("could not close the tables of group %s: %s", chat_id, e)
                return
            log.warning(
                "telegram group %s no longer lets the bot post; closed its table(s): %s",
                chat_id,
                ", ".join(closed) or "none",
            )

        self._spawn(close())

    async def _on_my_member(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot's own membership changed: a user blocked it, a group removed or
        muted it (its tables close), or a group let it post again."""
        change = update.my_chat_member
        if change is None:
            return
        chat_id = change.chat.id
        member = change.new_chat_member
        if change.chat.type == ChatType.PRIVATE:
            if member.status != ChatMemberStatus.BANNED:  # unblocked (his /start follows)
                self._lets_in(chat_id, update.update_id)
            elif (self._let_in.get(chat_id) or 0) > update.update_id:
                # a webhook delivered it late: he has let the bot in again since
                log.info("ignored a block by user %s older than his /start", chat_id)
            else:  # blocked; /start unblocks
                self.outbox.block(chat_id)
                self._on_refused(chat_id)
            return
        may_post = member.status in (
            ChatMemberStatus.OWNER,
            ChatMemberStatus.ADMINISTRATOR,
            ChatMemberStatus.MEMBER,
        ) or (isinstance(member, ChatMemberRestricted) and member.can_send_messages)
        if may_post:
            self._regain(chat_id)
            if change.old_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
                self._greet(chat_id, change.from_user.language_code, change.chat.type)
        else:
            self._lose_group(chat_id)

    def _lets_in(self, uid: int, update_id: int) -> None:
        """Update `update_id` says `uid` lets the bot write to him (see `_let_in`)."""
        if update_id > (self._let_in.get(uid) or 0):
            self._let_in[uid] = update_id

    def _greet(self, chat_id: int, lang: str | None, chat_type: str) -> None:
        """Just added: nobody in the group knows yet what to type, nor that each
        player must start the private chat once.  But a supergroup may be a group the
        bot sat in already, upgraded (Telegram says the bot joined it): it is greeted
        after `greet_after` seconds, unless by then a move into it was seen, whichever
        came first, the service messages or this.  A basic group is never an upgrade."""
        help_text = Content(self._help(lang, in_group=True))
        if chat_type != ChatType.SUPERGROUP:
            self.outbox.send(chat_id, help_text)
            return

        async def later() -> None:
            await asyncio.sleep(self.greet_after)
            if not self._moved_here(chat_id):
                self.outbox.send(chat_id, help_text)

        task = asyncio.ensure_future(later())
        self._greetings.add(task)
        task.add_done_callback(self._greetings.discard)

    def _moved_here(self, chat_id: int) -> bool:
        """A group moved to `chat_id` (an upgraded group's supergroup)."""
        return any(new == chat_id for new, _ in self._moves.values())

    def _regain(self, chat_id: int) -> None:
        """A group the bot had lost may be written to again: added back (Telegram
        says so), or a command typed there (no update tells that an admin gave the
        group back its right to send; the next post shows, one request at most)."""
        chat_id = self.outbox.current_chat(chat_id)
        if chat_id in self.lost:
            self.lost.discard(chat_id)
            self.outbox.unblock(chat_id)

    # --- a group upgraded to a supergroup ----------------------------------------------

    async def migrate(self, old: int, new: int) -> None:
        """Move everything of chat `old` to its new id `new`; once per chat, however
        many times Telegram says so (two service messages, `ChatMigrated` answers)."""
        task = self._begin_migration(old, new)
        if task is not None:
            await asyncio.shield(task)

    def _on_migrated(self, old: int, new: int) -> None:
        """The outbox met `ChatMigrated`: its queue is in the new chat already."""
        self._begin_migration(old, new)

    def _begin_migration(self, old: int, new: int) -> asyncio.Task[None] | None:
        if old in self._moves:
            running = self._moves[old][1]
            if running is None:
                return None  # moved already
            if not _failed(running):
                return running  # under way (a failed one is tried again)
        task = asyncio.ensure_future(self._migrate(old, new))
        self._moves[old] = (new, task)
        task.add_done_callback(lambda task: self._migration_done(old, new, task))
        return task

    def _migration_done(self, old: int, new: int, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("could not move a chat to its new id", exc_info=task.exception())
        elif not task.cancelled() and self._moves.get(old, (new, None))[1] is task:
            self._moves[old] = (new, None)  # only the ids are worth keeping

    async def _migrate(self, old: int, new: int) -> None:
        log.info("telegram chat %s was upgraded to a supergroup: now %s", old, new)
        self.outbox.migrate(old, new)
        # No await until the live messages are rehomed and queued: a table update in
        # between would only edit what was left behind in the old group.
        stale: list[tuple[str, str, str]] = []  # table, slot, the ref left behind
        for table_id, st in self.states.items():
            if st.chat_id == old:
                st.chat_id = new
            table = self.service.tables.get(table_id)
            status = table.status if table is not None else None
            for slot, handle, live in (
                ("lobby", st.lobby, status == Status.LOBBY),
                ("table", st.table, status == Status.PLAYING),
            ):
                if handle is None or self.outbox.current_chat(handle.chat_id) != new:
                    continue
                if handle.message_id is not None and handle.chat_id != new:
                    stale.append((table_id, slot, handle.ref))
                if live:
                    self.outbox.rehome(handle)
            if st.chat_id == new:
                self._refresh(table_id)  # the live messages, posted in the supergroup
        moved = await self.service.move_chat(
            ChatRef(PLATFORM, str(old)), ChatRef(PLATFORM, str(new))
        )
        for table_id in moved:
            if table_id not in self.states:  # not shown here yet
                self._state(table_id, f"{PLATFORM}:{new}")
                self._refresh(table_id)
        for table_id, slot, ref in stale:
            await self.service.store.forget_message_ref(table_id, slot, ref)

    async def _moving(self, update: Update) -> None:
        """Hold an update from a supergroup until its move from the old group is done
        (or the old group's, redirected), so its command finds the chat's tables."""
        chat = update.effective_chat
        if chat is None:
            return
        for old, (new, task) in list(self._moves.items()):
            if chat.id in (old, new) and task is not None and not task.done():
                with contextlib.suppress(Exception):
                    await asyncio.shield(task)

    async def _on_migrate_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None:
            return
        if message.migrate_to_chat_id:  # in the old group
            await self.migrate(message.chat.id, int(message.migrate_to_chat_id))
        elif message.migrate_from_chat_id:  # in the new supergroup
            await self.migrate(int(message.migrate_from_chat_id), message.chat.id)

    def _user(self, tg_user: TgUser) -> UserRef:
        ref = user_ref(tg_user)
        if ref.lang:
            self.langs[ref.key] = ref.lang
        return ref

    # --- handlers --------------------------------------------------------------------

    def _add_handlers(self) -> None:
        app = self.app
        app.add_handler(TypeHandler(Update, self._dedupe), group=-1)
        app.add_handler(CommandHandler("start", self._cmd_start, filters=_NEW))
        handlers = {
            "new": self._cmd_new,
            "leaderboard": self._cmd_leaderboard,
            "stats": self._cmd_stats,
            "rules": self._cmd_rules,
            "settings": self._cmd_settings,
            "abort": self._cmd_abort,
            "resign": self._cmd_resign,
            "record": self._cmd_record,
            "help": self._cmd_help,
            "forgetme": self._cmd_forget,
        }
        for name, handler in handlers.items():  # each under its German name too
            app.add_handler(CommandHandler([name, GERMAN_COMMANDS[name]], handler, filters=_NEW))
        app.add_handler(MessageHandler(_OTHER, self._cmd_other))
        app.add_handler(CallbackQueryHandler(self._on_press))
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self._on_migrate_message))
        app.add_handler(ChatMemberHandler(self._on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
        app.add_handler(TypeHandler(Update, self._handled), group=1)
        app.add_error_handler(self._on_error)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A handler failed (a bug, or a request the core could not finish): one ERROR
        with the traceback but not the update, whose button data may hold a discard's
        cards; and the person who pressed or typed gets an answer, instead of a button
        that spins until Telegram gives up or a command that is silently ignored."""
        log.error("handling a Telegram update failed", exc_info=context.error)
        if not isinstance(update, Update) or update.effective_user is None:
            return
        user = self._user(update.effective_user)
        message = update.effective_message
        chat = self._chat(message) if message is not None else None
        data = update.callback_query.data if update.callback_query is not None else None
        try:  # the chat's or table's language; a failing store must not stop the answer
            lang = (await self.service.reader(user, chat, data)).speaks
        except Exception:  # the answer matters more than its language
            lang = user.lang
        if update.callback_query is not None:
            await self._answer(update.callback_query, tt(lang, "failed"), alert=True)
        elif update.effective_chat is not None and update.effective_message is not None:
            thread = _topic_of(update.effective_message)
            self.outbox.send(update.effective_chat.id, Content(tt(lang, "failed")), thread=thread)

    async def _dedupe(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Before any handler: drop an update seen before, hold one from a chat being
        moved, and take a message from a group the bot had lost as a sign that it may
        post there again."""
        if not self._first_time(update.update_id):
            raise ApplicationHandlerStop
        await self._moving(update)
        if update.message is not None and update.message.chat.id < 0:
            self._regain(update.message.chat.id)

    # button presses

    async def _on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        user = self._user(query.from_user)
        data = query.data or ""
        # no message only for inline-mode ones, which we never send: then no chat is
        # the table's (a Join from there is refused)
        chat = ChatRef(PLATFORM, "?") if query.message is None else self._chat(query.message)
        user = await self.service.reader(user, chat, data)
        pressed = query.message if isinstance(query.message, TgMessage) else None
        task = asyncio.ensure_future(self._act(user, data, chat, pressed))
        try:
            outcome = await asyncio.wait_for(asyncio.shield(task), self.answer_budget)
        except TimeoutError:
            # The table is busy (the computer is thinking): answer now, report later.
            self._busy[update.update_id] = task
            await self._answer(query)
            task.add_done_callback(lambda tk: self._late(user, tk, query.message, data))
            return
        await self._respond(query, user, data, outcome)

    def _start_gate(self, user: UserRef, p: Payload) -> str | None:
        """Refuse Start while a seated human cannot get their hand privately."""
        table = self.service.tables.get(p.table)
        if table is None or table.status != Status.LOBBY or table.host != user.key:
            return None
        missing = [
            s.name
            for s in table.seats
            if s is not None and s.user is not None and self._unreachable(s.user)
        ]
        if not missing:
            return None
        return tt(
            user.speaks, "start_blocked", names=", ".join(missing), link=self.deep_link(p.table)
        )

    async def _act(
        self,
        user: UserRef,
        data: str,
        chat: ChatRef | None = None,
        pressed: TgMessage | None = None,
    ) -> Outcome:
        p = parsed(data)
        if p is not None and p.table == SELF and chat is not None and chat.id.startswith("-"):
            # /forgetme's button deletes the presser's data: it is only ever shown in
            # his private chat, so one in a group (forwarded there) is refused
            text = tt(user.speaks, "forget_private", link=self.private_link)
            return Outcome(False, text, "forget_private")
        if p is not None and p.verb == REMATCH and chat is not None and pressed is not None:
            return await self._rematch(user, data, chat, pressed)
        if p is None or p.verb not in ("j", "st", "s"):
            return await self._act_now(user, data, chat)
        # A lobby's joins and its Start go one at a time, each join with its greeting:
        # Start pressed as someone takes the last seat must learn whether he can get
        # his hand privately (`_start_gate`), not start before anyone asked him.
        async with self._lobby_lock(p.table):
            if p.verb == "st":
                blocked = self._start_gate(user, p)
                if blocked is not None:
                    return Outcome(False, blocked, "start_blocked", p.table)
            outcome = await self._act_now(user, data, chat)
            if (seated := _seated_at(p, outcome)) is not None:
                await self._hello(user, seated)
            return outcome

    async def _rematch(
        self, user: UserRef, data: str, chat: ChatRef, pressed: TgMessage
    ) -> Outcome:
        """ "Rematch" under a match's summary opens its lobby where the summary is (its
        forum topic too), as /new there would, or seats him in the one another player
        opened: either way he is greeted privately, as after /new or Join.  Where
        only admins may open tables, Telegram is asked whether he is one."""
        is_admin = False
        p = parsed(data)
        opens = p is not None and not any(
            tb.rematch_of == p.table and tb.status == Status.LOBBY
            for tb in self.service.tables_in(chat.key)
        )  # joining the lobby another opened needs no admin
        if opens and (await self.service.settings(chat)).starters == "admins":
            # as /new: an admin whom Telegram did not confirm is asked to try again
            try:
                known = await self._is_admin(pressed, user)
            except _AdminUnknowable:
                return Outcome(False, tt(user.speaks, "admin_refused"), "admin_refused")
            if known is None:
                return Outcome(False, tt(user.speaks, "admin_unknown"), "admin_unknown")
            is_admin = known
        async with self._opening_in(chat, user, pressed):
            outcome = await self.service.act(user, data, chat, is_admin=is_admin)
        if outcome.ok and outcome.table_id is not None:
            await self._greet_host(user, outcome.table_id)
        return outcome

    @contextlib.asynccontextmanager
    async def _opening_in(
        self, chat: ChatRef, user: UserRef, message: TgMessage
    ) -> AsyncIterator[None]:
        """While `user` opens a table from `message`: typed (or pressed) in a forum
        topic, the table lives there (the core shows its lobby before it answers,
        `_state` looks here).  One opening per host and chat at a time: a second one
        (refused, or from another topic) must not take or drop the first one's topic
        while it is being opened."""
        opening = (chat.key, user.key)
        topic = _topic_of(message)
        async with self._opening_locks.hold([opening]):
            if topic is not None:
                self._opening[opening] = topic
            try:
                yield
            finally:
                self._opening.pop(opening, None)

    async def _greet_host(self, user: UserRef, table_id: str) -> None:
        """The opener of a lobby is greeted privately; if he cannot be, the lobby says
        how to start the bot."""
        async with self._lobby_lock(table_id):  # Start waits for the greeting (`_act`)
            reached = await self._hello(user, table_id)
        if not reached and (st := self.states.get(table_id)) is not None:
            self._show_lobby(table_id, st)

    def _lobby_lock(self, table_id: str) -> asyncio.Lock:
        lock = self._lobby_locks.get(table_id)
        if lock is None:
            lock = self._lobby_locks[table_id] = asyncio.Lock()
        return lock

    async def _act_now(self, user: UserRef, data: str, chat: ChatRef | None = None) -> Outcome:
        outcome = await self.service.act(user, data, chat)
        # No await between the core's answer and queuing its hand view: a later table
        # update can only be queued after it, so the newest state always wins.
        if outcome.hand is not None and outcome.table_id is not None:
            st = self.states.get(outcome.table_id)
            if st is not None:
                asked = outcome.code == "hand"
                self._show_hand(outcome.table_id, st, user.key, outcome.hand, asked=asked)
        return outcome

    def _late(
        self,
        user: UserRef,
        task: asyncio.Task[Outcome],
        pressed: MaybeInaccessibleMessage | None = None,
        data: str = "",
    ) -> None:
        """A press answered before the core finished: a refusal, or a failure, is
        told privately, since the button's answer is spent."""
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("a button press failed", exc_info=error)
            text: str | None = tt(user.speaks, "failed")
        else:
            outcome = task.result()
            text = None if outcome.ok else outcome.text
            self._confirmed(pressed, user, data, outcome)
        if text:
            self._tell(int(user.id), text)

    def _tell(self, uid: int, text: str) -> None:
        """What a press's answer could not say, privately (unless he never let us)."""
        if uid not in self.unreachable:
            self.outbox.send(uid, Content(text))

    async def _respond(
        self, query: CallbackQuery, user: UserRef, data: str, outcome: Outcome
    ) -> None:
        lang = user.speaks
        # Join (or Rematch), or pressed again by someone seated who never opened the
        # private chat (he dismissed the first answer's link): the link again, not a
        # dead end.
        p = parsed(data)
        seated = _seated_at(p, outcome) if p is not None else None
        if seated is not None and int(user.id) in self.unreachable:
            await self._answer(query, tt(lang, "need_start"), url=self.deep_link(seated))
            return
        self._confirmed(query.message, user, data, outcome)
        if not outcome.ok:
            whole = outcome.text or ""
            if len(whole) > MAX_ALERT and int(user.id) in self.reachable:
                # a long refusal (house rules named in full) would lose its end in
                # the alert: the whole of it follows privately, and the alert says so
                more = tt(lang, "refusal_cut")
                cut = whole[: MAX_ALERT - len(more)] + more
                await self._answer(query, cut, alert=True, late=False)
                self._tell(int(user.id), whole)
                return
            await self._answer(query, outcome.text, alert=True)
            return
        in_group = query.message is not None and query.message.chat.id < 0
        if outcome.code in _CONFIRMED:
            await self._answer(query, None if outcome.code == "forgotten" else outcome.text)
            return
        if outcome.code == "rules" and outcome.text:
            if len(outcome.text) <= MAX_ALERT:
                await self._answer(query, outcome.text, alert=True)
            elif int(user.id) in self.reachable:
                await self._answer(query, tt(lang, "rules_sent"))
                self.outbox.send(int(user.id), Content(outcome.text))
            else:
                # not known to have started the bot (or not since the last restart):
                # the alert holds only the start, so it says where the rest is
                more = tt(lang, "rules_cut")
                start = sentences_within(outcome.text, MAX_ALERT - len(more))
                await self._answer(query, start + more, alert=True)
            return
        if outcome.hand is not None and in_group:
            if int(user.id) in self.unreachable and outcome.table_id is not None:
                await self._answer(
                    query, tt(lang, "need_start"), url=self.deep_link(outcome.table_id)
                )
                return
            await self._answer(query, tt(lang, "hand_sent"))
            return
        await self._answer(query, outcome.text)

    def _confirmed(
        self,
        pressed: MaybeInaccessibleMessage | None,
        user: UserRef,
        data: str,
        outcome: Outcome,
    ) -> None:
        """After any press: when it was a question's button and it is done, the button
        goes.  The private question of /forgetme becomes its answer; the group's
        question of /resign keeps its words (the result under it says who resigned;
        the press's answer tells the presser what it cost).  A /forgetme that failed
        part way shows what was done: the tables that gave his seat away."""
        forgotten = outcome.code == "forgotten"
        if outcome.code not in _CONFIRMED:
            p = parsed(data)
            if p is not None and p.table == SELF:
                self._forgotten(user, done=False)
            return
        if forgotten:
            self._forgotten(user)
        if isinstance(pressed, TgMessage) and pressed.text:
            handle = Handle(pressed.chat.id, "", None, pressed.message_id)
            words = outcome.text if forgotten and outcome.text else pressed.text
            self.outbox.edit(handle, Content(words))

    async def _answer(
        self,
        query: CallbackQuery,
        text: str | None = None,
        *,
        alert: bool = False,
        url: str | None = None,
        late: bool = True,
    ) -> None:
        """`late` False: a refusal too late for its alert is not followed privately
        by the alert's text (the caller sends the whole of it anyway)."""
        short = text[: MAX_ALERT - 1] + "…" if text is not None and len(text) > MAX_ALERT else text
        try:
            await query.answer(short, show_alert=alert and bool(text), url=url)
        except TelegramError as e:  # too late, or answered already
            log.info("could not answer a callback query: %s", e)
            if alert and text and late:
                # Telegram kept the press too long (the bot was busy or away): the
                # refusal would be lost, and the player left wondering, so it follows
                # privately, as a refusal that comes after the answer does (`_late`)
                self._tell(query.from_user.id, text)

    async def _hello(self, user: UserRef, table_id: str) -> bool:
        """Greet a new player privately; False when Telegram says we may not."""
        uid = int(user.id)
        if self.reachable.get(uid):
            return True
        try:
            await self.outbox.paced(uid)
            await self.app.bot.send_message(uid, tt(user.speaks, "joined", table=table_id))
        except TelegramError as e:
            if refuses(e):  # a 403, or "chat not found" for a user never met
                self._on_refused(uid)
                return False
            log.info("could not greet %s privately: %s", uid, e)  # flood control, network
            return True
        self.reachable[uid] = True
        self.unreachable.discard(uid)
        return True

    # commands

    async def _reply(self, message: TgMessage, text: str) -> None:
        """Answer in the message's chat (and forum topic); a text longer than one
        message goes on in the next (`parts`, as Discord's replies do), in order."""
        for part in parts(text):
            self.outbox.send(message.chat.id, Content(part), thread=_topic_of(message))

    def _chat(self, message: MaybeInaccessibleMessage) -> ChatRef:
        """The chat a message came from, by the id it has now (a command typed in a
        group just before it became a supergroup counts for the supergroup); a
        button's message may be too old for Telegram to send, but its chat is known."""
        chat_id = self.outbox.current_chat(message.chat.id)
        return ChatRef(PLATFORM, str(chat_id), message.chat.title or "")

    async def _is_admin(self, message: TgMessage, user: UserRef) -> bool | None:
        """Whether `user` administers the message's chat; None when Telegram did not
        say (flood control, an outage, an answer that never came): an admin told he
        is none would believe it, so the caller asks him to try again instead."""
        if message.chat.type == "private":
            return True
        try:
            chat_id = self.outbox.current_chat(message.chat.id)
            member = await self.app.bot.get_chat_member(chat_id, int(user.id))
        except (BadRequest, Forbidden) as e:
            if isinstance(e, BadRequest) and _NO_MEMBER.search(e.message):
                return False  # Telegram's answer: he is no member
            log.warning("getChatMember refused (%s): admins are refused until it works", e)
            raise _AdminUnknowable from None
        except TelegramError as e:
            log.info("getChatMember failed: %s", e)
            return None
        return member.status in ("creator", "administrator")

    async def _admin_or_retry(
        self, message: TgMessage, user: UserRef, *, refused_is_no: bool = False
    ) -> bool | None:
        """`_is_admin`, having told the user what to do when Telegram did not say: try
        again after an outage; make the bot an admin when Telegram refuses to tell it
        (its API promises the answer only to admins).  `refused_is_no`: a refusal
        counts as "no admin" (/abort naming a table: a player's vote needs none)."""
        try:
            is_admin = await self._is_admin(message, user)
        except _AdminUnknowable:
            if refused_is_no:
                return False
            await self._reply(message, tt(user.speaks, "admin_refused"))
            return None
        if is_admin is None:
            await self._reply(message, tt(user.speaks, "admin_unknown"))
        return is_admin

    async def _incoming(self, update: Update) -> tuple[TgMessage, UserRef] | None:
        message = update.effective_message
        if message is None or update.effective_user is None:
            return None
        chat = self._chat(message)
        if message.sender_chat is not None:
            # An admin who remains anonymous (or one posting as a channel): Telegram
            # names the group's stand-in bot, not the person, so he could be neither
            # seated nor sent a hand.  His buttons are his own: presses name him.
            lang = await self.service.reply_lang(None, chat)
            self.outbox.send(
                message.chat.id, Content(tt(lang, "anonymous")), thread=_topic_of(message)
            )
            return None
        return message, await self.service.reader(self._user(update.effective_user), chat)

    async def _in_group(self, update: Update) -> tuple[TgMessage, UserRef] | None:
        """A command about a group's tables; typed in the private chat, where no
        table is, it gets the answer to type it in the group."""
        got = await self._incoming(update)
        if got is not None and got[0].chat.type == "private":
            await self._reply(got[0], tt(got[1].speaks, "group_only"))
            return None
        return got

    async def _cmd_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        if message.chat.type != "private":
            await self._reply(message, self._help(user.speaks, in_group=True))
            return
        uid = int(user.id)
        self._lets_in(uid, update.update_id)
        self.reachable[uid] = True
        self.unreachable.discard(uid)
        self.outbox.unblock(uid)
        await self.service.remember(user)
        seated = [
            tb
            for tb in self.service.tables.values()
            if tb.platform == PLATFORM and tb.seat_of(user.key) is not None
        ]
        if not seated:
            # a lobby's start link followed before pressing Join: no cards will come
            # until he does, so say where
            named = (context.args or [""])[0].strip().lower()
            lobby = self.service.tables.get(named)
            if lobby is not None and lobby.platform == PLATFORM and lobby.status == Status.LOBBY:
                # the private chat has no language: one we lack his reads the table's
                lang = user.lang or self._table_lang(named)
                text = tt(lang, "welcome_join", name=user.name, table=named)
            else:
                text = tt(user.speaks, "welcome", name=user.name)
            self.outbox.send(uid, Content(text))
            return
        for table in seated:
            st = self._state(table.id, table.chat)
            st.warned.discard(user.key)
            lang = user.lang or self._table_lang(table.id)
            self.outbox.send(uid, Content(tt(lang, "welcome_table", table=table.id)))
            if table.status == Status.LOBBY:
                self._show_lobby(table.id, st)
            elif table.status == Status.PLAYING:
                old = st.hands.pop(user.key, None)
                if old is not None:  # the hand comes anew, below the welcome
                    self.outbox.freeze(old)
                self._show_hand(table.id, st, user.key)

    async def _cmd_new(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._in_group(update)
        if got is None:
            return
        message, user = got
        chat = self._chat(message)
        args = _split(context.args)
        # a game's other names count ("/new 1000", "/new thousand"); the core refuses
        # a word that names none
        game = (_game_of(args[0]) or args[0].lower()) if args else "zweier"
        words, options = _rules_words(args[1:])
        if len(words) > 1:  # taking the first would drop the others unsaid
            await self._reply(message, t(user.speaks, "new.one_preset", words=", ".join(words)))
            return
        preset = words[0] if words else None
        settings = await self.service.settings(chat)
        is_admin = settings.starters == "admins" and await self._admin_or_retry(message, user)
        if is_admin is None:
            return
        async with self._opening_in(chat, user, message):
            outcome = await self.service.create_table(
                chat, user, game, preset=preset, options=options or None, is_admin=is_admin
            )
        if not outcome.ok:
            await self._reply(message, outcome.text or "")
            return
        if outcome.table_id is not None:
            await self._greet_host(user, outcome.table_id)

    async def _cmd_leaderboard(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        # "page 2" and "Seite 2" say what the number says alone
        args = [a.lower() for a in context.args or [] if a.lower() not in _PAGE_WORDS]
        # a number that names no game ("1000" is Thousand) is the board's page
        paging = [a for a in args if a.isdecimal() and _game_of(a) is None]
        words = [a for a in args if a != "global" and a not in paging]
        refused = _unknown_game(user.speaks, words)
        if refused is not None:
            await self._reply(message, refused)
            return
        scope_name = "global" if "global" in args or message.chat.type == "private" else "chat"
        scope = "global" if scope_name == "global" else self._chat(message).key
        games = [g for a in words if (g := _game_of(a)) is not None]
        text = await leaderboard_text(
            self.service.store,
            scope,
            user.speaks,
            games=games,
            player=user.key,
            page=int(paging[0]) if paging else 1,
        )
        await self._reply(message, text)

    async def _cmd_stats(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        target = user
        replied = message.reply_to_message
        if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
            target = user_ref(replied.from_user)
        args = [a.lower() for a in context.args or []]
        if [a for a in args if a != "global"]:
            # `/stats @anna` or `/stats anna` would otherwise show the asker's own
            await self._reply(message, t(user.speaks, "stats.usage"))
            return
        private = message.chat.type == "private"
        scope = "global" if "global" in args or private else self._chat(message).key
        text = await stats_text(self.service.store, target.key, target.name, scope, user.speaks)
        await self._reply(message, text)

    async def _cmd_rules(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        args = [a.lower() for a in context.args or []]
        refused = _unknown_game(user.speaks, args[:1])
        if refused is not None:
            text = refused
        elif args:
            # the words after the game as /new reads them: "/rules tausend golden"
            # is the golden round's rules, not Thousand's standard ones again
            words, options = _rules_words(_split(args[1:]))
            text = asked_rules(_game_of(args[0]) or args[0], words, options, user.speaks)
        else:
            table = self.service.table_of(self._chat(message).key, user.key)
            if table is not None:
                text = rules_summary(table.game, user.speaks, table.options_json)
            else:
                text = "\n\n".join(rules_summary(g, user.speaks) for g in available())
        await self._reply(message, text)

    async def _cmd_settings(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._in_group(update)
        if got is None:
            return
        message, user = got
        chat = self._chat(message)
        args = setting_words(context.args or [])
        if len(args) >= 2:  # a change: admins only; looking is for everyone (/help says so)
            is_admin = await self._admin_or_retry(message, user)
            if is_admin is None:
                return
            if not is_admin:
                await self._reply(message, t(user.speaks, "refuse.not_admin"))
                return
            outcome = await self.service.update_setting(
                chat, user, args[0], " ".join(args[1:]), is_admin=is_admin
            )
            await self._reply(message, outcome.text or "")
            return
        shown = settings_text(
            await self.service.settings(chat),
            user.speaks,
            turn_timeout=self.service.timings.turn_timeout,
            ai_level=self.service.ai_level,
            key=args[0] if args else None,
        )
        await self._reply(message, shown)

    async def _cmd_abort(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._in_group(update)
        if got is None:
            return
        message, user = got
        chat = self._chat(message)
        args = context.args or []
        table_id = args[0] if args else None  # the core reads it (case, spaces)
        # a group admin closes any table of the group he does not sit at (an abandoned
        # game, a spam lobby): a plain /abort at one's own table needs no Telegram call
        mine = table_id is None and self.service.table_of(chat.key, user.key) is not None
        is_admin = not mine and await self._admin_or_retry(message, user, refused_is_no=True)
        if is_admin is None:
            return
        outcome = await self.service.abort(chat, user, is_admin=is_admin, table_id=table_id)
        if outcome.text:
            await self._reply(message, outcome.text)

    async def _cmd_resign(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._in_group(update)
        if got is None:
            return
        message, user = got
        # in the group, the button bound to his seat: another's press is refused
        await self._ask(message, await self.service.resign(self._chat(message), user, ask=True))

    async def _ask(self, message: TgMessage, outcome: Outcome) -> None:
        """The core's answer to a command that asks first (/resign, /forgetme): the
        question with the one button that does it, or the refusal.  A question about
        a table loses its button when the table closes, pressed or not."""
        if outcome.confirm is None:
            if outcome.text:
                await self._reply(message, outcome.text)
            return
        label, data = outcome.confirm
        content = Content(outcome.text or "", ((Btn(label, data=data),),))
        tid = outcome.table_id
        st = self.states.get(tid) if tid is not None else None
        if tid is None or st is None:
            self.outbox.send(message.chat.id, content, thread=_topic_of(message))
            return
        handle = Handle(message.chat.id, tid, None, thread=_topic_of(message))
        st.questions.append(handle)
        self.outbox.post(handle, content)

    async def _cmd_record(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The record of the group's newest finished match, or of the one named, as a
        document in the group (where its table id and seeds were shown).  Through the
        outbox like every reply, so it keeps its place after the match's result and
        rides out flood control and outages; if Telegram will not take the file, the
        group is told to try again rather than left without an answer."""
        got = await self._in_group(update)
        if got is None:
            return
        message, user = got
        chat = self._chat(message)
        args = _split(context.args)
        named = args[0] if args else None
        reply = await record_reply(self.service.store, chat.key, user.speaks, named)
        if reply.file is None:
            await self._reply(message, reply.text)
            return
        self.outbox.send_file(
            message.chat.id,
            Attachment(reply.file.filename, reply.file.data),
            reply.text,
            fallback=Content(tt(user.speaks, "failed")),
            thread=_topic_of(message),
        )

    async def _cmd_help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        await self._reply(message, self._help(user.speaks, in_group=message.chat.type != "private"))

    def _help(self, lang: str | None, *, in_group: bool) -> str:
        """The help; in a group with the link to the private chat, which every player
        must start once before the bot may send them their cards."""
        text = t(lang, "help.text")
        if norm_lang(lang) == "de":
            names = ", ".join(f"/{n}" for n in GERMAN_COMMANDS.values())
            text += "\n" + tt(lang, "help_german", commands=names)
        if in_group:
            text += "\n" + tt(lang, "help_start", link=self.private_link)
        return text

    async def _cmd_other(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A command the bot does not have, or words in its private chat: an answer
        instead of silence.  In a group only a command meant for this bot (named
        with ``@``) or a slip of the finger on one of its own (`_typo_of`: ``/nwe``);
        other bots' commands (``/report``, ``/status``) are not ours to answer, and a
        mere likeness ("Did you mean /record?") would be noise in the group."""
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        private = message.chat.type == "private"
        text = message.text or ""
        if not text.startswith("/"):  # words: only the private chat reaches us with them
            if private:
                await self._reply(message, self._help(user.speaks, in_group=False))
            return
        command, _, addressee = text.split(maxsplit=1)[0][1:].partition("@")
        ours = addressee.lower() == (self.app.bot.username or "").lower()
        if addressee and not ours:
            return
        guess = _typo_of(command)
        if guess is None and (private or ours):  # surely for us: the likeliest one
            close = difflib.get_close_matches(command.lower(), [c for c, _ in COMMANDS["en"]], 1)
            guess = close[0] if close else None
        if guess is not None:
            await self._reply(
                message, tt(user.speaks, "did_you_mean", command=command, guess=guess)
            )
        elif private or ours:
            await self._reply(message, tt(user.speaks, "unknown_command", command=command))

    async def _cmd_forget(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        if message.chat.type != "private":
            # the question's button deletes the data of whoever presses it: it is
            # asked where only he can press it
            await self._reply(message, tt(user.speaks, "forget_private", link=self.private_link))
            return
        await self._ask(message, await self.service.forget(user, ask=True))

    def _forgotten(self, user: UserRef, *, done: bool = True) -> None:
        """After his data was deleted: nothing of him stays here either.  `done`
        False: the deletion failed part way, after some tables gave his seat to the
        computer; the hands of those go all the same (the rest stays, as he does)."""
        lang = (self.langs.pop(user.key, None) if done else self.langs.get(user.key)) or user.speaks
        for table_id, st in self.states.items():
            table = self.service.tables.get(table_id)
            if table is not None and table.seat_of(user.key) is not None:
                continue  # still his seat (a deletion that failed before this table)
            self._unping(st, user.key)  # a ping of his turn goes with him
            # his hand stops following the game: it says why, without buttons
            handle = st.hands.pop(user.key, None)
            if handle is not None and handle.latest is not None:
                title = handle.latest.text.split("\n", 1)[0]
                self.outbox.edit(handle, Content(f"{title}\n{t(lang, 'hand.forgotten')}"))


class _PollRequest(HTTPXRequest):
    """The connection for getUpdates (one, as PTB's own), which says when a poll is
    answered: PTB tells of a failed poll only, not of Telegram being back."""

    def __init__(self, answered: Callable[[], Awaitable[None]]) -> None:
        super().__init__(connection_pool_size=1)
        self._answered = answered

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        answer = await super().do_request(*args, **kwargs)
        if answer[0] == 200:
            await self._answered()  # before the updates it brings are handled
        return answer


def _topic_of(message: TgMessage) -> int | None:
    """The forum topic a message was sent in; None outside one, and in a forum's
    General topic (a message sent with no topic goes there)."""
    return message.message_thread_id if message.is_topic_message else None


def _seated_at(p: Payload, outcome: Outcome) -> str | None:
    """The table a press seated him at: Join, a free seat pressed before Join, or
    Rematch (the lobby it opened or joined); or Join or Rematch pressed again by
    someone seated there (who may have dismissed the link to the private chat the
    first answer gave him).  None for any other press."""
    if outcome.code == "joined":  # a free seat pressed before Join: joined there
        return p.table
    if not (outcome.ok or outcome.code == "already_seated"):
        return None
    if p.verb == "j":
        return p.table
    return outcome.table_id if p.verb == REMATCH else None


def _failed(task: asyncio.Task[Any]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


def _squeeze(word: str) -> str:
    """`word` with each run of one letter cut to one (``neww``, ``setings``: ``new``,
    ``setings``), so a key held too long or too short counts as no slip at all."""
    return "".join(ch for i, ch in enumerate(word) if i == 0 or word[i - 1] != ch)


def _swapped(a: str, b: str) -> bool:
    """`a` is `b` with two neighbouring letters swapped (``nwe``, ``stast``)."""
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    return (
        len(a) == len(b)
        and len(diff) == 2
        and diff[1] == diff[0] + 1
        and (a[diff[0]], a[diff[1]]) == (b[diff[1]], b[diff[0]])
    )


def _typo_of(word: str) -> str | None:
    """The command of ours that `word` is a slip of the finger for: neighbouring
    letters swapped, a letter doubled or a double typed once, or both (``/nwe``,
    ``/stast``, ``/nwee``).  Not one letter more, less or another: in a group those
    are other bots' words (``/news``, ``/status``, ``/about``), not typos of ours."""
    typed = _squeeze(word.lower())
    for command, _ in COMMANDS["en"]:
        ours = _squeeze(command)
        if typed == ours or _swapped(typed, ours):
            return command
    return None


def _split(args: list[str] | None) -> list[str]:
    """Command arguments, honouring quotes (``/new dreier "a b"``)."""
    if not args:
        return []
    try:
        return shlex.split(" ".join(args))
    except ValueError:
        return list(args)


def _derived_secret(token: str) -> str:
    """The webhook's secret when none is configured: nobody without the token can
    compute it, and every start of the same bot registers the same one."""
    return hmac.new(token.encode(), b"schnapsen webhook secret", "sha256").hexdigest()


def _rules_words(args: list[str]) -> tuple[list[str], dict[str, str]]:
    """The words after a game in /new and /rules: presets (lowercase) and the rule
    options typed as ``name=value`` (read by the core, `bot.settings.rule_options`)."""
    words: list[str] = []
    options: dict[str, str] = {}
    for arg in _assignments(args):
        key, eq, value = arg.partition("=")
        if eq:
            options[key] = value
        else:
            words.append(arg.lower())
    return words, options


def _assignments(args: list[str]) -> list[str]:
    """`/new` arguments with ``name = value`` written apart (``a =b``, ``a= b``, ``a = b``)
    joined into one ``name=value``."""
    out: list[str] = []
    for arg in args:
        if out and (arg.startswith("=") or out[-1].endswith("=")) and out[-1] != "=":
            out[-1] += arg
        else:
            out.append(arg)
    return out


def _unknown_game(lang: str | None, words: list[str]) -> str | None:
    """The refusal for a game argument the bot does not know, naming the games: a
    typo must not read as a game's rules or board ("xyz", "no finished games")."""
    known = available()
    for word in words:
        if _game_of(word) is None:
            return t(lang, "refuse.unknown_game", game=typed(word), games=", ".join(known))
    return None


def _game_of(word: str) -> str | None:
    """The game a command's word names: its id or another name ("1000", "thousand")."""
    return game_named(word, available())


async def serve(
    service: TableService,
    config: Config,
    stop: Stop,
    *,
    ready: Callable[[], None] | None = None,
    **kw: Any,
) -> None:
    """Run the Telegram adapter inside the running event loop until `stop` is set.

    Long polling by default; a webhook when ``TELEGRAM_WEBHOOK_URL`` is set.  Extra
    keywords (`throttle`, `answer_budget`, `poll_timeout`, `probe_after`) go to
    `TelegramAdapter`.
    """
    adapter = TelegramAdapter.from_config(service, config, **kw)
    await adapter.run(stop, ready)
