"""Nothing of a request body reaches the logs unless LOG_QUERIES=true.

Platform SDKs log request bodies: slack-bolt logs the whole body of a request whose signature
fails (at INFO) and of unhandled requests (at WARNING), and logs payloads at DEBUG; the Slack and
Bot Framework SDKs log payloads at DEBUG. An employee's question ("Does my plan cover my HIV
medication?") is in those bodies. Every SDK logger carries :class:`BodyRedactor`, which drops
their DEBUG records (payloads) and rewrites bodies out of the others before any handler sees
them. Filters, unlike levels, do not pass from a logger to its children, so the redactor is put on
each SDK logger by name; slack-bolt copies the filters of the logger it is given
(``bot.slack.bolt``) onto each logger it creates, but only onto loggers that have none yet, so
the one shared redactor is also put on bolt loggers that already exist.
"""

from __future__ import annotations

import logging
import re

CHATTY_LOGGERS = ("slack_bolt", "slack_sdk", "bot.slack.bolt", "botbuilder", "botframework", "msrest", "msal")
BOLT_LOGGER = "bot.slack.bolt"

_BODY_TAIL = re.compile(r"(body:\s*).*", re.DOTALL)
_MAPPING = re.compile(r"\{.*\}", re.DOTALL)
_FORM = re.compile(r"(?:^|(?<=[\s(&]))[\w.\[\]%-]+=[^\s&)]*(?:&[\w.\[\]%-]+=[^\s&)]*)+")
REDACTED = "<redacted: LOG_QUERIES=false>"


class BodyRedactor(logging.Filter):
    """Removes request bodies (JSON objects, form-encoded strings, ``body: ...`` tails) from SDK log
    records, and drops their DEBUG records, unless ``log_queries``."""

    def __init__(self) -> None:
        super().__init__()
        self.log_queries = False

    def filter(self, record: logging.LogRecord) -> bool:
        if self.log_queries:
            return True
        if record.levelno < logging.INFO:
            return False
        message = record.getMessage()
        redacted = _BODY_TAIL.sub(lambda m: m.group(1) + REDACTED + ")", message)
        redacted = _MAPPING.sub(REDACTED, redacted)
        redacted = _FORM.sub(REDACTED, redacted)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not self.log_queries:
            # A traceback's exception message can quote the body (a JSON decode error does).
            record.exc_text = f"{record.exc_info[0].__name__ if record.exc_info[0] else 'Error'}: {REDACTED}"
            record.exc_info = None
        return True


REDACTOR = BodyRedactor()


def protect_logs(log_queries: bool) -> None:
    """Install the one redactor on ``bot.slack.bolt`` (bolt copies it onto the loggers it creates
    next) and on every SDK logger that exists now (SDK modules create theirs at import). No
    logger's level is touched: the root level (LOG_LEVEL) stays the only threshold. Call it before
    building the Slack app and again after (bolt creates loggers while it is built)."""
    REDACTOR.log_queries = log_queries
    names = [BOLT_LOGGER, *(n for n in list(logging.root.manager.loggerDict) if n.startswith(CHATTY_LOGGERS))]
    for name in names:
        logger = logging.getLogger(name)
        if REDACTOR not in logger.filters:
            logger.addFilter(REDACTOR)
