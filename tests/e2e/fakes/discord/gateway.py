"""The gateway websocket: connections, sessions (identify, resume, heartbeats),
event dispatch to the bot, and the controls that drop, kill or invalidate them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import WSMsgType, web

from tests.e2e.fakes.discord.protocol import API_VERSION, PRIVILEGED_INTENTS, Intent
from tests.e2e.fakes.discord.state import FakeDiscordState
from tests.e2e.fakes.discord.wire import _iso

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.entities import FakeGuild
    from tests.e2e.fakes.discord.messages import FakeMessage
    from tests.e2e.fakes.discord.protocol import Json

_log = logging.getLogger(__name__)


class _GatewayConnection:
    """One websocket. Sends are serialised by ``lock`` because zlib-stream frames
    share one compressor and because sequence numbers must go out in order."""

    def __init__(self, ws: web.WebSocketResponse, compression: str | None) -> None:
        self.ws = ws
        self.requested_compression = compression
        # discord.py asks for zlib-stream (or zstd-stream when zstandard is installed).
        # Text frames are always accepted, so anything but zlib-stream is sent as text.
        self.compression = compression if compression == "zlib-stream" else None
        self._compressor = zlib.compressobj() if self.compression else None
        self.lock = asyncio.Lock()
        self.session: _GatewaySession | None = None
        self.heartbeats = 0
        self.closed_by_fake = False
        """aiohttp reports 1000 for every close the server starts, so the fake
        remembers that it closed the socket itself (a resumable drop)."""
        self.transport: asyncio.Transport | None = None

    async def send_locked(self, payload: Json) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        try:
            if self._compressor is not None:
                data = self._compressor.compress(text.encode()) + self._compressor.flush(
                    zlib.Z_SYNC_FLUSH
                )
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            _log.debug("gateway send on a closed socket dropped: %s", payload.get("t"))

    async def send(self, payload: Json) -> None:
        async with self.lock:
            await self.send_locked(payload)


@dataclass(eq=False)
class _GatewaySession:
    id: str
    shard: tuple[int, int] | None
    intents: int
    connection: _GatewayConnection | None = None
    seq: int = 0
    backlog: list[Json] = field(default_factory=list)
    resumes: int = 0

    def receives(self, guild_id: int | None) -> bool:
        """Guild events go to the guild's shard; DMs to shard 0 (Discord's rule)."""
        if self.shard is None:
            return True
        shard_id, count = self.shard
        return ((guild_id or 0) >> 22) % count == shard_id

    def frame(self, event: str, data: Json) -> Json:
        self.seq += 1
        payload: Json = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.backlog.append(payload)
        del self.backlog[:-2000]
        return payload

    async def dispatch(self, event: str, data: Json) -> None:
        connection = self.connection
        if connection is None:
            self.frame(event, data)  # kept for a RESUME
            return
        async with connection.lock:
            payload = self.frame(event, data)
            if self.connection is connection:
                await connection.send_locked(payload)


class Gateway(FakeDiscordState):
    """The gateway side of the fake: serving websockets and announcing events."""

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT on every connection; discord.py then resumes."""
        for connection in list(self._connections):
            await connection.send({"op": 7, "d": None, "s": None, "t": None})

    async def drop_connections(self, code: int = 4000) -> None:
        """Close every gateway connection with a resumable close code, as a network
        hiccup or a Discord restart would; events meanwhile are kept for RESUME."""
        for connection in list(self._connections):
            connection.closed_by_fake = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    connection.ws.close(code=code, message=b"fake: dropped"), 5.0
                )

    async def shard_outage(self, shard_id: int) -> None:
        """Shard ``shard_id`` loses its connection (a resumable close) and cannot get
        it back: its RESUME waits unanswered, its events are kept, until
        :meth:`shard_recovered`.  The other shards stay connected."""
        self._stalled.setdefault(shard_id, [])
        for connection in list(self._connections):
            session = connection.session
            if session is not None and session.shard is not None and session.shard[0] == shard_id:
                connection.closed_by_fake = True
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        connection.ws.close(code=4000, message=b"fake: shard outage"), 5.0
                    )

    async def shard_recovered(self, shard_id: int) -> None:
        """The end of :meth:`shard_outage`: the waiting RESUME is answered."""
        for connection, data in self._stalled.pop(shard_id, []):
            await self._resume(connection, data)

    async def kill_connections(self) -> None:
        """Cut every gateway connection without a close frame (the client sees 1006,
        as after a network failure); events meanwhile are kept for RESUME."""
        for connection in list(self._connections):
            connection.closed_by_fake = True
            if connection.transport is not None:
                connection.transport.abort()

    async def invalidate_sessions(self, *, resumable: bool = False) -> None:
        """Send op 9 INVALID SESSION on every connection.  Not resumable: the session
        is gone (a RESUME fails too) and the client must IDENTIFY anew; events meanwhile
        are lost, as on Discord."""
        for connection in list(self._connections):
            session = connection.session
            if session is not None and not resumable:
                self._sessions.pop(session.id, None)
                session.connection = None
                connection.session = None
            await connection.send({"op": 9, "d": resumable, "s": None, "t": None})

    async def _broadcast(
        self,
        event: str,
        make: Callable[[_GatewaySession], Json | None],
        guild_id: int | None,
    ) -> None:
        for session in list(self._sessions.values()):
            if not session.receives(guild_id):
                continue
            data = make(session)
            if data is not None:
                await session.dispatch(event, data)

    async def _serve_gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        connection = _GatewayConnection(ws, request.query.get("compress"))
        connection.transport = request.transport
        self._connections.append(connection)
        self._changed()
        try:
            if request.query.get("encoding", "json") != "json":
                await ws.close(code=4002, message=b"Error while decoding payload.")
                return ws
            await connection.send(
                {
                    "op": 10,
                    "d": {
                        "heartbeat_interval": self.heartbeat_interval_ms,
                        "_trace": ["fake-gateway"],
                    },
                    "s": None,
                    "t": None,
                }
            )
            async for message in ws:
                if message.type is not WSMsgType.TEXT:
                    await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                try:
                    await self._on_gateway_payload(connection, json.loads(message.data))
                except Exception as error:  # the fake is broken: make it visible
                    self.internal_errors.append(error)
                    _log.exception("fake gateway failed on %s", message.data[:200])
                    await ws.close(code=4000)
                    break
        finally:
            session = connection.session
            if session is not None and session.connection is connection:
                session.connection = None
                if ws.close_code in (1000, 1001) and not connection.closed_by_fake:
                    # A deliberate close invalidates the session (Discord's rule).
                    self._sessions.pop(session.id, None)
            self._connections.remove(connection)
            self._changed()
        return ws

    async def _on_gateway_payload(self, connection: _GatewayConnection, payload: Json) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if op == 1:
            connection.heartbeats += 1
            await connection.send({"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            await self._identify(connection, data or {})
        elif op == 6:
            await self._resume(connection, data or {})
        elif op == 8:
            await self._request_members(connection, data or {})
        elif op in (3, 4):
            pass  # presence and voice state updates: nothing to model
        else:
            await connection.ws.close(code=4001, message=b"Unknown opcode.")

    async def _identify(self, connection: _GatewayConnection, data: Json) -> None:
        if connection.session is not None:
            await connection.ws.close(code=4005, message=b"Already authenticated.")
            return
        if data.get("token") != self.token:
            await connection.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = data.get("intents")
        if not isinstance(intents, int):
            await connection.ws.close(code=4013, message=b"Invalid intent(s).")
            return
        if intents & PRIVILEGED_INTENTS & ~self.allowed_privileged_intents:
            await connection.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        shard_data = data.get("shard")
        shard = (int(shard_data[0]), int(shard_data[1])) if shard_data else None
        if shard is not None and not 0 <= shard[0] < shard[1]:
            await connection.ws.close(code=4010, message=b"Invalid shard.")
            return
        session = _GatewaySession(id=secrets.token_hex(16), shard=shard, intents=intents)
        guilds = [g for g in self.guilds.values() if session.receives(g.id)]
        ready: Json = {
            "v": API_VERSION,
            "user": self._bot_user_payload(),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
            "_trace": ["fake-gateway"],
        }
        if shard is not None:
            ready["shard"] = list(shard)
        async with connection.lock:
            connection.session = session
            session.connection = connection
            self._sessions[session.id] = session
            await connection.send_locked(session.frame("READY", ready))
            for guild in guilds:
                await connection.send_locked(
                    session.frame("GUILD_CREATE", self._guild_create_payload(guild, session))
                )
        self._changed()

    async def _resume(self, connection: _GatewayConnection, data: Json) -> None:
        session = self._sessions.get(str(data.get("session_id")))
        if session is None or data.get("token") != self.token or connection.session is not None:
            await connection.send({"op": 9, "d": False, "s": None, "t": None})
            return
        if session.shard is not None and session.shard[0] in self._stalled:
            self._stalled[session.shard[0]].append((connection, data))
            return
        since = int(data.get("seq") or 0)
        async with connection.lock:
            connection.session = session
            session.connection = connection
            session.resumes += 1
            for frame in session.backlog:
                if frame["s"] > since:
                    await connection.send_locked(frame)
            await connection.send_locked(session.frame("RESUMED", {"_trace": ["fake-gateway"]}))
        self._changed()

    async def _request_members(self, connection: _GatewayConnection, data: Json) -> None:
        guild = self.guilds.get(int(data.get("guild_id", 0)))
        session = connection.session
        if guild is None or session is None:
            return
        members = list(guild.members.values())
        user_ids = data.get("user_ids")
        if user_ids:
            wanted = {int(u) for u in user_ids}
            members = [m for m in members if m.user.id in wanted]
        query = data.get("query")
        if query:
            members = [m for m in members if m.user.username.lower().startswith(query.lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: Json = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        if data.get("presences"):
            chunk["presences"] = []
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    def _guild_create_payload(
        self, guild: FakeGuild, session: _GatewaySession, *, joined: bool = False
    ) -> Json:
        """GUILD_CREATE. Without the GUILD_MEMBERS intent Discord sends only the bot's
        own member, so member_count differs from the member list — as in production.
        A guild the bot just joined has no ``unavailable`` key; discord.py tells a join
        from a guild becoming available by exactly that."""
        if session.intents & Intent.GUILD_MEMBERS:
            members = list(guild.members.values())
        else:
            members = [guild.members[self.bot_user.id]]
        bot_member = guild.members[self.bot_user.id]
        payload: Json = {
            **guild.payload(),
            "joined_at": _iso(bot_member.joined_at),
            "large": False,
            "lazy": True,
            "unavailable": False,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": [m.payload() for m in members],
            "channels": [c.payload() for c in guild.channels],
            "threads": [
                c.payload() for c in self.channels.values() if c.guild is guild and c.is_thread
            ],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "incidents_data": None,
        }
        if joined:
            del payload["unavailable"]
        return payload

    def _message_event(self, message: FakeMessage, session: _GatewaySession) -> Json | None:
        """MESSAGE_CREATE/UPDATE for one session, honouring the message intents and
        blanking content without MESSAGE_CONTENT (except the bot's own messages, DMs
        and mentions of the bot, which Discord exempts)."""
        needed = Intent.DIRECT_MESSAGES if message.channel.is_dm else Intent.GUILD_MESSAGES
        if not session.intents & needed:
            return None
        data = message.payload()
        exempt = (
            message.author is self.bot_user
            or message.channel.is_dm
            or self.bot_user in message.mentions
        )
        if not session.intents & Intent.MESSAGE_CONTENT and not exempt:
            data.update(content="", embeds=[], attachments=[], components=[])
        return data

    async def _announce_create(self, message: FakeMessage) -> None:
        message.channel.last_message_id = message.id
        if message.ephemeral_for is None:
            guild_id = message.channel.guild.id if message.channel.guild else None
            await self._broadcast(
                "MESSAGE_CREATE", lambda s: self._message_event(message, s), guild_id
            )
        self._changed()

    async def _announce_update(self, message: FakeMessage) -> None:
        if message.ephemeral_for is None:
            guild_id = message.channel.guild.id if message.channel.guild else None
            await self._broadcast(
                "MESSAGE_UPDATE", lambda s: self._message_event(message, s), guild_id
            )
        self._changed()

    async def _announce_delete(self, message: FakeMessage) -> None:
        if message.ephemeral_for is None:
            guild = message.channel.guild
            data: Json = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if guild is not None:
                data["guild_id"] = str(guild.id)
            needed = Intent.DIRECT_MESSAGES if message.channel.is_dm else Intent.GUILD_MESSAGES
            await self._broadcast(
                "MESSAGE_DELETE",
                lambda s: data if s.intents & needed else None,
                guild.id if guild else None,
            )
        self._changed()

    def _bot_user_payload(self) -> Json:
        return {
            **self.bot_user.payload(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }
