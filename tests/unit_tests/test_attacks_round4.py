"""Red-team round four: what is shown is what the answer says and the passages bear out.

Six kinds of attack, each paired with a true control of the same shape:

1. **shown text**: a rider rewritten to stand alone ("..., which reduces X" read as
   "COX-2 reduces X") was checked and shown; now the user only ever sees the answer's
   spans (a refusal lists verified spans, never claim texts), and a rewrite that could
   change a word's role is not made.
2. **antecedents**: "It", "Its", "The drug", "The latter", "Both", "does too", "and it",
   across a paragraph break, are read with what they lean on (`claims.antecedents`).
3. **unlisted content**: a word no passage says, in any shape, needs the entailment
   model (`rules.content`).
4. **bounds and opposites**: "at most" = "up to" = "no more than" = "must not exceed".
5. **tables**: a row is the sentence its header makes.
6. **numbers, units, dates, Unicode, line breaks, length**.
7. **citations the answer carries**: a mark ("[1]", "[^2]", "[1-2]") must point to a
   passage that bears its claim out; a mark after the stop belongs to the sentence
   before it.

The promise: the attack's words never reach the user with `return` or `filter`, and the
control is returned, through `create_verifier` (`balanced`, `strict`), the RAG graph
with a scripted model, and the CLI. A case the fast tier cannot read is marked xfail
with the reason: it needs the accurate (mpnet) tier.
"""

from __future__ import annotations

import pytest

from langchain_reliable import create_reliable_rag, create_verifier
from langchain_reliable.claims import SentenceClaimExtractor
from tests.accurate_extra import needs_model
from tests.adversarial import cli_holds_it_back, shown, streamed_final
from tests.fakes import ScriptedChatModel

ASPIRIN = (
    "Aspirin is a common pain reliever. Aspirin irreversibly inhibits COX-1 and COX-2, "
    "which reduces the production of prostaglandins. The maximum daily dose of aspirin for "
    "adults is no more than 4 grams. Aspirin is contraindicated in children with viral "
    "infections because of the risk of Reye's syndrome."
)
METFORMIN = (
    "Metformin is the first-line medication for type 2 diabetes. It lowers blood glucose "
    "mainly by decreasing glucose production in the liver. The maximum daily dose of "
    "metformin is 2550 mg. Metformin is contraindicated in patients with severe kidney "
    "disease. Metformin should be taken with meals."
)
GENERAL = "Aspirin and metformin are widely used medicines. Both are taken by mouth."
PASSAGES = [ASPIRIN, METFORMIN, GENERAL]

M1 = "Metformin is the first-line medication for type 2 diabetes."
M_KIDNEY = "Metformin is contraindicated in patients with severe kidney disease."
A1 = "Aspirin is a common pain reliever."
COX = (
    "Aspirin irreversibly inhibits COX-1 and COX-2, which reduces the production of prostaglandins."
)

