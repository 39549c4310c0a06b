"""The evaluation harness: loader, metrics, detectors, runner, CLI and quality script."""

from __future__ import annotations

import argparse
import importlib.util
import io
import itertools
import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from langchain_reliable.claims.base import ClaimExtractor, ExtractionResult
from langchain_reliable.cli import eval as eval_cli
from langchain_reliable.eval import (
    Detector,
    EvalRecord,
    Item,
    LexicalBaseline,
    PeerDetector,
    SeedCosineBaseline,
    VerifierDetector,
    evaluate,
    load_records,
    metrics,
    plot,
)
from langchain_reliable.eval.detectors import cosine_to_score, peer_names, split_sentences
from langchain_reliable.eval.runner import METRIC_KEYS, build_items
from langchain_reliable.schemas import Claim, ClaimVerdict
from langchain_reliable.verifiers.base import ClaimVerifier, VerificationResult
from tests.fakes import SubstringVerifier

FIXTURES = Path(__file__).parent / "fixtures"
TINY = FIXTURES / "eval_tiny.jsonl"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# --- tiny parts -------------------------------------------------------------------------


class SentenceExtractor(ClaimExtractor):
    """Each sentence is a claim."""

    name = "sentences"

    async def aextract(self, answer: str, question: str = "") -> ExtractionResult:
        claims = [
            Claim(text=m.group().strip(), span=(m.start(), m.end()))
            for m in re.finditer(r"[^.!?]+[.!?]?", answer)
            if m.group().strip()
        ]
        return ExtractionResult(claims=claims)


