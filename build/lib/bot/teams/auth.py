"""Bot Framework authentication for ``POST /api/messages``.

We use botbuilder's parameterized authentication so the OpenID metadata (and thus the JWKS)
URLs are configurable: production points at login.botframework.com, tests at a local fake that
signs tokens with a local RSA key. botbuilder fetches that metadata with blocking ``requests``
calls on the event loop; :class:`AsyncOpenIdMetadata` replaces them with aiohttp (registered in
botbuilder's own metadata cache), which also makes the local fake servable from the same loop.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

import aiohttp
from botframework.connector.auth import (
    BotFrameworkAuthentication,
    BotFrameworkAuthenticationFactory,
    PasswordServiceClientCredentialFactory,
    ServiceClientCredentialsFactory,
)
from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor, _OpenIdConfig, _OpenIdMetadata
from jwt.algorithms import RSAAlgorithm

from bot.settings import BotSettings

BOT_FRAMEWORK_SCOPE = "https://api.botframework.com"


class AsyncOpenIdMetadata(_OpenIdMetadata):  # type: ignore[misc]
    """botbuilder's OpenID metadata cache, refreshed with aiohttp instead of blocking requests."""

    def __init__(self, url: str, timeout_s: float = 10.0) -> None:
        super().__init__(url)
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)

    async def _refresh(self) -> None:
        async with aiohttp.ClientSession(timeout=self._timeout) as session:
            async with session.get(self.url) as resp:
                resp.raise_for_status()
                metadata = await resp.json(content_type=None)
            async with session.get(metadata["jwks_uri"]) as resp:
                resp.raise_for_status()
                keys = (await resp.json(content_type=None))["keys"]
        self.keys = keys
        self.last_updated = datetime.now()

    def _find(self, key_id: str) -> _OpenIdConfig | None:
        for key in self.keys or []:
            if key.get("kid") == key_id:
                return _OpenIdConfig(RSAAlgorithm.from_jwk(json.dumps(key)), key.get("endorsements", []))
        return None

    async def get(self, key_id: str) -> _OpenIdConfig:
        config = await super().get(key_id)
        if config is None:
            raise PermissionError("token signed with an unknown key")
        return config


def install_async_metadata(urls: Iterable[str]) -> None:
    """Register fresh async metadata for ``urls`` in botbuilder's process-wide cache.

    Fresh on every app start: keys cached by an earlier app for the same URL (another test's
    fake that happened to get the same port, or keys from before a restart) are never reused.
    """
    for url in urls:
        JwtTokenExtractor.metadataCache[url] = AsyncOpenIdMetadata(url)


def build_authentication(
    settings: BotSettings, credentials_factory: ServiceClientCredentialsFactory | None = None
) -> BotFrameworkAuthentication:
    """Inbound JWT validation (issuer, audience = our app id, expiry, serviceurl claim, endorsements)
    and outbound credentials. With no app id, authentication is off (dev only: see BotSettings)."""
    factory = credentials_factory or PasswordServiceClientCredentialFactory(
        app_id=settings.microsoft_app_id or None,
        password=settings.microsoft_app_password_value or None,
        tenant_id=settings.microsoft_app_tenant_id or None,
    )
    install_async_metadata([settings.teams_openid_metadata_url, settings.teams_emulator_openid_metadata_url])
    tenant = settings.microsoft_app_tenant_id or "botframework.com"
    return BotFrameworkAuthenticationFactory.create(
        validate_authority=True,
        to_channel_from_bot_login_url=f"https://login.microsoftonline.com/{tenant}",
        to_channel_from_bot_oauth_scope=BOT_FRAMEWORK_SCOPE,
        to_bot_from_channel_token_issuer=settings.teams_token_issuer,
        oauth_url=BOT_FRAMEWORK_SCOPE,
        to_bot_from_channel_open_id_metadata_url=settings.teams_openid_metadata_url,
        to_bot_from_emulator_open_id_metadata_url=settings.teams_emulator_openid_metadata_url,
        caller_id=None,
        credential_factory=factory,
    )
