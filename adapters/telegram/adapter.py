"""The Telegram adapter: python-telegram-bot 22 in front of the core's `TableService`.

Thin by design: commands and button presses become core calls; the core's neutral
views become plain-text messages with inline keyboards.  No game rule lives here.

`TelegramAdapter` holds one PTB `Application`, the `Outbox` and the state its
parts share, and wires each kind of update to the part that handles it; each part
is a module of its own:

- `serving`: the start-up (polling or the webhook), serving, and the clean stop;
- `handling`: what every update goes through first (dropped if handled before),
  and the answer when a handler fails;
- `tables`: the messages that show a table (lobby, table), kept in step with the
  core's updates, and where things are shown;
- `hands`: each player's hand in his private chat, its turn pings and reminders;
- `ends`: a deal's or a table's end, confirmed once shown; `restore`: the tables'
  messages found again after a restart, and the ends it tells again;
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
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import web
from telegram import MaybeInaccessibleMessage, Update
from telegram import User as TgUser
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from adapters.recent import Recent
from bot.config import Config
from bot.locks import KeyedLocks
from bot.service import ChatRef, TableService, UserRef
from bot.turn_pings import PING_AFTER, TurnPings

from .commands import Commands
from .content import Handle
from .ends import Ends
from .handling import Handling
from .hands import Hands
from .membership import GREET_AFTER, GroupMembership
from .migration import Migration
from .outbox import Outbox
from .presses import Presses
from .reach import PROBE_AFTER, PollRequest, Reach
from .refs import PLATFORM, user_ref
from .restore import Restore
from .serving import Serving, Stop, _derived_secret
from .tables import TableMessages, TableState
from .texts import GERMAN_COMMANDS
from .throttle import Throttle
from .updates import HandledUpdates

log = logging.getLogger(__name__)

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


class TelegramAdapter(
    Serving,
    Handling,
    Presses,
    Commands,
    GroupMembership,
    Migration,
    TableMessages,
    Hands,
    Ends,
    Restore,
):
    """Handlers, the table listener and the outbox, around one PTB `Application`.

    Its parts (`Serving`, `Handling`, `Presses`, `Commands`, `GroupMembership`, `Migration`,
    `TableMessages`, `Hands`, `Ends`, `Restore`) are mixins over the state set up
    here; `reach` and `updates` are parts of their own."""

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

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

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
