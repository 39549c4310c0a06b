"""LangGraph Studio / `langgraph dev` entry point: the full Reliable RAG graph.

`graph` is built at import by `langchain_reliable.defaults.default_rag`, configured
by environment variables (set them in your shell or in an `.env` file named by
`"env"` in `langgraph.json`):

- `RELIABLE_RAG_MODEL` — chat model as `provider:name` (e.g. `openai:gpt-4o-mini`).
  Unset: the demo's RECORDED answers are replayed by a stand-in chat model
  (`langchain_reliable.demo.RecordedAnswers`); no LLM is called, and only the
  demo questions get real answers. Try "When and where was the Treaty of
  Versailles signed?" or "How does aspirin work and what is it used for?".
- `RELIABLE_RAG_INDEX` — a FAISS index folder made by `reliable-rag ingest`,
  searched with the package's embedded embedding model. Unset: the six demo
  passages. The folder's pickle is loaded with `allow_dangerous_deserialization`,
  which is safe only for a local folder you created: never point it at files
  others can write.
- `RELIABLE_RAG_VERIFIER` — `local` (default, offline), `llm`, `cascade` (both
  need `RELIABLE_RAG_MODEL`) or `nli:PATH`.

Per-run policy settings (`policy`, thresholds, `max_retries`) appear in Studio's
context form (`ReliabilityContext`).
"""

from langchain_reliable.defaults import default_rag

graph = default_rag()
