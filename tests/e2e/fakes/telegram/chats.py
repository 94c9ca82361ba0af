"""Chats as the fake keeps them: private chats, groups and supergroups with their
members, rights and forum topics, and what each member sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.messages import FakeMessage
    from tests.e2e.fakes.telegram.protocol import JSONDict
    from tests.e2e.fakes.telegram.server import FakeTelegram
    from tests.e2e.fakes.telegram.users import FakeUser


MemberStatus = Literal["creator", "administrator", "member", "restricted", "left", "kicked"]


@dataclass(eq=False, kw_only=True)
class FakeTopic:
    """A forum topic.  Its id is the message id of the service message that opened it,
    as in Telegram (the fake only reserves that id; it stores no such message)."""

    id: int
    name: str
    closed: bool = False


ChatType = Literal["private", "group", "supergroup", "channel"]


@dataclass(eq=False, kw_only=True)
class FakeChat:
    """A chat with its members and every message ever posted in it."""

    fake: FakeTelegram = field(repr=False)
    id: int
    type: ChatType
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = None  # the other party of a private chat
    members: dict[int, MemberStatus] = field(default_factory=dict, repr=False)
    muted: set[int] = field(default_factory=set, repr=False)  # restricted: may not send
    #: The group's default permission to send messages; an admin turning it off mutes
    #: every member who is not an admin, the bot included, without telling the bot.
    members_may_send: bool = True
    messages: list[FakeMessage] = field(default_factory=list, repr=False)
    chat_actions: list[str] = field(default_factory=list, repr=False)
    next_message_id: int = field(default=1, repr=False)
    migrated_to: int | None = None  # a basic group upgraded to this supergroup
    #: Set by a test: every message the bot sends or edits here is refused with this
    #: 400 (e.g. `CHAT_WRITE_FORBIDDEN`, `TOPIC_CLOSED`), as Telegram refuses a group
    #: whose settings changed in ways no update tells the bot about.
    refuses_with: str | None = None
    #: A forum supergroup (topics on).  Its General topic has no id: a message sent
    #: without ``message_thread_id`` goes there, and one posted there carries none.
    is_forum: bool = False
    topics: dict[int, FakeTopic] = field(default_factory=dict, repr=False)
    general_closed: bool = False

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    @property
    def chat_instance(self) -> str:
        """Telegram's opaque per-chat id carried by callback queries."""
        return str((abs(self.id) * 2654435761) % (2**63))

    def to_api(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "type": self.type}
        if self.type == "private" and self.user is not None:
            data.update({k: v for k, v in self.user.to_api().items() if k in _PRIVATE_CHAT_FIELDS})
        else:
            data["title"] = self.title or ""
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data

    def full_info(self) -> JSONDict:
        """The ``ChatFullInfo`` shape of ``getChat`` (with the fields PTB 22 requires)."""
        data = self.to_api()
        data.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        return data

    # -- membership

    def status_of(self, user: FakeUser | int) -> MemberStatus:
        user_id = user if isinstance(user, int) else user.id
        if self.type == "private":
            return "member" if user_id in (self.id, self.fake.bot_user.id) else "left"
        return self.members.get(user_id, "left")

    def set_status(self, user: FakeUser, status: MemberStatus) -> None:
        self.fake._users.setdefault(user.id, user)
        self.members[user.id] = status
        self.fake._notify()

    def add_member(self, user: FakeUser, *, admin: bool = False) -> None:
        self.set_status(user, "administrator" if admin else "member")

    def remove_member(self, user: FakeUser) -> None:
        self.set_status(user, "left")

    def is_member(self, user: FakeUser | int) -> bool:
        return self.status_of(user) in ("creator", "administrator", "member", "restricted")

    def is_admin(self, user: FakeUser | int) -> bool:
        return self.status_of(user) in ("creator", "administrator")

    # -- forum topics

    def create_topic(self, name: str) -> int:
        """Open a topic in this forum; returns its id (``message_thread_id``)."""
        if not self.is_forum:
            raise ValueError(f"chat {self.id} is no forum: it has no topics")
        topic = FakeTopic(id=self.next_message_id, name=name)
        self.next_message_id += 1
        self.topics[topic.id] = topic
        self.fake._notify()
        return topic.id

    def close_topic(self, topic: int | None) -> None:
        """Close a topic (``None``: General), as an admin does: only admins may post
        there now; the bot, a mere member, gets 400 ``TOPIC_CLOSED``.  No update
        tells the bot."""
        self._set_closed(topic, closed=True)

    def reopen_topic(self, topic: int | None) -> None:
        self._set_closed(topic, closed=False)

    def _set_closed(self, topic: int | None, *, closed: bool) -> None:
        if not self.is_forum:
            raise ValueError(f"chat {self.id} is no forum: it has no topics")
        if topic is None:
            self.general_closed = closed
        else:
            self.topics[topic].closed = closed
        self.fake._notify()

    def may_post_in(self, user: FakeUser | int, topic: int | None) -> bool:
        """Whether `user` may post in `topic` (``None``: General) of this chat: a
        closed topic takes admins' posts only."""
        if not self.is_forum:
            return topic is None
        closed = self.general_closed if topic is None else self.topics[topic].closed
        return not closed or self.is_admin(user)

    def topic_messages(self, topic: int | None) -> list[FakeMessage]:
        """The bot's visible messages in `topic` (``None``: General, or a chat that is
        no forum)."""
        return [m for m in self.bot_messages() if m.message_thread_id == topic]

    # -- what a user sees

    def visible_messages(self) -> list[FakeMessage]:
        return [m for m in self.messages if not m.deleted]

    def bot_messages(self) -> list[FakeMessage]:
        return [m for m in self.visible_messages() if m.from_bot]

    def latest(self, *, from_bot: bool | None = True) -> FakeMessage | None:
        """The newest visible message (by default the newest one the bot posted)."""
        for message in reversed(self.messages):
            if not message.deleted and (from_bot is None or message.from_bot == from_bot):
                return message
        return None

    def message(self, message_id: int) -> FakeMessage:
        for message in self.messages:
            if message.message_id == message_id:
                return message
        raise KeyError(f"no message {message_id} in chat {self.id}")

    def transcript(self) -> str:
        """The chat as text, for failure messages."""
        lines = []
        for m in self.messages:
            flag = " (deleted)" if m.deleted else ""
            if m.message_thread_id is not None:
                flag += f" [topic {m.message_thread_id}]"
            doc = f" [document {m.document.file_name}]" if m.document is not None else ""
            lines.append(f"#{m.message_id} {m.sender.mention}{flag}:{doc} {m.text}")
            for row in m.keyboard():
                lines.append("    " + " | ".join(f"[{b.text} -> {b.data}]" for b in row))
        return "\n".join(lines)


