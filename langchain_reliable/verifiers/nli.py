"""NLI cross-encoder verifier: any sequence-classification model saved in a local folder.

For each claim the `EvidenceSelector` picks the `evidence_k` passage units
(sentences and two-sentence windows) that bear on it; each unit is then
cross-encoded with the claim (premise = the unit, hypothesis = the claim) and
the model's class probabilities decide the verdict:

- `score` is P(entailment), the maximum over the claim's units;
- `supported` when that score is at least 0.5;
- else `contradicted` when, for the unit most likely to contradict the claim,
  P(contradiction) is at least 0.5 and beats its P(entailment);
- else `uncertain` when the probabilities of the best unit are split (no class
  reaches 0.5), and `unsupported` otherwise.

Which output is "entailment" is read from the model's `config.json`; see
`nli_labels.resolve_labels` for the names recognised and the fallbacks. Nothing is
downloaded: the folder must hold the tokenizer and the weights
(`save_pretrained` of both), and code from the folder is never run.

The backend (`transformers` and a CPU `torch`) is the optional extra `nli`,
imported only when the model is first used:
`pip install -e ".[nli]"` (in the repository checkout).

Example:
    ```python
    from langchain_reliable.schemas import Claim, Passage
    from langchain_reliable.verifiers.nli import NLIVerifier

    verifier = NLIVerifier("models/my-nli-model")  # or get_verifier("nli:models/my-nli-model")
    passages = [Passage(index=0, text="Paris is the capital of France.")]
    claims = [Claim(text="The capital of France is Paris.", span=(0, 31))]
    verifier.verify(claims, passages).verdicts[0].label  # 'supported' for a good NLI model
    ```

"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from langchain_reliable.errors import install_hint
from langchain_reliable.evidence.probe import EntailmentProbe
from langchain_reliable.evidence.select import ClaimEvidence, EvidenceSelector, clamp_score
from langchain_reliable.rules import Rule, Rules
from langchain_reliable.scale import BANDS, on_scale
from langchain_reliable.schemas import Claim, ClaimVerdict, Label, Passage
from langchain_reliable.verifiers.base import BlockingVerifier, as_rules
from langchain_reliable.verifiers.nli_labels import NLILabels, resolve_labels

__all__ = ["INSTALL_HINT", "NLILabels", "NLIVerifier", "resolve_labels"]

INSTALL_HINT = install_hint("nli")

_ENTAILED_AT = 0.5  # P(entailment) at which a claim is supported
_UNCERTAIN_BELOW = 0.5  # the best unit's top class probability under this: probabilities split


# ---------------------------------------------------------------------------
# The verifier
# ---------------------------------------------------------------------------


class NLIVerifier(BlockingVerifier):
    """Judges claims with a sequence-classification cross-encoder saved in a local folder.

    The folder is what `save_pretrained` writes for a model and its tokenizer
    (e.g. an MNLI or MiniCheck-style checkpoint). Construction checks the folder,
    reads the labels from `config.json` and checks the backend is installed;
    the model itself loads on first use (or on `load()`). Inference runs in a
    worker thread under `torch.inference_mode`, in batches of (unit, claim)
    pairs. A failure while loading or running the model makes every claim of
    the call `uncertain`, with the reason in `errors`.

    Args:
        path: The model folder.
        batch_size: Pairs per forward pass.
        max_length: Token limit of a pair (the longer text is truncated first);
            also capped by the tokenizer's own limit.
        device: Torch device to run on ("cpu", "cuda", "cuda:1", ...).
        evidence_k: Passage units cross-encoded per claim (when `selector` is not given).
        selector: The evidence selector; `EvidenceSelector(k=evidence_k)` on the
            package's embedded model when omitted.
        labels: Explicit output roles, e.g. `{"entailment": 2, "contradiction": 0}`,
            for a model whose config names its labels in a way `resolve_labels`
            does not recognise.
        rules: The rules run after judging (`Rules` or a list of `Rule`s); default
            `rules.DEFAULT_RULES`.
        entailment: The entailment model the rules read (`evidence.probe.EntailmentProbe`);
            default: the embedded one, on which their thresholds are calibrated.

    Raises:
        FileNotFoundError: `path` is not a folder or holds no `config.json`.
        ImportError: `transformers` or `torch` is not installed.
        ValueError: bad arguments, an unreadable config, or labels that cannot
            be told apart.

    Example:
        ```python
        verifier = NLIVerifier("models/nli", batch_size=32, evidence_k=3)
        result = await verifier.averify(claims, passages)
        [(v.label, round(v.score, 2)) for v in result.verdicts]
        ```

    """

    def __init__(
        self,
        path: str | Path,
        *,
        batch_size: int = 16,
        max_length: int = 256,
        device: str = "cpu",
        evidence_k: int = 3,
        selector: EvidenceSelector | None = None,
        labels: Mapping[str, int] | None = None,
        rules: Rules | Sequence[Rule] | None = None,
        entailment: EntailmentProbe | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if max_length < 8:
            raise ValueError(f"max_length must be at least 8, got {max_length}")
        if evidence_k < 1:
            raise ValueError(f"evidence_k must be at least 1, got {evidence_k}")
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise FileNotFoundError(f"NLI model folder not found: {folder}")
        config_path = folder / "config.json"
        if not config_path.is_file():
            raise FileNotFoundError(f"no config.json in NLI model folder {folder}")
        try:
            config = json.loads(config_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read {config_path}: {exc}") from None
        if not isinstance(config, dict):
            raise ValueError(f"{config_path} does not hold a JSON object")
        self.labels = resolve_labels(
            config.get("id2label"),
            config.get("label2id"),
            config.get("num_labels") or config.get("_num_labels"),
            given=labels,
        )
        missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
        if missing:
            raise ImportError(
                f"the NLI verifier needs {' and '.join(missing)}: {INSTALL_HINT}",
                name=missing[0],
            )
        self.path = folder
        self.name = f"nli:{folder.name or folder.resolve().name}"
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self.device = device
        self.selector = selector or EvidenceSelector(k=evidence_k)
        self.rules = as_rules(rules, self.selector) or Rules(selector=self.selector)
        if entailment is not None:
            self.entailment_probe = entailment
        super().__init__()
        self._model: Any = None
        self._tokenizer: Any = None
        self._torch: Any = None

    # -- loading --------------------------------------------------------------

    def load(self) -> NLIVerifier:
        """Load the tokenizer and model now (otherwise done on first use); return self.

        Raises:
            ImportError: the backend is missing (`INSTALL_HINT`).
            OSError: the folder lacks the tokenizer or weights files.
            ValueError: the model's outputs do not match its config's labels.

        """
        with self._lock:
            self._load()
        return self

    def _load(self) -> None:
        if self._model is not None:
            return
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise ImportError(
                f"the NLI verifier needs transformers and torch: {INSTALL_HINT}"
            ) from exc
        tokenizer = AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        model = AutoModelForSequenceClassification.from_pretrained(
            str(self.path), local_files_only=True, trust_remote_code=False
        )
        outputs = int(model.config.num_labels)
        if outputs != self.labels.num_labels:
            raise ValueError(
                f"{self.path}: the model has {outputs} outputs but its config names "
                f"{self.labels.num_labels} labels"
            )
        model.to(self.device)
        model.eval()
        self._torch, self._tokenizer, self._model = torch, tokenizer, model

    # -- the work -------------------------------------------------------------

    def _judge(self, claims: list[Claim], passages: list[Passage]) -> list[ClaimVerdict]:
        units = self.selector.units(passages)
        found = self.selector.select(claims, passages, units=units)
        rows: dict[tuple[str, str], int] = {}
        for claim, evidence in zip(claims, found, strict=True):
            for i in evidence.top:
                rows.setdefault((units[i].text, claim.text), len(rows))
        self._load()
        probs = self._probabilities(list(rows))
        verdicts = []
        for claim, evidence in zip(claims, found, strict=True):
            table = probs[[rows[(units[i].text, claim.text)] for i in evidence.top]]
            verdicts.append(self._verdict(claim, evidence, table))
        return verdicts

    def _probabilities(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """Class probabilities of each (premise, hypothesis) pair, shape `(pairs, labels)`."""
        torch, tokenizer, model = self._torch, self._tokenizer, self._model
        width = self.labels.num_labels
        out = np.zeros((len(pairs), max(width, 2)), dtype=np.float64)
        limit = self.max_length
        model_max = getattr(tokenizer, "model_max_length", None)
        if isinstance(model_max, int) and 8 <= model_max < limit:
            limit = model_max
        # Similar lengths together: less padding per batch.
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                encoded = tokenizer(
                    [pairs[i][0] for i in batch],
                    [pairs[i][1] for i in batch],
                    padding=True,
                    truncation=True,
                    max_length=limit,
                    return_tensors="pt",
                )
                encoded = {k: v.to(self.device) for k, v in encoded.items()}
                logits = model(**encoded).logits.float()
                if logits.ndim != 2 or logits.shape[-1] != width:
                    raise ValueError(
                        f"model returned logits of shape {tuple(logits.shape)}, "
                        f"expected (batch, {width})"
                    )
                if width == 1:
                    p = torch.sigmoid(logits[:, 0])
                    probs = torch.stack([1.0 - p, p], dim=-1)
                else:
                    probs = torch.softmax(logits, dim=-1)
                out[batch] = probs.cpu().numpy()
        if not np.isfinite(out).all():
            raise ValueError("the model produced non-finite probabilities")
        return out

    def _columns(self, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(entailment) and P(contradiction) of each row of `table`."""
        if self.labels.num_labels == 1:
            return table[:, 1], np.zeros(len(table))
        entail = table[:, self.labels.entailment]
        contra = self.labels.contradiction
        return entail, (table[:, contra] if contra is not None else np.zeros(len(table)))

    def _verdict(
        self,
        claim: Claim,
        found: ClaimEvidence,
        table: np.ndarray,
    ) -> ClaimVerdict:
        units = [found.units[i] for i in found.top]
        if not units:
            return ClaimVerdict(
                text=claim.text, span=claim.span, label="unsupported",
                score=BANDS["unsupported"][0],
                reason="no passage sentence to check the claim against",
            )  # fmt: skip
        entail, contra = self._columns(table)
        best = int(np.argmax(entail))  # ties: the selector's order
        worst = int(np.argmax(contra))
        score = float(entail[best])
        label: Label
        if score >= _ENTAILED_AT:
            label, lead = "supported", best
            reason = f"supported by {units[best].passage_name}"
            details = f"P(entailment) {score:.2f}"
        elif contra[worst] >= 0.5 and contra[worst] > entail[worst]:
            label, lead = "contradicted", worst
            reason = f"{units[worst].passage_name} says otherwise"
            details = f"P(contradiction) {contra[worst]:.2f}, P(entailment) {entail[worst]:.2f}"
        elif float(table[best].max()) < _UNCERTAIN_BELOW:
            label, lead = "uncertain", best
            reason = f"{units[best].passage_name} neither clearly says it nor says otherwise"
            details = f"the model is split: {self._spread(table[best])}"
        else:
            label, lead = "unsupported", best
            reason = f"no passage says it (of {len(units)} passage unit(s) read)"
            details = f"best {units[best].passage_name}: P(entailment) {score:.2f}"
        strength = np.maximum(entail, contra)
        rest = sorted((i for i in range(len(units)) if i != lead), key=lambda i: -strength[i])
        evidence = [
            EvidenceSelector.as_evidence(units[i], float(strength[i])) for i in (lead, *rest)
        ]
        return ClaimVerdict(
            text=claim.text,
            span=claim.span,
            label=label,
            score=on_scale(label, clamp_score(score), (_ENTAILED_AT, _ENTAILED_AT)),
            evidence=evidence,
            reason=reason,
            details=details,
        )

    def _spread(self, row: np.ndarray) -> str:
        if self.labels.num_labels == 1:
            return f"P(entailment) {row[1]:.2f}"
        return ", ".join(f"{n} {p:.2f}" for n, p in zip(self.labels.names, row, strict=False))
