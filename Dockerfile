# The Schnapsen bot: `docker build -t schnapsen-bot .`, then
#   docker run -d --name schnapsen --restart unless-stopped --env-file .env -v schnapsen-data:/data schnapsen-bot
# With no token in the environment it starts the terminal table instead (`docker run -it`).
# BASE_IMAGE: any image with Python 3.11+ and pip as `python` / `pip` (a mirror's copy, say).
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# The dependencies first, read from pyproject.toml (no dev extras) at the versions of
# constraints.txt (those the test suite ran with), in a layer of their own: a change to
# the code rebuilds from the next COPY on, without downloading them again.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" > /tmp/requirements.txt \
    && pip install -c constraints.txt -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt
# Then the package itself; README.md is its readme.
COPY README.md ./
COPY engine ./engine
COPY bot ./bot
COPY adapters ./adapters
RUN pip install --no-deps . \
    && groupadd --system --gid 10001 bot \
    && useradd --system --uid 10001 --gid bot --no-create-home --home-dir /nonexistent bot \
    && mkdir -p /data \
    && chown bot:bot /data

# The database lives on a volume, so games and ratings survive new images.
ENV DATABASE_PATH=/data/schnapsen.sqlite3
VOLUME ["/data"]

USER bot
# Telegram webhook mode listens on TELEGRAM_WEBHOOK_PORT (8443 unless set); polling needs no port.
EXPOSE 8443
# `docker ps` says (healthy) while the bot's event loop answers: it touches its
# database's lock file every 30 s, and `python -m bot --health` reads that time.
HEALTHCHECK --interval=60s --timeout=20s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "--health"]
# SIGTERM (docker stop) stops the bot cleanly: tables are durable and resume on the next start.
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
