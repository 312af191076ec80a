"""The core's small error hierarchy: callers catch these, never bare exceptions."""


class BenefitsBotError(Exception):
    """Base class for every error the core raises on purpose."""


class AccessDenied(BenefitsBotError):
    """The RBAC token is missing, forged, malformed or expired. No retrieval happens."""


class CatalogError(BenefitsBotError):
    """Document metadata is invalid. The message names the file and the field."""

    def __init__(self, file: str, field: str, problem: str) -> None:
        super().__init__(f"{file}: field '{field}': {problem}")
        self.file = file
        self.field = field
        self.problem = problem


class ExtractionError(BenefitsBotError):
    """A source file could not be read (corrupt or unsupported PDF, unreadable markdown)."""


class IndexUnavailable(BenefitsBotError):
    """The vector index cannot be reached or opened."""


class IndexModelMismatch(BenefitsBotError):
    """The index was built with a different embedding model than the one configured to query it."""


class EmbeddingFailed(BenefitsBotError):
    """The embedding provider failed after its bounded retries."""


class GenerationFailed(BenefitsBotError):
    """The generator failed after its bounded retries."""


class InvalidInput(BenefitsBotError):
    """A user-supplied file (gold set, arguments) is malformed; the message names where."""


class InvalidQuestion(BenefitsBotError):
    """The question is empty, only whitespace, or longer than ``MAX_QUESTION_CHARS``: nothing to
    search for, or more than any employee question needs (and a cheap way to load the index)."""


class ModelUnavailable(BenefitsBotError):
    """A bundled local model's files are missing or unreadable (the message says which and how to fix)."""
