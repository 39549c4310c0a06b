"""Deterministic checks any verifier can run: numbers, dates, units, names, negation.

Each module reads one phenomenon in text only (`bounds`: how many; `derived`: what two
values prove; `certainty`: a claim more settled than its sentence; `negation`: the cue
that says the opposite; ...). What they are run against (`evidence`) and the order in
which they veto `supported` (`rules`) live above them: checks detect, rules decide.
"""
