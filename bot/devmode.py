"""Dev mode without credentials: a dev identity answers where no platform directory can say who asks.

With no Slack bot token there is no ``users.info`` to call, and with no Graph credentials no
``memberOf`` (the Bot Framework Emulator sends no Entra ID object id at all). In dev mode the
asker is then the identity configured by ``DEV_IDENTITY_GROUPS`` and ``DEV_IDENTITY_STATE``,
validated against the RBAC policy like any mapped group. Production never gets here:
:func:`uses_dev_identity` is false whenever ``BENEFITSBOT_ENV=prod``, whatever else is set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from bot.answering import Audience
from bot.errors import ConfigError
from bot.identity import Identity
from bot.rbac import RbacPolicy
from bot.settings import BotSettings

Platform = Literal["slack", "teams"]


def uses_dev_identity(settings: BotSettings, platform: Platform) -> bool:
    """True only in dev mode, for a platform whose directory has no credentials."""
    if settings.is_prod:
        return False
    if platform == "slack":
        return not settings.slack_bot_token_value
    return not settings.graph_configured


class DevDirectory:
    """Everyone is the dev identity: the asker, and every reader of a conversation (so a group
    chat in the Emulator is answered publicly, from what the dev identity may see)."""

    def __init__(self, platform: Platform, acl_groups: frozenset[str], state: str | None, employment_type: str):
        self.platform = platform
        self.acl_groups = acl_groups
        self.state = state
        self.employment_type = employment_type

    @classmethod
    def from_settings(cls, platform: Platform, settings: BotSettings, policy: RbacPolicy) -> DevDirectory:
        """The configured identity; :class:`ConfigError` for a group or state the policy does not know."""
        groups = settings.dev_groups
        problems: list[str] = []
        unknown = sorted(groups - policy.acl_groups)
        if unknown:
            problems.append(
                f"DEV_IDENTITY_GROUPS names unknown ACL group(s) {unknown} (known: {sorted(policy.acl_groups)})"
            )
        state = policy.state_code(settings.dev_identity_state) if settings.dev_identity_state else None
        if settings.dev_identity_state and state is None:
            problems.append(f"DEV_IDENTITY_STATE {settings.dev_identity_state!r} is not a US state")
        if problems:
            raise ConfigError(problems)
        return cls(platform, groups, state, policy.employment_type(groups))

    def identity_for(self, user_id: str | None) -> Identity:
        return Identity(
            platform=self.platform,
            user_id=user_id or "dev-user",
            acl_groups=self.acl_groups,
            state=self.state,
            employment_type=self.employment_type,
        )

    def describe(self) -> str:
        groups = ",".join(sorted(self.acl_groups)) or "none (no access)"
        return f"groups={groups} state={self.state or 'none'}"

    # The Teams directory's shape (bot.teams.directory.TeamsIdentities).
    async def identity(self, object_id: str | None) -> Identity:
        return self.identity_for(object_id)

    async def audience(self, member_object_ids: Sequence[str | None], *, asker_object_id: str) -> Audience:
        others = [m for m in member_object_ids if m != asker_object_id]
        return Audience(members=[self.identity_for(m) for m in others])

    async def invalidate(self, object_id: str) -> None:
        return None