# (name, attack, control, words of the attack that must not be shown)
SHOWN = [
    ("which_after_object", f"{COX} Aspirin cures cancer.", COX, "cures cancer"),
    (
        "paren_which_object",
        f"Aspirin irreversibly inhibits COX-2 (which cures cancer). {A1}",
        f"Aspirin irreversibly inhibits COX-2. {A1}",
        "cures",
    ),
    (
        "which_tail_number",
        f"The maximum daily dose of metformin is 2550 mg, which cures cancer. {M1}",
        f"The maximum daily dose of metformin is 2550 mg. {M1}",
        "cures",
    ),
    (
        "whose_after_object",
        "Aspirin inhibits COX-1, whose dose is 5000 mg. " + A1,
        f"Aspirin irreversibly inhibits COX-1. {A1}",
        "5000",
    ),
    (
        "who_after_object",
        f"Metformin is contraindicated in patients, who are cured by it. {M1}",
        f"{M_KIDNEY} {M1}",
        "cured",
    ),
    (
        "which_clause_ref",
        "Metformin lowers blood glucose, which cures type 2 diabetes. " + M1,
        f"Metformin lowers blood glucose. {M1}",
        "cures",
    ),
    ("readme_garbage", "The Eiffel Tower was completed in 1889, see claims]). " + M1, M1, "Eiffel"),
    (
        "dash_which_object",
        f"Aspirin inhibits COX-2 — which cures cancer — in adults. {A1}",
        A1,
        "cures cancer",
    ),
]
ANTECEDENTS = [
    (
        "it",
        f"{A1} It is contraindicated in patients with severe kidney disease.",
        f"{M1} It is contraindicated in patients with severe kidney disease.",
        "kidney",
    ),
    (
        "its",
        f"{A1} Its maximum daily dose is 2550 mg.",
        f"{M1} Its maximum daily dose is 2550 mg.",
        "2550",
    ),
    (
        "the_drug",
        f"{A1} The drug lowers blood glucose by decreasing glucose production in the liver.",
        f"{M1} The drug lowers blood glucose by decreasing glucose production in the liver.",
        "glucose",
    ),
    (
        "the_latter",
        "Aspirin and metformin are widely used medicines. The latter is "
        "contraindicated in children with viral infections.",
        "Aspirin and metformin are widely "
        "used medicines. The former is contraindicated in children with viral infections.",
        "children",
    ),
    (
        "both",
        "Aspirin and metformin are widely used medicines. Both are contraindicated in "
        "patients with severe kidney disease.",
        "Aspirin and metformin are widely used medicines. Both are taken by mouth.",
        "kidney",
    ),
    (
        "does_too",
        "Metformin is contraindicated in patients with severe kidney disease. Aspirin does too.",
        "Aspirin is taken by mouth. Metformin is too.",
        "Aspirin does",
    ),
    (
        "and_it",
        f"{A1[:-1]}, and it lowers blood glucose mainly by decreasing glucose production "
        "in the liver.",
        f"{M1[:-1]}, and it lowers blood glucose mainly by decreasing glucose "
        "production in the liver.",
        "glucose",
    ),
    (
        "paragraph",
        f"{A1}\n\nIt is contraindicated in patients with severe kidney disease.",
        f"{M1}\n\nIt is contraindicated in patients with severe kidney disease.",
        "kidney",
    ),
    (
        "ambiguous",
        "Aspirin and metformin are widely used medicines. It is contraindicated in "
        "patients with severe kidney disease.",
        f"Aspirin and metformin are widely used medicines. {M_KIDNEY}",
        "It is",
    ),
]
CONTENT = [
    (
        "restrictive",
        "Metformin is the first-line medication for patients with type 2 diabetes "
        "who also have cancer.",
        M1,
        "cancer",
    ),
    ("when_pregnant", f"{M_KIDNEY[:-1]} when patients are pregnant.", M_KIDNEY, "pregnant"),
    (
        "leading_when",
        "When patients are pregnant, metformin should be taken with meals.",
        "Metformin should be taken with meals.",
        "pregnant",
    ),
    ("including", f"{M_KIDNEY[:-1]}, including those with heart failure.", M_KIDNEY, "heart"),
    (
        "ie",
        "Metformin should be taken with meals, i.e. three times a day.",
        "Metformin should be taken with meals.",
        "three",
    ),
    (
        "or_cancer",
        "Metformin is the first-line medication for type 2 diabetes or cancer.",
        M1,
        "cancer",
    ),
    (
        "along_with",
        "Metformin is the first-line medication for type 2 diabetes along with insulin.",
        M1,
        "insulin",
    ),
    (
        "bracketed_dose",
        "Metformin should be taken with meals (500 mg).",
        "Metformin should be taken with meals.",
        "500",
    ),
    ("swap_poison", "Metformin is the first-line poison for type 2 diabetes.", M1, "poison"),
    (
        "swap_liver",
        "Metformin is contraindicated in patients with severe liver disease.",
        M_KIDNEY,
        "liver",
    ),
    (
        "two_swaps",
        "Metformin is the second-line medication for type 1 diabetes.",
        M1,
        "second-line",
    ),
    (
        "elevates",
        "Metformin elevates blood glucose.",
        "Metformin lowers blood glucose.",
        "elevates",
    ),
    (
        "advised",
        "Metformin is advised in patients with severe kidney disease.",
        M_KIDNEY,
        "advised",
    ),
    (
        "full_stomach",
        "Metformin should be taken on a full stomach.",
        "Metformin should be taken with meals.",
        "full",
    ),
    ("worsens", "Metformin worsens blood glucose.", "Metformin lowers blood glucose.", "worsens"),
]
BOUNDS = [
    (
        "at_most",
        "The maximum daily dose of aspirin for adults is at least 4 grams.",
        "The maximum daily dose of aspirin for adults is at most 4 grams.",
        "at least",
    ),
    (
        "up_to",
        "The maximum daily dose of aspirin for adults is more than 4 grams.",
        "The maximum daily dose of aspirin for adults is up to 4 grams.",
        "more than",
    ),
    (
        "no_more_than",
        "The maximum daily dose of aspirin for adults is no less than 4 grams.",
        "The maximum daily dose of aspirin for adults is no more than 4 grams.",
        "no less",
    ),
    (
        "must_not_exceed",
        "The daily dose of aspirin for adults must exceed 4 grams.",
        "The daily dose of aspirin for adults must not exceed 4 grams.",
        "must exceed",
    ),
    (
        "should_not_exceed",
        "The daily dose of aspirin for adults should be over 4 grams.",
        "The daily dose of aspirin for adults should not exceed 4 grams.",
        "over",
    ),
    (
        "not_more_than",
        "The daily dose of aspirin for adults is not less than 4 grams.",
        "The daily dose of aspirin for adults is not more than 4 grams.",
        "not less",
    ),
    (
        "maximum_of",
        "The maximum daily dose of aspirin for adults is a minimum of 4 grams.",
        "The maximum daily dose of aspirin for adults is a maximum of 4 grams.",
        "minimum",
    ),
    (
        "cannot_exceed",
        "The daily dose of aspirin for adults must be above 4 grams.",
        "The daily dose of aspirin for adults cannot exceed 4 grams.",
        "above",
    ),
]
TABLE_HEAD = "| Drug | Maximum daily dose |\n| --- | --- |\n"
TABLES = [
    (
        "dose_row",
        f"{TABLE_HEAD}| Metformin | 5000 mg |",
        f"{TABLE_HEAD}| Metformin | 2550 mg |",
        "5000",
    ),
    (
        "wrong_drug",
        f"{TABLE_HEAD}| Aspirin | 6 grams |",
        f"{TABLE_HEAD}| Aspirin | no more than 4 grams |",
        "6 grams",
    ),
    (
        "cell_cell",
        "| Drug | Indication |\n| --- | --- |\n| Metformin | cancer |",
        "| Drug | Indication |\n| --- | --- |\n| Metformin | type 2 diabetes |",
        "cancer",
    ),
    (
        "two_rows",
        f"{TABLE_HEAD}| Metformin | 2550 mg |\n| Aspirin | 6 grams |",
        f"{TABLE_HEAD}| Metformin | 2550 mg |\n| Aspirin | no more than 4 grams |",
        "6 grams",
    ),
    (
        "header_swap",
        "| Drug | Minimum daily dose |\n| --- | --- |\n| Metformin | 2550 mg |",
        f"{TABLE_HEAD}| Metformin | 2550 mg |",
        "Minimum",
    ),
    (
        "three_columns",
        "| Drug | Maximum daily dose | Taken |\n| --- | --- | --- |\n"
        "| Metformin | 2550 mg | on an empty stomach |",
        "| Drug | Maximum daily dose | Taken |\n"
        "| --- | --- | --- |\n| Metformin | 2550 mg | with meals |",
        "empty",
    ),
    ("no_header", "| Metformin | cancer |", f"{TABLE_HEAD}| Metformin | 2550 mg |", "cancer"),
    (
        "contraindication",
        "| Drug | Contraindicated in |\n| --- | --- |\n| Metformin | children |",
        "| Drug | Contraindicated in |\n| --- | --- |\n| Metformin | patients with severe kidney "
        "disease |",
        "children",
    ),
]
FORMS = [
    (
        "per_kg",
        "The maximum daily dose of metformin is 2550 mg per kg.",
        "The maximum daily dose of metformin is 2550 mg.",
        "per kg",
    ),
    (
        "per_hour",
        "The maximum daily dose of metformin is 2550 mg/h.",
        "The maximum daily dose of metformin is 2550 mg.",
        "/h",
    ),
    (
        "ml_per_s",
        "The maximum daily dose of metformin is 2550 mL/s.",
        "The maximum daily dose of metformin is 2550 mg.",
        "mL/s",
    ),
    ("zero_width", f"{M1} Metformin cu\u200bres can\u200bcer.", M1, "res can"),
    ("confusable", f"{M1} Metformin \u0441ures \u0441ancer.", f"{M1} {M_KIDNEY}", "ancer"),
    (
        "line_break",
        f"{M1} The maximum daily dose of metformin is\n5000 mg.",
        f"{M1} The maximum daily dose of metformin is\n2550 mg.",
        "5000",
    ),
    (
        "fullwidth",
        "The maximum daily dose of metformin is ２５５０ g.",
        "The maximum daily dose of metformin is 2550 mg.",
        "２５５０",
    ),
    (
        "long_answer",
        " ".join([M1] * 60) + " Metformin cures cancer.",
        " ".join([M1] * 60),
        "cancer",
    ),
]
M1_OPEN = M1.removesuffix(".")
CITATIONS = [
    ("wrong_passage", f"{M1} [1]", f"{M1} [2]", "[1]"),
    ("no_such_passage", f"{M1} [5]", f"{M1} [2]", "[5]"),
    ("before_the_stop", f"{M1_OPEN} [1].", f"{M1_OPEN} [2].", "[1]"),
    ("footnote_caret", f"{M1_OPEN} [^1].", f"{M1_OPEN} [^2].", "[^1]"),
    ("one_of_two_wrong", f"{M1} [2, 1]", f"{M1} [2]", "[2, 1]"),
    ("range", f"{M1_OPEN} [1-2].", f"{M1_OPEN} [2].", "[1-2]"),
    ("second_sentence", f"{M1} [2] {A1} [2]", f"{M1} [2] {A1} [1]", "reliever. [2]"),
    ("glued_mark", f"{M1_OPEN}[1].", f"{M1_OPEN}[2].", "[1]"),
    ("false_claim_cited", "Metformin cures cancer [2].", f"{M_KIDNEY.removesuffix('.')} [2].",
     "cures cancer"),
]  # fmt: skip
KINDS = {
    "shown": SHOWN,
    "antecedents": ANTECEDENTS,
    "content": CONTENT,
    "bounds": BOUNDS,
    "tables": TABLES,
    "forms": FORMS,
    "citations": CITATIONS,
}
ALL = [(kind, *case) for kind, cases in KINDS.items() for case in cases]

