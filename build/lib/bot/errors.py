"""The chat edge's small error hierarchy.

Callers catch these (and the core's :mod:`rag_core.errors`), never bare exceptions; a user only
ever sees a short apology, never one of these messages' internals.
"""

from __future__ import annotations

from rag_core.errors import BenefitsBotError


class BotError(BenefitsBotError):
    """Base class for every error the chat edge raises on purpose.

    Part of the product's one hierarchy, so the CLI reports e.g. a refused start as a clean
    ``error: …`` line instead of a traceback.
    """


class ConfigError(BotError):
    """The configuration is unsafe or incomplete: the service refuses to start."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("BenefitsBot refuses to start:\n  - " + "\n  - ".join(self.problems))


class RbacPolicyError(ConfigError):
    """``RBAC_POLICY_FILE`` is missing or invalid; the message names the file and the key."""


class IdentityLookupError(BotError):
    """A platform directory (Slack users/usergroups, Microsoft Graph, Teams roster) failed.

    Access cannot be decided without it, so the user gets an apology rather than a guess.
    """


class StoreUnavailable(BotError):
    """The shared store (Redis) cannot be reached; callers degrade instead of failing."""


class PlatformError(BotError):
    """Posting a reply to Slack or Teams failed."""
