r"""Step 4 (training venv): fine-tune the top layers, pooler and head on the cached hidden states,
binary cross-entropy on answering (1) / not answering (0) pairs; AdamW, linear warm-up and decay,
batches of 32 of similar length. The lower layers and embeddings stay the bundled model's.

    python train.py --out MODEL_DIR --epochs 1 --lr 5e-5 [--exclude REGEX] P.pkl...

``--exclude`` leaves out the pairs of the rows whose "set/id" matches, for a reader held out from
those sets (the later-sets design in benchmarks/README.md: '^(holdout-chat-4\d|contoso_holdout_(3[5-9]|4[0-4]))/').
"""

from __future__ import annotations

import argparse
import math
import pickle
import random
import re
from pathlib import Path

import numpy as np
from float_model import float_model


def layer_forward(layer, h, mask):  # type: ignore[no-untyped-def]
    """One BERT layer as the ONNX graph computes it (post-norm, exact GELU)."""
    import torch.nn.functional as F

    attention = layer.attention.self
    batch, length, width = h.shape
    heads = 12
    size = width // heads

    def split(x):  # type: ignore[no-untyped-def]
        return x.view(batch, length, heads, size).transpose(1, 2)

    q, k, v = split(attention.query(h)), split(attention.key(h)), split(attention.value(h))
    scores = q @ k.transpose(-1, -2) / math.sqrt(size) + (1.0 - mask[:, None, None, :]) * -1e4
    context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, length, width)
    h = layer.attention.output.LayerNorm(layer.attention.output.dense(context) + h)
    return layer.output.LayerNorm(layer.output.dense(F.gelu(layer.intermediate.dense(h))) + h)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--exclude", type=re.compile, default=None, help="leave out rows whose set/id matches")
    parser.add_argument("pairs", type=Path, nargs="+")
    args = parser.parse_args()

    import torch
    import torch.nn.functional as F
    from tqdm import tqdm

    torch.set_num_threads(2)
    torch.manual_seed(args.seed)
    loaded = [pickle.load(path.open("rb")) for path in args.pairs]
    first = loaded[0]["first"]
    if any(part["first"] != first for part in loaded):
        raise SystemExit("every pairs file must start at the same layer")
    train = [
        pair for part in loaded for pair in part["data"] if args.exclude is None or not args.exclude.match(pair["row"])
    ]
    print(f"{len(train)} training pairs", flush=True)
    model = float_model()
    layers = model.bert.encoder.layer[first:]
    params = [p for layer in layers for p in layer.parameters()]
    params += [*model.bert.pooler.parameters(), *model.classifier.parameters()]
    for p in model.parameters():
        p.requires_grad = False
    for p in params:
        p.requires_grad = True

    def forward(batch):  # type: ignore[no-untyped-def]
        length = max(len(pair["h"]) for pair in batch)
        h = torch.zeros(len(batch), length, 384)
        mask = torch.zeros(len(batch), length)
        for j, pair in enumerate(batch):
            n = len(pair["h"])
            h[j, :n] = torch.from_numpy(pair["h"].astype(np.float32))
            mask[j, :n] = 1
        for layer in layers:
            h = layer_forward(layer, h, mask)
        return model.classifier(torch.tanh(model.bert.pooler.dense(h[:, 0]))).squeeze(-1)

    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = int(len(train) * args.epochs / 32)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, s / (0.1 * steps + 1)) * max(0.0, 1 - s / steps)
    )
    rng = random.Random(args.seed)
    model.train()
    with tqdm(total=steps, desc="steps") as progress:
        while progress.n < steps:
            order = list(range(len(train)))
            rng.shuffle(order)
            runs = [sorted(order[i : i + 1600], key=lambda j: len(train[j]["h"])) for i in range(0, len(order), 1600)]
            batches = [run[i : i + 32] for run in runs for i in range(0, len(run), 32)]
            rng.shuffle(batches)
            for indexes in batches:
                if progress.n >= steps:
                    break
                batch = [train[i] for i in indexes]
                loss = F.binary_cross_entropy_with_logits(forward(batch), torch.tensor([float(p["y"]) for p in batch]))
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
                progress.update(1)
                progress.set_postfix(loss=f"{loss.item():.3f}")
    model.save_pretrained(args.out)
    (args.out / "first_layer.txt").write_text(str(first))


if __name__ == "__main__":
    main()
