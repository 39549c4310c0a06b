"""Settings every test run shares."""

import os
import tempfile

# Audit receipts (`langchain_reliable.audit.receipt`) go to a folder of this run, never to
# the user's state folder; child processes inherit it.
os.environ.setdefault(
    "RELIABLE_RAG_AUDIT_RECEIPTS", tempfile.mkdtemp(prefix="reliable-rag-receipts-")
)
