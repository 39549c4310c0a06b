"""LangGraph Studio / `langgraph dev` entry point: verification alone.

Input: `answer`, `context` (passages) and optionally `question`; output: the
`ReliabilityReport` (claims with labels, evidence and scores, the decision).
Offline by default; `RELIABLE_RAG_VERIFIER=llm` or `cascade` judges with the chat
model named by `RELIABLE_RAG_MODEL`. See `langchain_reliable.defaults`.
"""

from langchain_reliable.defaults import default_verifier

graph = default_verifier()