# Cases the fast tier cannot decide, with why: (kind-name, "attack" or "control") -> reason.
_MPNET = "needs the accurate tier (mpnet): "
NEEDS_ACCURATE = {
    ("content-advised", "attack"): _MPNET + "MiniLM reads 'advised' for 'contraindicated' as "
    "entailed (P 0.51)",
    ("content-full_stomach", "attack"): _MPNET + "'on a full stomach' where the passage says "
    "'with meals': a paraphrase, read by the model, not by a lexicon",
    ("tables-three_columns", "attack"): _MPNET + "'on an empty stomach' against 'with meals'",
}


# What the accurate tier (`verifier="accurate"`: two keys, 181,570 pairs) still shows, with why.
ACCURATE_SHOWS = {
    "content-advised": "the accurate model reads 'advised' for 'contraindicated' as entailed "
    "(P 0.91): it too learned overlap here",
}


def _cases(side: str) -> list:
    """Every case, those the fast tier cannot decide on `side` marked xfail with the reason."""
    out = []
    for case in ALL:
        reason = NEEDS_ACCURATE.get((f"{case[0]}-{case[1]}", side))
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        out.append(pytest.param(case, marks=marks, id=f"{case[0]}-{case[1]}"))
    return out


def verify(answer: str, policy: str) -> dict:
    return create_verifier(policy=policy).invoke({"answer": answer, "passages": PASSAGES})


