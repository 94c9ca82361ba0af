"""``python -m bot`` (``make run``): start every adapter whose token is configured, or
the local terminal table when there is none.  See `bot.app`."""

from __future__ import annotations

import sys

from .app import main

if __name__ == "__main__":
    sys.exit(main())
