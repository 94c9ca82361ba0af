"""What to show, as neutral data: adapters only turn these into platform messages.

Every view carries a ready `Message` (plain text with Unicode suits, and rows of
`Button`s whose payloads the core made) plus the structured data behind it, so
adapters can send it as it is and tests can look at the data.  Hidden information
comes only from the engine's per-seat views: the public table view is built from
``view(state, None)`` and a hand view from ``view(state, seat)``.

Import everything from here (``from bot.views import HandView``); the modules only
keep the messages apart, each with the helpers it alone needs:

- `faces`: the views and `Style`, what adapters receive and render;
- `seats`, `scores`, `auction`: what several messages say alike (who sits where,
  score lines, the bids and the contract);
- `lobby`, `table`, `hand` (with its `buttons` and menus), `result`, `summary`,
  `settings`: one message each.
"""

from .buttons import menu_valid
from .faces import (
    MAX_PER_ROW,
    MAX_ROWS,
    BoardRow,
    Button,
    HandView,
    LobbyView,
    Message,
    ResultView,
    SeatLine,
    Style,
    TableView,
)
from .hand import hand_title, hand_view
from .lobby import lobby_view, started_lobby_text
from .result import deal_result_view, rematch_button
from .scores import MATCH_TARGET, scores_of, side_points, team_name, valued
from .seats import deal_game, names, seat_lines, team_of
from .settings import setting_line, settings_text
from .summary import match_summary_text
from .table import table_view

__all__ = [
    "MATCH_TARGET",
    "MAX_PER_ROW",
    "MAX_ROWS",
    "BoardRow",
    "Button",
    "HandView",
    "LobbyView",
    "Message",
    "ResultView",
    "SeatLine",
    "Style",
    "TableView",
    "deal_game",
    "deal_result_view",
    "hand_title",
    "hand_view",
    "lobby_view",
    "match_summary_text",
    "menu_valid",
    "names",
    "rematch_button",
    "scores_of",
    "seat_lines",
    "setting_line",
    "settings_text",
    "side_points",
    "started_lobby_text",
    "table_view",
    "team_name",
    "team_of",
    "valued",
]
