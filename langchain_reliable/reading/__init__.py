"""One analysed text under the checks: English parsed once, on spaCy, and read many times.

- `parse`: the pipeline (spaCy's small English model, pinned), a text parsed once and
  cached, and what the checks read of a parse (parts of speech, names).
- `clauses`: the named breaks between a sentence's clauses, and the cuts made with them.
- `quantities`, `numbers`, `units`: the numbers, dates, money and measures of a text
  (numbers said in words too), read once and cached by text; the checks compare them.
- `lexicon`: the closed word classes (pronouns first), each defined once in named
  subsets, and the word lexicons of `data/`; it imports nothing of the package, so every
  layer may read it.

The floor sits over `text` and `grammar` and under `checks`: a check asks the parse
what a word is rather than keeping a list of its own.
"""
