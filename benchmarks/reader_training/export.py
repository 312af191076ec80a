"""Step 5 (training venv): write the fine-tune as the initializers it changed (its layers, pooler and
head, int8 like the bundled graph) into ``rag_core/models/data/<name>.npz``, with the SHA-256 of the
graph it was made for. Its logits are put on ms-marco's scale first: the mean and spread of the
new logits over a sample of the training pairs are matched to the bundled reader's (an affine map
folded into the head), so the gates' margins in logits keep their order of magnitude.

    python export.py --model MODEL_DIR --out rag_core/models/data/benefits-reader-v2.npz P.pkl...
"""

from __future__ import annotations

import argparse
import pickle
import random
from pathlib import Path

import numpy as np
from common import BUNDLED, pair_ids
from float_model import quantize, weight_sources

from rag_core.digest import file_sha256
from rag_core.models.runtime import BASE_DIGEST_KEY


def changed_initializers(
    state: dict[str, np.ndarray], first: int, scale: float = 1.0, shift: float = 0.0
) -> dict[str, np.ndarray]:
    trained = (*(f"bert.encoder.layer.{i}." for i in range(first, 12)), "bert.pooler.", "classifier.")
    arrays: dict[str, np.ndarray] = {}
    for name, source in weight_sources().items():
        if not name.startswith(trained):
            continue
        w = state[name]
        if name == "classifier.weight":
            w = w * scale
        elif name == "classifier.bias":
            w = w * scale + shift
        if "float" in source:
            arrays[source["float"]] = w.astype(np.float32)
            continue
        q, s, z = quantize(np.ascontiguousarray(w.T if source["transpose"] else w))
        arrays[source["quantized"]], arrays[source["scale"]], arrays[source["zero_point"]] = q, np.array(s), np.array(z)
    return arrays


def logits(arrays: dict[str, np.ndarray], pairs: list[dict]) -> np.ndarray:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    values = [ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(v)) for v in arrays.values()]
    for name, value in zip(arrays, values, strict=True):
        options.add_initializer(name, value)
    session = ort.InferenceSession(str(BUNDLED.onnx), options)
    out = []
    for pair in pairs:
        ids, types = pair_ids(pair["q"], pair["t"])
        x = np.asarray([ids])
        feeds = {"input_ids": x, "attention_mask": np.ones_like(x), "token_type_ids": np.asarray([types])}
        out.append(float(session.run(None, feeds)[0][0][0]))
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=3000)
    parser.add_argument("pairs", type=Path, nargs="+")
    args = parser.parse_args()

    from transformers import BertForSequenceClassification

    first = int((args.model / "first_layer.txt").read_text())
    model = BertForSequenceClassification.from_pretrained(args.model)
    state = {k: v.numpy().astype(np.float32) for k, v in model.state_dict().items()}
    data = [pair for path in args.pairs for pair in pickle.load(path.open("rb"))["data"]]
    sample = random.Random(0).sample(data, min(args.sample, len(data)))
    new = logits(changed_initializers(state, first), sample)
    base = np.array([pair["base"] for pair in sample])
    scale = float(base.std() / new.std())
    shift = float(base.mean() - scale * new.mean())
    arrays = changed_initializers(state, first, scale, shift)
    arrays[BASE_DIGEST_KEY] = np.array(file_sha256(BUNDLED.onnx))
    np.savez_compressed(args.out, **arrays)
    print(
        f"layers {first}-11; logits mapped x{scale:.3f} {shift:+.3f}; {args.out} {args.out.stat().st_size / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
