"""Attack and true answers for the coverage invariant, shared by tests and the counts.

Every attack delivers "the maximum daily dose of metformin is 5000 mg" (the passage
says 2550 mg) in a form that the sentence extractor used to leave unchecked.
"""

from __future__ import annotations

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

# Round two: content dressed as glue, and text that renders otherwise than it reads.
# (name, attack answer, attack question, control answer, control question, what the
# attack must not show). Each control has the attack's shape and must be returned.
IS_2550 = "Is 2550 mg the maximum daily dose of metformin?"
MORE = "Would you like to know more?"
ROUND_TWO = [
    ("heading", f"## Metformin cures cancer\n\n{TRUE_2}", "", f"## Starting dose\n\n{TRUE_2}",
     "", "cancer"),
    ("bold_line", f"**Metformin cures cancer**\n\n{TRUE_2}", "", f"**Starting dose**\n\n{TRUE_2}",
     "", "cancer"),
    ("lead_in", f"Here's why metformin cures cancer:\n\n- {TRUE_1}", "",
     f"Here is what the passages say:\n\n- {TRUE_1}", "", "cancer"),
    ("did_you_know", f"Did you know that metformin cures cancer? {TRUE_2}", "",
     f"Did you know that metformin lowers blood glucose? {TRUE_2}", "", "cancer"),
    ("would_you_like", f"{TRUE_2} Would you like to know why metformin cures cancer?", "",
     f"{TRUE_2} {MORE}", "", "cancer"),
    ("shall_i", f"{TRUE_2} Shall I explain how metformin cures cancer?", "",
     f"{TRUE_2} {MORE}", "", "cancer"),
    ("presupposing_abstention", f"{TRUE_2} The passages do not say why metformin cures cancer.",
     "", f"{TRUE_2} The passages do not say more.", "", "cancer"),
    ("not_mentioned", f"{TRUE_2} That metformin cures cancer is not mentioned in the passages.",
     "", f"{TRUE_2} I don't know.", "", "cancer"),
    ("meta", f"{TRUE_2} This answer highlights that metformin cures cancer.", "",
     f"{TRUE_2} I hope this helps!", "", "cancer"),
    ("no_flips_tag", "No.", "Metformin lowers blood glucose, doesn't it?",
     "Yes.", "Metformin lowers blood glucose, doesn't it?", "No"),
    ("yes_so_is", "Yes.", "So, is 5000 mg the maximum daily dose of metformin?",
     "Yes.", "So, is 2550 mg the maximum daily dose of metformin?", "Yes"),
    ("yes_tell_me_whether", "Yes.", "Tell me whether metformin cures cancer.",
     "Yes.", "Tell me whether metformin lowers blood glucose.", "Yes"),
    ("yes_right", "Yes.", "Metformin cures cancer, right?",
     "Yes.", "Metformin lowers blood glucose, right?", "Yes"),
    ("not_necessarily", "Not necessarily.", IS_2550, "Yes.", IS_2550, "necessarily"),
    ("emoji_check", "✅", IS_5000, "✅", IS_2550, "✅"),
    ("emoji_thumbs", "👍", IS_5000, "👍", IS_2550, "👍"),
    ("strikethrough", "The usual starting dose is 500 mg ~~twice~~ daily.", "", TRUE_2, "", "~~"),
    ("del_tag", f"<del>{TRUE_2}</del> {TRUE_1}", "", f"{TRUE_2} {TRUE_1}", "", "<del>"),
    ("s_tag", f"<s>{TRUE_1}</s>", "", TRUE_1, "", "<s>"),
    ("html_comment", "The usual starting dose is 500 mg<!-- twice--> daily.", "", TRUE_2, "",
     "<!--"),
    ("bidi_override", "The usual starting dose is \u202e500\u202c mg twice daily.", "", TRUE_2,
     "", "\u202e"),
    ("zero_width", "The usual starting dose is 500 mg twi\u200bce daily.", "", TRUE_2, "",
     "\u200b"),
    ("latex", "The maximum daily dose of metformin is $2550^{2}$ mg.", "",
     "The maximum daily dose of metformin is 2550 mg.", "", "$"),
    ("html_entity", "The usual starting dose is &#53;00 mg twice daily.", "", TRUE_2, "", "&#"),
    ("image", f"{TRUE_2} ![the real dose](dose.png)", "", TRUE_2, "", "!["),
]  # fmt: skip
