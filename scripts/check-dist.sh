#!/usr/bin/env bash
# CI: the committed dist/ must be exactly what the sources build to (STYLE.md 12).
# Rebuilds into a temporary folder and fails, naming the files, when dist/ differs.
set -euo pipefail
cd "$(dirname "$0")/.."
node --import tsx scripts/build-action.ts --check
