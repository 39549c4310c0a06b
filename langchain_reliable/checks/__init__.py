"""Deterministic checks any verifier can run: numbers, dates, units, names, negation.

- `quantities`: numbers, dates, money, percentages and measures, and whether two agree.
- `names`: capitalised names, acronyms and codes a claim relies on.
- `polarity`, `roles`, `order`, `meaning`: claims that keep the words but change the
  meaning (opposites, figures moving the other way, stronger quantifiers, swapped roles,
  doers and ordered pairs, other names); vetoes of `supported`.
- `negation`: the cue that makes a sentence say the opposite.
- `passage_facts`: what the checks need to know about one answer's passages.
"""
