"""What the command line shows: no library progress bars unless asked, bars only on a terminal,
and errors that say which index they are about."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from rag_core.settings import CoreSettings

# Libraries that print progress bars or chatter while loading models (transformers' "Loading
# weights", huggingface_hub downloads): quiet unless the user asks for -v.
_QUIET_ENV = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
_QUIET_LOGGERS = ("transformers", "sentence_transformers", "huggingface_hub", "onnxruntime", "filelock", "urllib3")


def quiet_model_loading() -> None:
    """Before any model library is imported: their bars read these variables once, at import.
    An explicit setting in the environment wins."""
    for name, value in _QUIET_ENV.items():
        os.environ.setdefault(name, value)
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


def show_progress(no_progress: bool = False) -> bool:
    """Our own bars only on a terminal: in a log file a bar is noise glued to the next line."""
    return not no_progress and sys.stderr.isatty()


def data_dir_source(data_dir_flag: Path | None) -> str:
    if data_dir_flag is not None:
        return "--data-dir"
    if os.environ.get("BENEFITSBOT_DATA_DIR"):
        return "BENEFITSBOT_DATA_DIR"
    if Path(".env").is_file() and "BENEFITSBOT_DATA_DIR=" in Path(".env").read_text(encoding="utf-8", errors="replace"):
        return "BENEFITSBOT_DATA_DIR in .env"
    return "the default, .data in the current folder"


def index_location(settings: CoreSettings, data_dir_flag: Path | None = None) -> str:
    """Which index a command used, and why that one: the first thing to check when it is empty."""
    if settings.qdrant_url:
        return f"Qdrant server {settings.qdrant_url}, collection {settings.qdrant_collection!r} (QDRANT_URL)"
    return f"data directory {settings.data_dir.resolve()} (from {data_dir_source(data_dir_flag)})"