_PRIVATE_CHAT_FIELDS = frozenset({"first_name", "last_name", "username"})


def _member_api(user: FakeUser, status: MemberStatus, *, may_send: bool = True) -> JSONDict:
    """A ``ChatMember`` object; administrators get every right (a fake has no finer grain),
    a restricted member all but sending messages when `may_send` is false."""
    data: JSONDict = {"status": status, "user": user.to_api()}
    if status == "creator":
        data["is_anonymous"] = False
    elif status == "administrator":
        data.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=True,
            can_manage_video_chats=True,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=True,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
            can_pin_messages=True,
        )
    elif status == "kicked":
        data["until_date"] = 0
    elif status == "restricted":
        data.update(
            is_member=True,
            can_send_messages=may_send,
            can_send_audios=True,
            can_send_documents=True,
            can_send_photos=True,
            can_send_videos=True,
            can_send_video_notes=True,
            can_send_voice_notes=True,
            can_send_polls=True,
            can_send_other_messages=True,
            can_add_web_page_previews=True,
            can_change_info=False,
            can_invite_users=True,
            can_pin_messages=False,
            can_manage_topics=False,
            can_edit_tag=False,  # Bot API 9.x: PTB 22.8 requires these two
            can_react_to_messages=True,
            until_date=0,
        )
    return data
