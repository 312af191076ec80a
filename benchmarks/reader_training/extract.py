"""Step 3 (training venv): for every pair, the hidden states entering the first layer to train,
computed by the bundled int8 graph itself (so training starts from exactly what inference feeds
those layers), and the bundled reader's logit.

    python extract.py --first 8 --out P.pkl READINGS.jsonl...
"""

from __future__ import annotations

import argparse
import pickle
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from common import BUNDLED, pair_ids
from pairs import build


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--first", type=int, default=8, help="the first layer to train (0-11)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("readings", type=Path, nargs="+")
    args = parser.parse_args()

    import onnx
    import onnxruntime as ort
    from tqdm import tqdm

    hidden = f"/bert/encoder/layer.{args.first - 1}/output/LayerNorm/Add_1_output_0"
    graph = onnx.load(str(BUNDLED.onnx))
    graph.graph.output.append(onnx.helper.make_tensor_value_info(hidden, onnx.TensorProto.FLOAT, None))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(graph.SerializeToString(), options)
    data = build(args.readings)

    def run(pair: dict) -> tuple[float, np.ndarray]:
        ids, types = pair_ids(pair["q"], pair["t"])
        x = np.asarray([ids])
        logit, states = session.run(
            ["logits", hidden],
            {"input_ids": x, "attention_mask": np.ones_like(x), "token_type_ids": np.asarray([types])},
        )
        return float(logit[0][0]), states[0].astype(np.float16)

    with ThreadPoolExecutor(2) as pool:
        for pair, (logit, states) in zip(data, tqdm(pool.map(run, data), total=len(data), desc="pairs"), strict=True):
            pair["base"], pair["h"] = logit, states
    with args.out.open("wb") as sink:
        pickle.dump({"first": args.first, "data": data}, sink)
    print(f"{len(data)} pairs, {sum(p['y'] for p in data)} answering")


if __name__ == "__main__":
    main()
