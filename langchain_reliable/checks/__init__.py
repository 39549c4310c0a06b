"""Deterministic checks any verifier can run: numbers, dates, units, names, negation.

- `quantities`: numbers, dates, money, percentages and measures, and whether two agree.
- `names`: capitalised names, acronyms and codes a claim relies on.
- `polarity`, `roles`, `order`: claims that keep the words but change the meaning
  (opposites, figures moving the other way, stronger quantifiers, swapped roles, doers
  and ordered pairs, other names).
- `negation`: the cue that makes a sentence say the opposite.

They read text only. What they are run against (an answer's passages,
`evidence`) and the order in which they veto `supported` (`rules`) live above
them: checks detect, rules decide.
"""
