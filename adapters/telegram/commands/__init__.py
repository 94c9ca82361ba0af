"""The commands (``/new``, ``/leaderboard``, ``/settings``, ...), each a call on the
core and a reply in the chat (and forum topic) it was typed in.

One module per kind of command: `tables` (/start, /new, /abort, /resign), `results`
(/leaderboard, /stats, /record, /forgetme), `settings`, `help` (/help, /rules, a
command the bot does not have); `gates` holds what they all go through first (the
anonymous admin, a group's command typed privately, the admin check) and the
replies they share.  `TelegramAdapter` wires the handlers to PTB, in the order of
its command menu (`texts.COMMANDS`).
"""

from __future__ import annotations

from .help import HelpCommands
from .results import ResultCommands
from .settings import SettingsCommands
from .tables import TableCommands


class Commands(TableCommands, ResultCommands, SettingsCommands, HelpCommands):
    """`TelegramAdapter`'s command handlers, and the replies they share."""
