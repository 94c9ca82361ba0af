"""A fake Telegram Bot API for end-to-end tests, one concern per module.

:class:`~tests.e2e.fakes.telegram.server.FakeTelegram` is assembled from mixins over
:class:`~tests.e2e.fakes.telegram.state.FakeTelegramState`: the world the tests build,
update delivery, injected failures, reading and waiting, and the Bot API methods of each
area (``api_*.py``, served by ``bot_api.py``). Its module says what the fake is for and
how a test uses it.
"""
