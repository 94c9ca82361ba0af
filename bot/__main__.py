"""``python -m bot``: start the bot (not built yet; see the open issues)."""

from __future__ import annotations

import sys


def main() -> int:
    print(
        "The chat bot is not built yet. Meanwhile the rules engine runs:\n"
        "  .venv/bin/python -m engine selfplay --game zweier --deals 1000 --seed 1\n"
        "  .venv/bin/python -m engine replay tests/engine/records/zweier/<file>.json"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
