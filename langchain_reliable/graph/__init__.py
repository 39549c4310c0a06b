"""LangGraph wiring: the Reliable RAG graph and the verifier graph.

Both are compiled LangGraph graphs, so `invoke`, `ainvoke`, `batch`, `stream`,
`astream_events`, `|` composition, LangServe and Studio work without wrappers.

- `nodes`: the node and routing functions, over a typed dependencies object.
- `rag`: `create_reliable_rag`, the full graph.
- `verifier`: `create_verifier`, verification alone.
- `verification`: the prepare / extract / verify steps both graphs share.
- `shown`: the gate before a graph returns, texts, citations, verified streaming.
- `inputs`: the question as a string, a prompt value or messages.
- `runnable`: the compiled graph classes (output-only values stream, `with_answer_only`).
"""

from langchain_reliable.graph.rag import create_reliable_rag
from langchain_reliable.graph.verifier import create_verifier

__all__ = ["create_reliable_rag", "create_verifier"]
