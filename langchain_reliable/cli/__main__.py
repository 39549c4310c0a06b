"""``python -m langchain_reliable.cli``: the same as ``reliable-rag``."""

import sys

from langchain_reliable.cli import main

if __name__ == "__main__":
    sys.exit(main())
