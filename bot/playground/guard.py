"""Who may use the playground, and the headers every one of its responses carries.

In dev mode the playground is open on the developer's machine (unless an admin credential is set);
in production it is mounted only with ``PLAYGROUND_ADMIN_TOKEN`` and every request must present it
(HTTP Basic, any user name), because it can ask as any identity. Never open in production.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web

from bot.settings import BotSettings

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

REALM = 'Basic realm="BenefitsBot playground", charset="UTF-8"'

# The pages load nothing from elsewhere and run only their own script file: an injected <script>
# or inline handler would not run even if something escaped the escaping.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def playground_served(settings: BotSettings) -> bool:
    """Dev mode always; production only behind an admin credential."""
    return not settings.is_prod or bool(settings.playground_admin_token_value)


def _presented_password(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic" or not value:
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    _, sep, password = decoded.partition(":")
    return password if sep else None


def _same_origin(request: web.Request) -> bool:
    """A state-changing request from another site's page (a forged form post) is refused."""
    origin = request.headers.get("Origin")
    if not origin or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.host


def guarded(settings: BotSettings, handler: Handler) -> Handler:
    token = settings.playground_admin_token_value

    async def wrapper(request: web.Request) -> web.StreamResponse:
        if token:
            presented = _presented_password(request)
            if presented is None or not hmac.compare_digest(presented.encode(), token.encode()):
                return web.Response(
                    status=401,
                    text="admin credential required",
                    headers={"WWW-Authenticate": REALM, **SECURITY_HEADERS},
                )
        if request.method == "POST" and not _same_origin(request):
            return web.Response(status=403, text="cross-site request refused", headers=SECURITY_HEADERS)
        response = await handler(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    return wrapper
