"""A fake Discord (REST API and gateway) for end-to-end tests, one concern per module.

:class:`~tests.e2e.fakes.discord.server.FakeDiscord` is assembled from mixins over
:class:`~tests.e2e.fakes.discord.state.FakeDiscordState`: the gateway, the world the tests
build, simulated users, injected failures, and the REST routes of each area
(``rest_*.py``, served by ``rest.py``). Its module says what the fake enforces and how a
test uses it.
"""
