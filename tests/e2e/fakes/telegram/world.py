"""Building the fake world: users, groups, their migration to supergroups, the bot's
status in a chat, and files to download.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.chats import FakeChat, _member_api
from tests.e2e.fakes.telegram.updates import Updates
from tests.e2e.fakes.telegram.users import FakeUser

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import MemberStatus
    from tests.e2e.fakes.telegram.protocol import JSONDict


class World(Updates):
    """The tests' control API over users and chats."""

    def create_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str | None = "en",
        started: bool = False,
    ) -> FakeUser:
        """A new account; ``started=True`` as if it had pressed Start earlier (no update)."""
        user = FakeUser(
            fake=self._fake,
            id=self._next_user_id,
            first_name=first_name,
            username=username,
            last_name=last_name,
            language_code=language_code,
            started_bot=started,
        )
        self._next_user_id += 1
        self._users[user.id] = user
        self._notify()
        return user

    def create_group(
        self,
        title: str,
        *,
        members: Iterable[FakeUser] = (),
        admins: Iterable[FakeUser] = (),
        creator: FakeUser | None = None,
        supergroup: bool = True,
        username: str | None = None,
        bot_status: MemberStatus = "member",
        forum: bool = False,
    ) -> FakeChat:
        """A group with the bot already in it (as ``bot_status``); admins are also members.
        ``forum``: a supergroup with topics on (`FakeChat.create_topic`)."""
        if forum and not supergroup:
            raise ValueError("only a supergroup can be a forum")
        # Supergroup ids look like -100xxxxxxxxxx, basic group ids are small negatives.
        offset = 1_000_000_000_000 if supergroup else 0
        chat_id = -(offset + self._next_group_id)
        self._next_group_id += 1
        chat = FakeChat(
            fake=self._fake,
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username if supergroup else None,
            is_forum=forum,
        )
        chat.members[self.bot_user.id] = bot_status
        if creator is not None:
            chat.members[creator.id] = "creator"
        for user in members:
            chat.members.setdefault(user.id, "member")
        for user in admins:
            chat.members[user.id] = "administrator"
        self._chats[chat.id] = chat
        self._notify()
        return chat

    def migrate_group(
        self,
        chat: FakeChat,
        *,
        by: FakeUser | None = None,
        service_messages: bool = True,
        join_first: bool = True,
    ) -> FakeChat:
        """Upgrade a basic group to a supergroup, as Telegram does: the supergroup is a
        new chat with a new id (``-100...``) and the same members; from now on every
        request naming the old id fails with 400 and ``parameters.migrate_to_chat_id``
        (PTB raises ``ChatMigrated``); the old group keeps its history but takes no new
        messages.  Two service messages reach the bot, whatever its privacy mode: one
        in the old group with ``migrate_to_chat_id``, one in the supergroup with
        ``migrate_from_chat_id``, both from the member who upgraded (``by``, else the
        creator).  And, as Telegram does (tdlib/telegram-bot-api#266), a
        ``my_chat_member`` update for the supergroup in which the bot goes from
        ``left`` to its status in the group, as if just added: before the service
        messages, or after them with ``join_first=False``.  ``service_messages=False``
        leaves all three out (a bot that was down for longer than Telegram keeps
        updates learns of the move only from the 400s).  Returns the supergroup."""
        if chat.type != "group" or chat.migrated_to is not None:
            raise ValueError(f"chat {chat.id} is not a basic group that can be upgraded")
        actor = by
        if actor is None:
            creator = next((u for u, st in chat.members.items() if st == "creator"), None)
            actor = self._users[creator] if creator is not None else self.bot_user
        new = FakeChat(
            fake=self._fake,
            id=-(1_000_000_000_000 + self._next_group_id),
            type="supergroup",
            title=chat.title,
        )
        self._next_group_id += 1
        new.members = dict(chat.members)
        self._chats[new.id] = new
        chat.migrated_to = new.id
        bot_status = chat.status_of(self.bot_user)
        joins = service_messages and new.is_member(self.bot_user)
        if joins and join_first:
            self._bot_member_changed(new, actor, "left", bot_status)
        for where, field_name, other in (
            (chat, "migrate_to_chat_id", new.id),
            (new, "migrate_from_chat_id", chat.id),
        ):
            service: JSONDict = {
                "message_id": where.next_message_id,
                "from": actor.to_api(),
                "chat": where.to_api(),
                "date": int(time.time()),
                field_name: other,
            }
            where.next_message_id += 1
            if service_messages and where.is_member(self.bot_user):
                self.push_update({"message": service})
        if joins and not join_first:
            self._bot_member_changed(new, actor, "left", bot_status)
        self._notify()
        return new

    def set_bot_status(
        self,
        chat: FakeChat,
        status: MemberStatus,
        *,
        by: FakeUser | None = None,
        may_send: bool = True,
        announce: bool = True,
    ) -> int | None:
        """Change the bot's membership of a group as an admin (``by``) does: remove it
        (``"kicked"``: every later request to the chat fails with 403 "bot was kicked
        from the ... chat"; ``"left"``: "bot is not a member of the ... chat"), add it
        back (``"member"``), or restrict it (``"restricted"`` with ``may_send=False``:
        new messages fail with 400 "not enough rights to send text messages to the
        chat", edits still pass).  The bot gets a ``my_chat_member`` update, as from
        Telegram (``announce=False``: none, as for a bot that was down longer than
        Telegram keeps updates); returns its ``update_id``."""
        if not chat.is_group:
            raise ValueError("use block_bot / start_bot for a private chat")
        old = chat.status_of(self.bot_user)
        old_muted = self.bot_user.id in chat.muted
        chat.members[self.bot_user.id] = status
        if status == "restricted" and not may_send:
            chat.muted.add(self.bot_user.id)
        else:
            chat.muted.discard(self.bot_user.id)
        actor = by or next(
            (self._users[u] for u, st in chat.members.items() if st == "creator"), self.bot_user
        )
        if not announce:
            self._notify()
            return None
        return self._bot_member_changed(
            chat, actor, old, status, old_may_send=not old_muted, may_send=may_send
        )

    def _bot_member_changed(
        self,
        chat: FakeChat,
        actor: FakeUser,
        old: MemberStatus,
        new: MemberStatus,
        *,
        old_may_send: bool = True,
        may_send: bool = True,
    ) -> int:
        """Queue the ``my_chat_member`` update (a ``ChatMemberUpdated``) for a change of
        the bot's own status in `chat`."""
        bot = self.bot_user
        return self.push_update(
            {
                "my_chat_member": {
                    "chat": chat.to_api(),
                    "from": actor.to_api(),
                    "date": int(time.time()),
                    "old_chat_member": _member_api(bot, old, may_send=old_may_send),
                    "new_chat_member": _member_api(bot, new, may_send=may_send),
                }
            }
        )

    def private_chat(self, user: FakeUser) -> FakeChat:
        if user.id not in self._chats:
            self._chats[user.id] = FakeChat(fake=self._fake, id=user.id, type="private", user=user)
        return self._chats[user.id]

    def chat(self, chat_id: int) -> FakeChat:
        return self._chats[chat_id]

    def user(self, user_id: int) -> FakeUser:
        return self._users[user_id]

    def add_file(self, content: bytes, *, file_path: str | None = None) -> str:
        """Register a downloadable file; returns its ``file_id`` for ``getFile``."""
        file_id = f"FILE{len(self.files) + 1:06d}"
        self.files[file_id] = content
        self._file_paths[file_id] = file_path or f"documents/file_{len(self.files)}"
        return file_id
