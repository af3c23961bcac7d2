"""The Azure SDKs' own logging: silent by default, redacted under ``--debug``.

azure-identity reports a failed credential chain as a fifteen-line warning, and
azure-cosmos logs "Marking … unavailable" for each region it gives up on. cosmem
already says what failed in one line, so without ``--debug`` none of it reaches the
user's terminal (nor the TUI's: Textual owns the screen). With ``--debug`` the SDK
logs go to stderr (headless) or to a file (the TUI), through ``SecretMask``: the
account key, connection strings, ``Authorization`` headers, bearer tokens, JWTs and
``sig=`` values are masked before a line is written.

Standard library only: configuring ``logging`` imports no SDK.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from cosmem_tui.sources.cosmos.settings import redact

# The loggers the SDKs write to (msal: azure-identity's token client), and cosmem's own.
SDK_LOGGERS = ("azure", "msal")
OWN_LOGGER = "cosmem_tui"
ENV_DEBUG = "COSMEM_DEBUG"
DEBUG_FILE = "debug.log"
MASK = "***"

# Environment variables whose values are secrets wherever they turn up.
SECRET_ENV = (
    "COSMOS_KEY",
    "COSMOS_CONNECTION_STRING",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PASSWORD",
    "AZURE_PASSWORD",
)
_MIN_SECRET = 8  # shorter values would mask ordinary words

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # AccountKey=…; SharedAccessSignature=…; sig=…&; password=…
    (
        re.compile(
            r"(?i)\b(AccountKey|SharedAccessKey|SharedAccessSignature|sig|signature|key|"
            r"password|secret|client_secret|token|access_token|refresh_token)=([^;&\s'\"]+)"
        ),
        rf"\1={MASK}",
    ),
    # The same, URL-encoded inside a header or a query string (sig%3D…).
    (re.compile(r"(?i)\b(sig|AccountKey|signature)%3D[^&\s'\"]+"), rf"\1%3D{MASK}"),
    # An Authorization header, as a dict entry or a raw header line.
    (
        re.compile(r"(?i)(\bauthorization['\"]?\s*[:=]\s*['\"]?)[^'\"\r\n,}]+"),
        rf"\1{MASK}",
    ),
    (re.compile(r"(?i)\b(bearer|SharedKey|Basic)\s+[A-Za-z0-9._~+/=:%-]{6,}"), rf"\1 {MASK}"),
    # A JSON token response or a dict holding a secret.
    (
        re.compile(
            r"(?i)(['\"](?:access_token|refresh_token|id_token|client_secret|password|"
            r"AccountKey|masterKey|key)['\"]\s*:\s*['\"])[^'\"]+"
        ),
        rf"\1{MASK}",
    ),
    # A JWT anywhere (Entra ID access tokens).
    (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), MASK),
)


class SecretMask(logging.Filter):
    """Masks secrets in every record a handler writes: the message, its arguments and
    its traceback (formatted here, so the handler's formatter sees the masked text)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        values = {s for s in secrets if len(s) >= _MIN_SECRET}
        values |= {quote(s, safe="") for s in values}  # as it appears in a URL or header
        self._values = sorted(values, key=len, reverse=True)

    def mask(self, text: str) -> str:
        # First what every message the console shows goes through: each key or
        # connection string this process read (a profile's key_env too, which is not in
        # the environment this filter was given), then what only logs carry.
        text = redact(text)
        for value in self._values:
            text = text.replace(value, MASK)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.mask(record.getMessage())
        record.args = None
        if record.exc_info:
            record.exc_text = self.mask(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        if record.stack_info:
            record.stack_info = self.mask(record.stack_info)
        return True


def secrets_from_env(environ: Mapping[str, str]) -> list[str]:
    """The secret values set in the environment, and the key inside a connection string."""
    found = [environ[name] for name in SECRET_ENV if environ.get(name)]
    for part in environ.get("COSMOS_CONNECTION_STRING", "").split(";"):
        name, _, value = part.partition("=")
        if name.strip().lower() == "accountkey" and value:
            found.append(value)
    return found


def debug_requested(flag: bool, environ: Mapping[str, str]) -> bool:
    """``--debug``, or ``COSMEM_DEBUG`` set to anything but empty, 0, false, no or off."""
    value = environ.get(ENV_DEBUG, "").strip().lower()
    return flag or value not in ("", "0", "false", "no", "off")


def _loggers() -> list[logging.Logger]:
    return [logging.getLogger(name) for name in (*SDK_LOGGERS, OWN_LOGGER)]


def _reset(logger: logging.Logger) -> None:
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        if not isinstance(handler, logging.NullHandler):
            handler.close()


def silence() -> None:
    """Nothing from the SDKs reaches the terminal.

    A NullHandler, not only a level: a logger with no handler on its way up falls back
    to ``logging.lastResort``, which writes warnings to stderr whatever the level.
    """
    for logger in _loggers():
        _reset(logger)
        logger.addHandler(logging.NullHandler())
        logger.setLevel(logging.CRITICAL)
        logger.propagate = False


def to_stream(stream: TextIO, secrets: Iterable[str] = ()) -> logging.Handler:
    """Every SDK record, masked, on ``stream`` (stderr for headless commands)."""
    return _attach(logging.StreamHandler(stream), secrets)


def to_file(path: Path, secrets: Iterable[str] = ()) -> logging.Handler:
    """Every SDK record, masked, appended to ``path`` (readable by the user alone)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    stream = os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")
    stream.write(f"--- cosmem debug log, started {time.strftime('%Y-%m-%dT%H:%M:%S%z')} ---\n")
    handler = logging.StreamHandler(stream)
    return _attach(handler, secrets)


def _attach(handler: logging.Handler, secrets: Iterable[str]) -> logging.Handler:
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(SecretMask(secrets))
    for logger in _loggers():
        _reset(logger)
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
    return handler


def debug_log_path() -> Path:
    """``$XDG_STATE_HOME/cosmem/log/debug.log`` on Linux (platformdirs' user log dir)."""
    import platformdirs  # only when --debug asks for the file

    return Path(platformdirs.user_log_dir("cosmem", appauthor=False)) / DEBUG_FILE