@pytest.mark.parametrize("policy", ["balanced", "strict"])
@pytest.mark.parametrize("case", _cases("attack"))
def test_the_attack_is_not_shown(case, policy) -> None:
    _, _, attack, _, bad = case
    out = verify(attack, policy)
    assert out["decision"] != "return", [(c["text"], c["label"]) for c in out["claims"]]
    assert bad not in shown(out, attack)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c,
            marks=[pytest.mark.xfail(reason=ACCURATE_SHOWS[n], strict=True)]
            if n in ACCURATE_SHOWS
            else [],
            id=n,
        )
        for c in ALL
        if (n := f"{c[0]}-{c[1]}") in ACCURATE_SHOWS
        or (n, "attack") in NEEDS_ACCURATE
        or n == "content-worsens"  # held back since the two keys: the model reads every claim
    ],
)
@needs_model
def test_the_accurate_tier_on_what_the_fast_one_cannot_read(case) -> None:
    """`verifier="accurate"` holds back the attacks marked as needing it, but those named."""
    _, _, attack, control, bad = case
    verifier = create_verifier(policy="balanced", verifier="accurate")
    out = verifier.invoke({"answer": attack, "passages": PASSAGES})
    assert out["decision"] != "return", [(c["text"], c["label"]) for c in out["claims"]]
    assert bad not in shown(out, attack)
    out = verifier.invoke({"answer": control, "passages": PASSAGES})
    assert out["decision"] == "return", [(c["text"], c["label"]) for c in out["claims"]]


