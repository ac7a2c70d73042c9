#!/usr/bin/env bash
# Context hook of scripts/build-images.sh: the fork server that the
# Dockerfile installs as /opt/sbx/zygote. Nothing is fetched.
set -euo pipefail
cp "$(dirname "$0")/forkserver.py" "$1/forkserver.py"
