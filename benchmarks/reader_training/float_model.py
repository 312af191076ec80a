"""The bundled int8 ms-marco graph as a float ``BertForSequenceClassification`` (dequantized weight
by weight), and which ONNX initializers each weight came from, so a fine-tune can be written back
into the same graph (``export.py``)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from common import BUNDLED

CONFIG = dict(
    vocab_size=30522,
    hidden_size=384,
    num_hidden_layers=12,
    num_attention_heads=12,
    intermediate_size=1536,
    max_position_embeddings=512,
    type_vocab_size=2,
    num_labels=1,
)


def initializers() -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(BUNDLED.onnx)).graph.initializer}


def weight_sources() -> dict[str, dict[str, Any]]:
    """torch parameter name -> {"quantized", "scale", "zero_point", "transpose"} or {"float": name}."""
    import onnx

    graph = onnx.load(str(BUNDLED.onnx)).graph
    names = {i.name for i in graph.initializer}
    sources: dict[str, dict[str, Any]] = {}
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        weight = node.input[1]
        if weight.startswith("onnx::"):
            found = re.search(r"/bert/encoder/layer\.(\d+)/(.+?)/MatMul_output", node.output[0])
            assert found, node.output[0]
            name = f"bert.encoder.layer.{found.group(1)}.{found.group(2).replace('/', '.')}.weight"
        else:
            name = weight[: -len("_quantized")]
        base = weight[: -len("_quantized")]
        sources[name] = {
            "quantized": weight,
            "scale": f"{base}_scale",
            "zero_point": f"{base}_zero_point",
            "transpose": True,
        }
    for kind in ("word", "token_type", "position"):
        name = f"bert.embeddings.{kind}_embeddings.weight"
        sources[name] = {
            "quantized": f"{name}_quantized",
            "scale": f"{name}_scale",
            "zero_point": f"{name}_zero_point",
            "transpose": False,
        }
    for name in names:
        if name.startswith(("bert.", "classifier.")) and not name.endswith(("_quantized", "_scale", "_zero_point")):
            sources[name] = {"float": name}
    return sources


def float_model() -> Any:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    init = initializers()
    state = {}
    for name, source in weight_sources().items():
        if "float" in source:
            state[name] = torch.tensor(init[source["float"]].copy())
            continue
        q = init[source["quantized"]].astype(np.float32)
        w = (q - init[source["zero_point"]].astype(np.float32)) * init[source["scale"]]
        state[name] = torch.tensor(np.ascontiguousarray(w.T if source["transpose"] else w))
    model = BertForSequenceClassification(BertConfig(**CONFIG))
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or [m for m in missing if "position_ids" not in m]:
        raise RuntimeError(f"weights do not fit: missing {missing}, unexpected {unexpected}")
    return model


def quantize(w: np.ndarray) -> tuple[np.ndarray, np.float32, np.int8]:
    """Per-tensor symmetric int8, as ONNX Runtime's dynamic quantization wrote the bundled graph
    (scale |w|max/127, zero point 0): re-quantizing the unchanged weights gives the bundled bytes."""
    scale = float(np.abs(w).max()) / 127.0
    return np.clip(np.rint(w / scale), -127, 127).astype(np.int8), np.float32(scale), np.int8(0)