@pytest.mark.parametrize("policy", ["balanced", "strict"])
@pytest.mark.parametrize("case", _cases("control"))
def test_its_true_control_is_returned(case, policy) -> None:
    _, _, _, control, _ = case
    out = verify(control, policy)
    assert out["decision"] == "return", [(c["text"], c["label"]) for c in out["claims"]]


@pytest.mark.parametrize("case", _cases("shown"))
def test_only_the_answers_own_spans_are_shown(case) -> None:
    """Whatever is shown (filtered answer, refusal list) is made of the answer's spans."""
    _, _, attack, _, _ = case
    for policy in ("lenient", "strict"):
        graph = create_reliable_rag(ScriptedChatModel([attack] * 3), PASSAGES, policy=policy, k=3)
        out = graph.invoke({"question": "Tell me about these medicines."})
        for line in _lines(out["answer"]):
            assert _norm(line) in _norm(attack), (line, out["decision"])


def _lines(text: str) -> list[str]:
    """The sentences of shown text that come from the answer (not the refusal's own words)."""
    own = ("I cannot", "Note:", "What they do support")
    out = []
    for line in text.splitlines():
        line = line.removeprefix("- ").strip()
        if line and not line.startswith(own):
            out.extend(s for s in (p.strip() for p in line.split(". ")) if s)
    return out


def _norm(text: str) -> str:
    return " ".join(text.replace("\n", " ").split()).rstrip(".").lower()


