"""Tiny BERT sequence classifiers saved to a folder, for the NLI verifier's tests (needs torch)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

MNLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
CREDULOUS = (5.0, 0.0, 0.0)
"""Biases of a model that reads every pair as entailed (P(entailment) 0.99)."""


def save_tiny_nli(
    folder: Path,
    vocab: Path,
    bias: Sequence[float] | None = None,
    id2label: dict[int, str] | None = None,
) -> Path:
    """Save a tiny BERT classifier with the WordPiece vocabulary `vocab`; return `folder`.

    With `bias` the classifier's weights are zeroed, so every pair gets exactly
    `softmax(bias)` (or `sigmoid(bias)` for one output).
    """
    import torch
    import transformers

    labels = MNLI if id2label is None else id2label
    tokenizer = transformers.BertTokenizerFast(str(vocab))  # positional: 4.x and 5.x
    config = transformers.BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=512,
        num_labels=len(labels),
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config)
    if bias is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor(list(bias), dtype=torch.float32))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def write_vocab(path: Path, words: Sequence[str]) -> Path:
    """A WordPiece vocabulary of `words`, the special tokens and single characters."""
    chars = list("abcdefghijklmnopqrstuvwxyz0123456789.,'’-")
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, *chars]
    tokens += [f"##{c}" for c in chars]
    path.write_text("\n".join(dict.fromkeys(tokens)) + "\n", encoding="utf-8")
    return path