class WordEmbeddings:
    """Bag-of-words vectors over a fixed vocabulary: cosine = word overlap."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.calls = 0

    def _vec(self, text: str) -> list[float]:
        vec = [0.0] * 64
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vec[self.vocab.setdefault(word, len(self.vocab) % 64)] += 1.0
        return vec

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vec(t) for t in texts]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self._vec(text)


class ListDetector:
    """Returns preset scores in order."""

    name = "preset"
    threshold = 0.5

    def __init__(self, scores: list[float | None]) -> None:
        self.scores = list(scores)

    async def ascore(self, items):
        out, self.scores = self.scores[: len(items)], self.scores[len(items) :]
        return out


# --- loader ------------------------------------------------------------------------------


def test_load_fixture() -> None:
    records = load_records(TINY)
    assert len(records) == 10
    assert sum(r.hallucinated for r in records) == 5
    assert records[2].claims is not None and len(records[2].claims) == 2
    assert records[2].spans is not None and records[2].spans[0][1] == len(records[2].answer)
    assert records[3].claims is None
    assert records[0].peer_hallucinated == {"alpha": False, "beta": True}
    assert records[6].question.startswith("At what")
    assert [r.id for r in load_records(TINY, limit=3)] == ["t-1", "t-2", "t-3"]


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _good(**changes) -> str:
    record = {
        "id": "a",
        "dataset": "d",
        "question": "",
        "context": ["p"],
        "answer": "x",
        "hallucinated": False,
    }
    record.update(changes)
    return json.dumps({k: v for k, v in record.items() if v is not ...})


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (_good(id="c", answer=...), "missing field 'answer'"),
        ("{not json", "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (_good(id="c", hallucinated="yes"), "field 'hallucinated'"),
        (_good(id="c", context="one passage"), "field 'context'"),
        (_good(id="c", claims=[{"text": "x"}]), "missing field 'claims.0.supported'"),
        (_good(id="c", spans=[[0, 9]]), "span [0, 9] is outside the answer"),
    ],
)
def test_loader_errors_name_file_and_line(tmp_path: Path, bad: str, message: str) -> None:
    path = _write(tmp_path, [_good(id="a"), "", bad, _good(id="d")])
    with pytest.raises(ValueError, match=re.escape(f"bad.jsonl:3: {message}")):
        load_records(path)


def test_loader_keeps_every_record(tmp_path: Path) -> None:
    path = _write(tmp_path, [_good(id="a"), "", "   ", _good(id="b"), _good(id="a")])
    with pytest.warns(UserWarning, match="repeat an earlier id"):
        records = load_records(path)
    assert [r.id for r in records] == ["a", "b", "a"]
    with pytest.raises(FileNotFoundError):
        load_records(tmp_path / "missing.jsonl")


# --- metrics -----------------------------------------------------------------------------


def test_metrics_match_sklearn() -> None:
    skm = pytest.importorskip(
        "sklearn.metrics", reason="needs the test-nli group: pip install --group test-nli"
    )
    calibration_curve = pytest.importorskip(
        "sklearn.calibration", reason="needs the test-nli group: pip install --group test-nli"
    ).calibration_curve
    rng = np.random.default_rng(0)
    for trial in range(20):
        n = int(rng.integers(5, 300))
        y = rng.random(n) < rng.uniform(0.1, 0.9)
        if y.all() or not y.any():
            continue
        # Rounded scores make ties, which the rank-based AUROC must count as half.
        s = np.round(np.clip(rng.normal(0.4 + 0.2 * y, 0.25), 0, 1), 1 if trial % 2 else 3)
        pred = s >= 0.5
        assert metrics.balanced_accuracy(y, pred) == pytest.approx(
            skm.balanced_accuracy_score(y, pred)
        )
        assert metrics.precision(y, pred) == pytest.approx(
            skm.precision_score(y, pred, zero_division=0)
        )
        assert metrics.recall(y, pred) == pytest.approx(skm.recall_score(y, pred))
        assert metrics.f1(y, pred) == pytest.approx(skm.f1_score(y, pred, zero_division=0))
        assert metrics.auroc(y, s) == pytest.approx(skm.roc_auc_score(y, s))
        fpr, tpr, thr = metrics.roc_curve(y, s)
        sk_fpr, sk_tpr, sk_thr = skm.roc_curve(y, s, drop_intermediate=False)
        np.testing.assert_allclose(fpr, sk_fpr)
        np.testing.assert_allclose(tpr, sk_tpr)
        np.testing.assert_allclose(thr[1:], sk_thr[1:])
        assert np.trapezoid(tpr, fpr) == pytest.approx(metrics.auroc(y, s))
        cal = metrics.calibration(y, s, n_bins=10)
        prob_true, prob_pred = calibration_curve(y, s, n_bins=10, strategy="uniform")
        np.testing.assert_allclose(cal.fraction_positive, prob_true)
        np.testing.assert_allclose(cal.mean_score, prob_pred)
        assert sum(cal.count) == n


def test_auroc_undefined_for_one_class() -> None:
    assert metrics.auroc([True, True, True], [0.1, 0.5, 0.9]) is None
    assert metrics.auroc([False, False], [0.1, 0.9]) is None
    assert metrics.roc_curve([0, 0], [0.1, 0.9]) is None
    assert metrics.balanced_accuracy([1, 1], [1, 0]) == 0.5
    assert metrics.balanced_accuracy([], []) is None
    summary = metrics.summary([], [], 0.5)
    assert summary["auroc"] is None and summary["n"] == 0


def test_auroc_ties_and_bad_input() -> None:
    assert metrics.auroc([1, 0], [0.5, 0.5]) == 0.5
    assert metrics.auroc([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.7]) == 0.75
    with pytest.raises(ValueError, match="finite"):
        metrics.auroc([1, 0], [float("nan"), 0.2])
    with pytest.raises(ValueError, match="0/1"):
        metrics.auroc([2, 0], [0.1, 0.2])
    with pytest.raises(ValueError, match="expected 2 scores"):
        metrics.auroc([1, 0], [0.1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        metrics.calibration([1, 0], [1.5, 0.2])
    cal = metrics.calibration([1, 0, 1, 1], [0.95, 0.05, 0.92, 0.08])
    assert cal.count == [2, 2] and cal.fraction_positive == [0.5, 1.0]
    assert cal.ece == pytest.approx((2 * abs(0.065 - 0.5) + 2 * abs(0.935 - 1.0)) / 4)
    edge = metrics.calibration([1, 0], [0.1, 0.9])  # a score on an inner edge: lower bin
    assert (edge.lower, edge.count) == ([0.0, pytest.approx(0.8)], [1, 1])


# --- detectors ---------------------------------------------------------------------------


async def test_lexical_baseline_scores() -> None:
    lexical = LexicalBaseline()
    context = ["Paris is the capital of France."]
    scores = await lexical.ascore(
        [
            ("Paris is the capital of France.", context),
            ("Berlin is the capital of France.", context),  # berlin of capital/france/berlin
            ("Berlin Munich Hamburg.", context),
            ("It is what it is.", context),  # stopwords only
            ("Paris", []),
        ]
    )
    assert scores == [0.0, pytest.approx(1 / 3), 1.0, 0.0, 1.0]
    assert lexical.threshold == 0.5
    assert isinstance(lexical, Detector)


def test_cosine_mapping_and_sentences() -> None:
    assert cosine_to_score(1.0) == 0.0
    assert cosine_to_score(0.5) == 0.5
    assert cosine_to_score(-1.0) == 1.0
    grid = [cosine_to_score(c) for c in np.linspace(-1, 1, 41)]
    assert all(a > b for a, b in itertools.pairwise(grid))
    assert cosine_to_score(0.49) >= 0.5 > cosine_to_score(0.51)
    assert split_sentences('One. "Two?" Three!\nFour') == ["One.", '"Two?"', "Three!", "Four"]


async def test_seed_cosine_baseline() -> None:
    embeddings = WordEmbeddings()
    seed = SeedCosineBaseline(embeddings, level="response")
    context = ["paris capital france", "berlin capital germany"]
    scores = await seed.ascore(
        [
            ("paris capital france.", context),
            ("paris capital france. tokyo sushi ramen.", context),
            ("", context),
            ("anything", []),
        ]
    )
    assert scores[0] == pytest.approx(0.0)
    assert scores[1] > 0.5  # one unsupported sentence makes the response hallucinated
    assert scores[2:] == [0.0, 1.0]
    before = embeddings.calls
    await seed.ascore([("paris capital france.", context)])
    assert embeddings.calls == before + 1  # passages cached by content: only the claim
    claim_level = SeedCosineBaseline(embeddings, level="claim")
    (one,) = await claim_level.ascore([("paris capital france. tokyo sushi ramen.", context)])
    assert 0.0 < one < scores[1]


async def test_verifier_detector_levels() -> None:
    verifier = SubstringVerifier()
    context = ["Paris is the capital of France. It is large."]
    claim = VerifierDetector(verifier, level="claim", concurrency=2)
    assert await claim.ascore(
        [("Paris is the capital of France.", context), ("Paris is small.", context)]
    ) == [pytest.approx(0.1), pytest.approx(0.9)]
    response = VerifierDetector(verifier, SentenceExtractor(), "response", concurrency=3)
    items = [
        Item("Paris is the capital of France. It is large.", context),
        Item("Paris is the capital of France. It is tiny.", context),
        Item("   ", context),
    ] * 4
    scores = await response.ascore(items)
    assert scores[:3] == [pytest.approx(0.1), pytest.approx(0.9), 0.0]
    assert verifier.max_active <= 3
    assert response.stats["no_claims"] == 4 and response.stats["claims"] == 16
    assert response.name == "substring"
    with pytest.raises(ValueError, match="extractor"):
        VerifierDetector(verifier, level="response")


async def test_peer_detector_skips_missing() -> None:
    records = load_records(TINY)
    assert peer_names(records) == ["alpha", "beta"]
    items, _, _ = build_items(records, "response")
    peer = PeerDetector("alpha")
    scores = await peer.ascore(items)
    assert scores[:5] == [0.0, 1.0, 0.0, 0.0, 1.0]
    assert scores[5:] == [None] * 5 and peer.stats["skipped"] == 5
    assert await peer.ascore([("no record", ["p"])]) == [None]


# --- runner ------------------------------------------------------------------------------


def test_build_items_claim_level_falls_back() -> None:
    records = load_records(TINY)
    items, labels, fallback = build_items(records, "claim")
    assert len(items) == 11 and fallback == 3 and sum(labels) == 5
    assert items[3].text == "It was painted gold by Napoleon." and labels[3] is True
    items, labels, fallback = build_items(records, "response")
    assert len(items) == 10 and fallback == 0 and sum(labels) == 5


def test_evaluate_tiny_detector() -> None:
    records = load_records(TINY)
    scores = [0.1, 0.9, 0.8, 0.2, 0.6, 0.7, 0.3, 0.4, 0.0, 1.0]
    result = evaluate(records, ListDetector(scores), "response", batch_size=3)
    assert (result.n, result.positives, result.records) == (10, 5, 10)
    # predicted: F T T F T T F F F T; gold: F T T F F T F T F T
    assert result.balanced_accuracy == pytest.approx(0.8)
    assert result.precision == pytest.approx(0.8) and result.recall == pytest.approx(0.8)
    assert result.auroc == pytest.approx(24 / 25)
    assert set(result.metrics()) == set(METRIC_KEYS)
    assert result.scores == scores and result.dataset == "tiny"
    assert result.items_per_second and result.items_per_second > 0


def test_evaluate_skips_and_reports() -> None:
    records = load_records(TINY)
    result = evaluate(records, PeerDetector("beta"), "claim")
    assert result.fallback == 3 and result.skipped == 11 - 5
    assert result.n == 5 and any("skipped" in note for note in result.notes())
    assert any("no gold claims" in note for note in result.notes())
    with pytest.raises(ValueError, match="returned 2 scores"):
        evaluate(records, ListDetector([0.1, 0.2]), "response", batch_size=64)
    with pytest.raises(ValueError, match="outside"):
        evaluate(records, ListDetector([1.5] * 10), "response")


def test_evaluate_with_verifier_detector() -> None:
    records = load_records(TINY)
    detector = VerifierDetector(SubstringVerifier(), level="claim")
    result = evaluate(records, detector, "claim")
    assert result.n == 11 and result.auroc is not None and result.auroc > 0.8
    assert result.detector_stats["items"] == 11


class BrokenVerifier(ClaimVerifier):
    """Cannot judge anything: every claim uncertain, with an error."""

    name = "broken"

    async def averify(self, claims, passages, question=""):
        verdicts = [ClaimVerdict.uncertain(c, "model missing") for c in claims]
        return VerificationResult(verdicts=verdicts, errors=["model missing"])


def test_verifier_errors_fail_closed_and_are_reported() -> None:
    records = load_records(TINY)
    detector = VerifierDetector(BrokenVerifier(), SentenceExtractor(), "response")
    result = evaluate(records, detector, "response")
    assert set(result.scores) == {0.5} and result.recall == 1.0  # uncertain: flagged
    assert result.detector_stats["errors"] == 10
    assert result.error_examples == ["model missing"]
    assert any("model missing" in note for note in result.notes())
    again = evaluate(records[:2], detector, "response")
    assert again.detector_stats["errors"] == 2 and again.error_examples == ["model missing"]


def test_plot_writes_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    records = load_records(TINY)
    one = evaluate(records, LexicalBaseline(), "response")
    path = plot(one, tmp_path / "one.png")
    assert path.read_bytes()[:8] == PNG_MAGIC
    flat = evaluate(records[:2] + records[3:4], LexicalBaseline(), "response")
    plot([one, flat], tmp_path / "two.png")  # second has AUROC, mixed detectors still drawn
    assert (tmp_path / "two.png").read_bytes()[:8] == PNG_MAGIC


# --- CLI ---------------------------------------------------------------------------------


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="reliable-rag eval")
    eval_cli.add_arguments(parser)
    return parser.parse_args(argv)


def _run(capsys, *argv: str, **kwargs) -> tuple[int, str, str]:
    kwargs.setdefault("verifier", SubstringVerifier())
    kwargs.setdefault("extractor", SentenceExtractor())
    code = eval_cli.run(_args(*argv), **kwargs)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_json_prints_one_object(capsys) -> None:
    code, out, _ = _run(capsys, str(TINY), "--json")
    assert code == 0
    payload = json.loads(out)
    assert set(payload) == set(METRIC_KEYS)
    assert payload["n"] == 10 and payload["positives"] == 5
    code, out, _ = _run(capsys, str(TINY), "--json", "--level", "claim", "--limit", "4")
    assert code == 0 and json.loads(out)["n"] == 5


def test_cli_json_with_baselines(capsys, tmp_path: Path) -> None:
    second = tmp_path / "again.jsonl"
    shutil.copy(TINY, second)
    code, out, err = _run(
        capsys, str(TINY), str(second), "--json", "--baselines", embeddings=WordEmbeddings()
    )
    assert code == 0
    payload = json.loads(out)
    names = [(r["dataset"], r["detector"]) for r in payload["results"]]
    assert names[:5] == [
        ("eval_tiny", "substring"),
        ("eval_tiny", "lexical"),
        ("eval_tiny", "seed-cosine"),
        ("eval_tiny", "peer:alpha"),
        ("eval_tiny", "peer:beta"),
    ]
    assert len(names) == 10 and payload["level"] == "response"
    assert all(set(METRIC_KEYS) <= set(r) for r in payload["results"])
    assert "skipped" in err  # notes go to stderr in JSON mode


def test_cli_table(capsys) -> None:
    code, out, _ = _run(capsys, str(TINY), "--level", "claim")
    assert code == 0
    assert "eval_tiny — claim level — 10 records, 11 items, 5 hallucinated" in out
    assert "substring" in out and "AUROC" in out and "no gold claims" in out


def test_cli_plot(capsys, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "roc.png"
    code, out, err = _run(
        capsys,
        str(TINY),
        "--json",
        "--plot",
        str(target),
        "--baselines",
        embeddings=WordEmbeddings(),
    )
    assert code == 0 and json.loads(out)["results"]
    assert target.read_bytes()[:8] == PNG_MAGIC and "wrote" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.jsonl"], "no such file: missing.jsonl"),
        ([str(TINY), "--verifier", "llm"], "needs --model"),
        ([str(TINY), "--verifier", "nli:/no/such/folder"], "no such folder"),
        ([str(TINY), "--plot", "/no/such/dir/x.png"], "no such directory"),
    ],
)
def test_cli_usage_errors(capsys, argv: list[str], message: str) -> None:
    code = eval_cli.run(_args(*argv))
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_cli_bad_data_is_usage_error(capsys, tmp_path: Path) -> None:
    bad = _write(tmp_path, [_good(id="a"), _good(id="b", answer=...)])
    code, out, err = _run(capsys, str(bad), "--json")
    assert code == 2 and out == ""
    assert "bad.jsonl:2: missing field 'answer'" in err


def test_cli_bad_option_exits_2(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        _args(str(TINY), "--limit", "0")
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        _args(str(TINY), "--level", "sentence")
    assert exc.value.code == 2


# --- quality table -----------------------------------------------------------------------


def test_quality_table_script(tmp_path: Path, monkeypatch) -> None:
    path = Path(__file__).parents[2] / "scripts" / "quality_table.py"
    spec = importlib.util.spec_from_file_location("quality_table", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "quality_table", module)
    spec.loader.exec_module(module)
    data = tmp_path / "data"
    data.mkdir()
    for name in ("faithbench.jsonl", "wice_dev.jsonl", "begin_dev.jsonl"):
        shutil.copy(TINY, data / name)
    out = tmp_path / "QUALITY.md"
    code = module.main(
        ["--data", str(data), "--limit", "8", "--out", str(out)],
        verifier=SubstringVerifier(),
        extractor=SentenceExtractor(),
        embeddings=WordEmbeddings(),
    )
    assert code == 0
    text = out.read_text()
    assert "Partial run" in text and "--limit 8" in text
    for row in ("substring", "Lexical baseline", "Seed cosine", "alpha (published)"):
        assert f"| {row}" in text or f"({row})" in text
    assert "Bao et al." in text and "Kamoi et al." in text and "Dziri et al." in text
    targets = [line for line in text.splitlines() if line.startswith("- ") and "≥" in line]
    assert len(targets) == 6 and all(
        re.search(r": \d\.\d{3} — (met|\*\*not met)", t) for t in targets
    )
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(table[0].split("|")) - 2 == 1 + 10  # detector + 5 columns x 2 metrics
    assert len(table) == 2 + 3 + 2  # header, rule, 3 detectors, 2 peers

    # Baselines only: the targets are not measured, never read off another row.
    code = module.main(
        ["--data", str(data), "--limit", "8", "--out", str(out), "--skip-verifier"],
        embeddings=WordEmbeddings(),
    )
    assert code == 0
    targets = [line for line in out.read_text().splitlines() if "≥" in line]
    assert len(targets) == 6 and all(t.endswith(": not measured") for t in targets)


def test_records_are_models() -> None:
    record = load_records(TINY, limit=1)[0]
    assert isinstance(record, EvalRecord)
    with pytest.raises(Exception):  # noqa: B017 - frozen pydantic model
        record.answer = "changed"


# --- the format, documented in the package ------------------------------------------------


def test_eval_help_documents_the_format_from_the_package(capsys) -> None:
    from langchain_reliable.cli import main
    from langchain_reliable.eval.datasets import FORMAT_FILE

    assert main(["eval", "--help"]) == 0
    out = capsys.readouterr().out
    assert "shared/data" not in out
    assert "data format: JSON lines" in out and "hallucinated" in out
    assert f"full description: {FORMAT_FILE}" in out
    assert FORMAT_FILE.is_file() and "# Evaluation data format" in FORMAT_FILE.read_text("utf-8")
    example = next(line.strip() for line in out.splitlines() if line.strip().startswith("{"))
    record = EvalRecord.model_validate_json(example)  # the documented example is valid
    assert record.claims and record.hallucinated


# --- per-record output and the progress bar -----------------------------------------------


def test_cli_json_records_gives_one_entry_per_item(capsys) -> None:
    code, out, _ = _run(capsys, str(TINY), "--json", "--records")
    assert code == 0
    payload = json.loads(out)
    records = payload["records"]
    assert len(records) == payload["n"] == 10
    assert [r["id"] for r in records][:2] == ["t-1", "t-2"]
    assert set(records[0]) == {"id", "claim", "hallucinated", "score", "predicted"}
    assert records[0]["claim"] is None and records[0]["hallucinated"] is False
    for r in records:
        assert r["predicted"] == (r["score"] >= payload["threshold"])
    code, out, _ = _run(capsys, str(TINY), "--json", "--records", "--level", "claim")
    claims = json.loads(out)["records"]
    assert len(claims) == 11 and any(r["claim"] == 1 for r in claims)
    code, out, _ = _run(capsys, str(TINY), "--json")
    assert "records" not in json.loads(out)  # only when asked for


def test_cli_records_with_several_results_and_without_json(capsys, tmp_path: Path) -> None:
    second = tmp_path / "again.jsonl"
    shutil.copy(TINY, second)
    code, out, _ = _run(capsys, str(TINY), str(second), "--json", "--records")
    assert code == 0
    assert all(len(r["records"]) == 10 for r in json.loads(out)["results"])
    code, out, err = _run(capsys, str(TINY), "--records")
    assert code == 2 and "--records needs --json" in err and out == ""


def test_records_mark_skipped_items(capsys) -> None:
    code, out, _ = _run(
        capsys, str(TINY), "--json", "--records", "--baselines", embeddings=WordEmbeddings()
    )
    assert code == 0
    peer = next(r for r in json.loads(out)["results"] if r["detector"] == "peer:alpha")
    skipped = [r for r in peer["records"] if r["score"] is None]
    assert len(skipped) == 10 - peer["n"] and all(r["predicted"] is None for r in skipped)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_unless_quiet(capsys, monkeypatch) -> None:
    code, _, err = _run(capsys, str(TINY), "--json")  # stderr is no terminal here: no bar
    assert code == 0 and "10/10" not in err
    for quiet, shown in ((False, True), (True, False)):
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        argv = [str(TINY), "--json"] + (["--quiet"] if quiet else [])
        code = eval_cli.run(
            _args(*argv), verifier=SubstringVerifier(), extractor=SentenceExtractor()
        )
        assert code == 0
        assert ("eval_tiny · substring" in terminal.getvalue()) is shown, terminal.getvalue()
        assert ("10/10" in terminal.getvalue()) is shown