def test_a_rewrite_that_could_change_a_role_is_not_made() -> None:
    """'COX-2 reduces the production of prostaglandins' is false; it is never a claim."""
    claims = SentenceClaimExtractor().extract(COX).claims
    assert all(not c.text.startswith("COX-2") for c in claims), [c.text for c in claims]
    model = ScriptedChatModel([f"{COX} Aspirin cures cancer."] * 3)
    rag = create_reliable_rag(model, PASSAGES, policy="strict", k=3)
    out = rag.invoke({"question": "How does aspirin work?"})
    assert out["decision"] == "refuse" and "COX-2 reduces" not in out["answer"]
    assert f"- {COX}" in out["answer"]  # the verified span, as the answer says it


@pytest.mark.parametrize("case", ANTECEDENTS, ids=[c[0] for c in ANTECEDENTS])
def test_the_verified_stream_reads_a_sentence_with_the_one_before(case) -> None:
    """Streamed sentence by sentence, "It ..." is still read as what it leans on."""
    _, attack, _, bad = case
    model = ScriptedChatModel([attack] * 3, disable_streaming=False)
    rag = create_reliable_rag(model, PASSAGES, policy="balanced", k=3)
    out = streamed_final(rag, "Tell me about these medicines.", bad)
    assert out["decision"] != "return"


@pytest.mark.parametrize(
    ("answer", "texts", "reading"),
    [
        (f"{A1} It thins the blood.", [A1, "Aspirin thins the blood."], "'It' read as 'Aspirin'"),
        (f"{A1}\n\nIts dose is 4 grams.", [A1, "Aspirin's dose is 4 grams."], "'Its'"),
        ("Aspirin and metformin are medicines. Both are taken by mouth.",
         ["Aspirin and metformin are medicines.", "Aspirin are taken by mouth.",
          "Metformin are taken by mouth."], "'Both'"),
        ("Aspirin is taken by mouth. Metformin does too.",
         ["Aspirin is taken by mouth.", "Metformin is taken by mouth."], "Metformin does too"),
    ],
)  # fmt: skip
def test_the_antecedent_is_named_in_the_claim_and_the_reason(answer, texts, reading) -> None:
    claims = SentenceClaimExtractor().extract(answer).claims
    assert [c.text for c in claims] == texts
    assert any(reading in (c.reading or "") for c in claims)
    for c in claims:  # the span is the answer's own text
        assert answer[slice(*c.span)].strip()


def test_an_ambiguous_antecedent_is_uncertain() -> None:
    answer = "Aspirin and metformin are widely used medicines. It is taken by mouth."
    it = verify(answer, "balanced")["claims"][-1]
    assert it["label"] == "uncertain" and "may refer to" in it["reason"], it


def test_a_table_row_is_the_sentence_its_header_makes() -> None:
    claims = SentenceClaimExtractor().extract(f"{TABLE_HEAD}| Metformin | 2550 mg |").claims
    # the header is read in its first row: its titles are checked there
    assert [c.text for c in claims] == ["The maximum daily dose of Metformin is 2550 mg."] * 2


@pytest.mark.parametrize("case", _cases("attack")[::6])
def test_the_cli_holds_it_back(case, capsys) -> None:
    """`reliable-rag verify --json`: the attack is not shown, its control is returned."""
    _, _, attack, control, bad = case
    cli_holds_it_back(capsys, attack, control, bad, PASSAGES)


@pytest.mark.parametrize(
    ("attack", "control"),
    [
        ("Aspirin is an antibiotic.", "Aspirin is a pain reliever."),
        ("Metformin is a painkiller.", "Metformin is taken by mouth."),
        ("Aspirin is dangerous.", "Aspirin is a common pain reliever."),
    ],
)
def test_a_short_claim_half_unsaid_is_read_by_the_model(attack, control) -> None:
    """Two or three content words, half of them in no passage: the model must vouch."""
    out = verify(attack, "balanced")
    assert out["decision"] == "refuse", out["claims"]
    assert "no passage bears out" in out["claims"][0]["reason"]
    assert verify(control, "balanced")["decision"] == "return"
