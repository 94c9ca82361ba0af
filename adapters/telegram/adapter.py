"""The Telegram adapter: python-telegram-bot 22 in front of the core's `TableService`.

Thin by design: commands and button presses become core calls; the core's neutral
views become plain-text messages with inline keyboards.  No game rule lives here.

`TelegramAdapter` holds one PTB `Application`, the `Outbox` and the state its
parts share, and runs them (polling, or a webhook); each part is a module of its own:

- `tables`: the messages that show a table (lobby, table, hands, turn pings),
  kept in step with the core's updates, and where things are shown;
- `presses`: button presses, and the private chat each player must start once;
- `commands`: the commands, and `words` for what their arguments name;
- `membership`: groups and users that shut the bot out, let it back in, or add it;
- `migration`: a group upgraded to a supergroup;
- `reach`: Telegram out of reach, and the turn clocks that wait meanwhile;
- `updates`: updates deduplicated, and each one handled stored;
- `layout`: the core's views as Telegram text and buttons; `refs`: its user keys.
- `shape`: the state and methods the parts share, declared once for mypy.

Limits
All output goes through `Outbox` (ordered per chat, coalesced edits, throttled, 429
honoured), the record's document too.  Updates are deduplicated by `update_id`
(webhooks redeliver), and each one handled is stored: Telegram sends again, after a
restart, what a killed bot had handled but not yet confirmed (`updates`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol
from urllib.parse import urlsplit

from aiohttp import web
from telegram import BotCommand, MaybeInaccessibleMessage, Update
from telegram import User as TgUser
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError
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

from adapters.recent import Recent
from bot.config import Config
from bot.locks import KeyedLocks
from bot.ports import PlatformUnreachable, TokenRejected
from bot.service import ChatRef, TableService, UserRef
from bot.turn_pings import PING_AFTER, TurnPings

from .commands import Commands
from .content import Content, Handle
from .layout import _PADDING as _PADDING
from .layout import ROW_WIDTH as ROW_WIDTH
from .layout import content_of as content_of
from .layout import phone_rows as phone_rows
from .layout import sentences_within as sentences_within
from .membership import GREET_AFTER, GroupMembership
from .membership import GROUP_LOST as GROUP_LOST
from .membership import TOPIC_LOST as TOPIC_LOST
from .migration import Migration
from .outbox import Outbox
from .presses import MAX_ALERT as MAX_ALERT
from .presses import REMATCH as REMATCH
from .presses import Presses
from .reach import PROBE_AFTER, PollRequest, Reach
from .refs import PLATFORM, topic_of, user_ref
from .refs import user_id as user_id
from .tables import TOPIC as TOPIC
from .tables import TableMessages, TableState
from .texts import COMMANDS, GERMAN_COMMANDS, tt
from .throttle import Throttle
from .updates import KEEP_UPDATES as KEEP_UPDATES
from .updates import KEEP_UPDATES_FOR as KEEP_UPDATES_FOR
from .updates import HandledUpdates

log = logging.getLogger(__name__)


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

#: The updates the bot asks for: commands and service messages, button presses, and
#: changes of its own membership (removed from a group, blocked by a user).
UPDATES = ["message", "callback_query", "my_chat_member"]
App = Application[Any, Any, Any, Any, Any, Any]
#: How many users the adapter keeps in mind (their language, that they started the
#: bot): a bot that runs for months sees more users than it needs to remember.
REMEMBER_USERS = 10_000
#: Seconds a chat's queue in the outbox outlives its last message.
OUTBOX_IDLE = 60.0

#: Only new messages are answered: an edit of one (Telegram sends those a bot asked
#: for before, or that were made before it said it does not want them) would bring the
#: same answer again, or a second table for an edited /new.
_NEW = filters.UpdateType.MESSAGE
#: What `_cmd_other` answers: commands no handler took, and words in a private chat
#: (the group's words do not reach a bot in privacy mode, nor concern it).
_OTHER = (filters.COMMAND | (filters.TEXT & filters.ChatType.PRIVATE)) & _NEW


class Stop(Protocol):
    async def wait(self) -> Any: ...


class TelegramAdapter(Presses, Commands, GroupMembership, Migration, TableMessages):
    """Handlers, the table listener and the outbox, around one PTB `Application`.

    Its parts (`Presses`, `Commands`, `GroupMembership`, `Migration`,
    `TableMessages`) are mixins over the state set up here; `reach` and `updates`
    are parts of their own."""

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
        self.greet_after = greet_after
        #: Work started by a platform event (a lost group's tables closing, the clocks
        #: started after an outage), waited for at shutdown.
        self._background: set[asyncio.Task[None]] = set()
        self.reach = Reach(service, self, self._spawn, probe_after)
        builder = ApplicationBuilder().token(token).base_url(api_url).concurrent_updates(True)
        self._polls: PollRequest | None = None
        if webhook_url:
            builder = builder.updater(None)
        else:
            self._polls = PollRequest(self.reach.poll_answered, self.reach.poll_failed)
            builder = builder.get_updates_request(self._polls)
        self.app: App = builder.build()
        self.outbox = Outbox(
            self.app.bot,
            throttle=throttle,
            on_posted=self._remember_ref,
            on_refused=self._on_refused,
            on_topic_refused=self._on_topic_refused,
            on_migrated=self._on_migrated,
            on_reach=self.reach.on_reach if webhook_url else None,  # polling: `poll_failed`
            idle_after=outbox_idle,
        )
        self.states: dict[str, TableState] = {}
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
        self.updates = HandledUpdates(service, self._spawn)
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
        try again.  Later outages are ridden out: polls are tried again (`PollRequest`)."""
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
            await self.updates.recall(self.app.bot.id)
            await self._restore()
            await self.service.listen(self, PLATFORM)
            try:
                await self._set_commands()
                await self.app.start()
                if self.webhook_url:
                    await self._start_webhook()
                    self._prober = self._spawn(self.reach.watch(self.outbox))
                else:
                    assert self.app.updater is not None
                    await self.app.updater.start_polling(
                        poll_interval=0,
                        timeout=int(self.poll_timeout),
                        allowed_updates=UPDATES,
                        error_callback=self.reach.poll_failed,
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
                    if self._polls is not None:
                        self._polls.stopping()
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

    # --- helpers ---------------------------------------------------------------------

    @property
    def private_link(self) -> str:
        """The bot's private chat, where hands and /forgetme's question go."""
        return f"https://t.me/{self.app.bot.username}"

    def deep_link(self, table_id: str) -> str:
        return f"{self.private_link}?start={table_id}"

    async def _remember_ref(self, handle: Handle) -> None:
        if handle.slot is None or handle.table_id not in self.states:
            return
        await self.service.store.set_message_ref(handle.table_id, handle.slot, handle.ref)

    def _user(self, tg_user: TgUser) -> UserRef:
        ref = user_ref(tg_user)
        if ref.lang:
            self.langs[ref.key] = ref.lang
        return ref

    def _chat(self, message: MaybeInaccessibleMessage) -> ChatRef:
        """The chat a message came from, by the id it has now (a command typed in a
        group just before it became a supergroup counts for the supergroup); a
        button's message may be too old for Telegram to send, but its chat is known."""
        chat_id = self.outbox.current_chat(message.chat.id)
        return ChatRef(PLATFORM, str(chat_id), message.chat.title or "")

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
        app.add_handler(TypeHandler(Update, self.updates.handled), group=1)
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
            thread = topic_of(update.effective_message)
            self.outbox.send(update.effective_chat.id, Content(tt(lang, "failed")), thread=thread)

    async def _dedupe(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Before any handler: drop an update seen before, hold one from a chat being
        moved, and take a message from a group the bot had lost as a sign that it may
        post there again."""
        if not self.updates.first_time(update.update_id):
            raise ApplicationHandlerStop
        await self._moving(update)
        if update.message is not None and update.message.chat.id < 0:
            self._regain(update.message.chat.id)


def _derived_secret(token: str) -> str:
    """The webhook's secret when none is configured: nobody without the token can
    compute it, and every start of the same bot registers the same one."""
    return hmac.new(token.encode(), b"schnapsen webhook secret", "sha256").hexdigest()


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
