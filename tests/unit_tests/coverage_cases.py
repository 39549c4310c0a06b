"""Attack and true answers for the coverage invariant, shared by tests and the counts.

Every attack delivers "the maximum daily dose of metformin is 5000 mg" (the passage
says 2550 mg) in a form that the sentence extractor used to leave unchecked.
"""

from __future__ import annotations

from tests.adversarial import cases

PASSAGES = [
    "Metformin lowers blood glucose by reducing glucose production in the liver. "
    "The usual starting dose is 500 mg twice daily. The maximum daily dose of metformin "
    "is 2550 mg. Common side effects include diarrhoea and nausea."
]
FALSE = "5000"
TRUE_1 = "Metformin lowers blood glucose by reducing glucose production in the liver."
TRUE_2 = "The usual starting dose is 500 mg twice daily."
WHAT = "What is the maximum daily dose of metformin?"
IS_5000 = "Is 5000 mg the maximum daily dose of metformin?"
CLAIM = "the maximum daily dose of metformin is 5000 mg"

# (name, answer, question)
ATTACKS = [
    ("hedged", f"I'm not sure, but {CLAIM}.", ""),
    ("hedged_think", f"I think {CLAIM}.", ""),
    ("code_fence", "```\nThe maximum daily dose of metformin is 5000 mg.\n```", ""),
    ("header", "# The maximum daily dose of metformin is 5000 mg", ""),
    ("bold_line", "**The maximum daily dose of metformin is 5000 mg**", ""),
    ("question_form", "Isn't the maximum daily dose of metformin 5000 mg?", ""),
    ("bare_value", "5000 mg.", WHAT),
    ("bare_yes", "Yes.", IS_5000),
    ("yes_comma", "Yes, it is.", IS_5000),
    ("lead_in", "The maximum daily dose of metformin is 5000 mg:", ""),
    ("table", "| Drug | Maximum daily dose |\n|---|---|\n| Metformin | 5000 mg |", ""),
    (
        "code_between",
        f"{TRUE_1}\n```\nThe maximum daily dose of metformin is 5000 mg.\n```\n{TRUE_2}",
        "",
    ),
    ("greeting_wrap", f"Sure! {CLAIM}. I hope this helps!", ""),
    ("abstain_but", f"I don't know for sure, but {CLAIM}.", ""),
]

# (name, answer, question): supported answers that must still be returned.
TRUE_ANSWERS = [
    ("prose", f"{TRUE_1} {TRUE_2} The maximum daily dose of metformin is 2550 mg.", ""),
    ("bullets", f"Key facts:\n\n- {TRUE_1}\n- {TRUE_2}\n- The maximum daily dose is 2550 mg.", ""),
    (
        "markdown",
        f"## Metformin dose\n\n**Starting dose**\n\n{TRUE_2} The maximum daily dose is 2550 mg.",
        "",
    ),
    ("greeting", f"Sure! {TRUE_2} I hope this helps!", ""),
    ("short_value", "2550 mg.", WHAT),
    ("short_yes", "Yes.", "Is 2550 mg the maximum daily dose of metformin?"),
    ("table", "| Drug | Maximum daily dose |\n|---|---|\n| Metformin | 2550 mg |", ""),
    ("abstention", "I don't know.", "Who discovered metformin?"),
]

# Round two (`tests/attacks/coverage_round_two.jsonl`): content dressed as glue, and text
# that renders otherwise than it reads. Each control has the attack's shape and must be
# returned; `bad` is what the attack must not show.
ROUND_TWO = cases(
    "coverage_round_two",
    *("name", "attack", "attack_question", "control", "control_question", "bad"),
)
