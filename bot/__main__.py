"""``python -m bot`` (``make run``): start every adapter whose token is configured, or
the local terminal table when there is none.  See `bot.app`."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    try:
        from .app import main

        code = main()
    except KeyboardInterrupt:
        # Ctrl-C while the libraries load or the settings are read (a second or two
        # on a cold start): a quiet exit, as at any later moment, not a traceback.
        code = 130
    sys.exit(code)
