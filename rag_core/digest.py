"""A file's SHA-256, read in 1 MiB blocks: what a document revision (ingest) and a model weights
file's base graph (models.runtime) are identified by."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
