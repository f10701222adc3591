#!/usr/bin/env bash
# Check every relative link and #anchor in the repository's Markdown files (README.md,
# docs/*.md, model/README.md, benchmarks/README.md and every other tracked or new *.md):
# prints each broken one and exits non-zero if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 .ci/check-links.py "$@"
