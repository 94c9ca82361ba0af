"""Who plays at the terminal, and where: the platform, its one chat and its user.

The local table's counterparts of the references a chat adapter makes of its chats
and users; apart from the table so the adapter's entry (`serve`) names them alone.
"""

from __future__ import annotations

import os

from bot.service import ChatRef, UserRef

from .texts import say

PLATFORM = "local"
CHAT = ChatRef(PLATFORM, "terminal")  # one place only: hands need not name it


def local_user(environ: dict[str, str] | None = None) -> UserRef:
    """The person at the keyboard: named after $USER, speaking the locale's language.

    Without $USER (a `docker run -it`) the name is the language's word for a player:
    the table speaks of every seat in the third person ("… takes the Bummerl",
    "Geber …"), which "You" cannot stand in.  The system account's name is no better
    there: in the image it is "bot", which reads like the computer.
    """
    env = os.environ if environ is None else environ
    locale = env.get("LC_ALL") or env.get("LC_MESSAGES") or env.get("LANG") or ""
    lang = "de" if locale.lower().startswith("de") else "en"
    name = (env.get("USER") or "").strip() or say(lang, "player_name")
    return UserRef(PLATFORM, "me", name, lang)
