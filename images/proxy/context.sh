#!/bin/bash
# Puts the start script in the proxy image's build context ($1); the agent
# that build-images.sh adds is not used by this image.
set -euo pipefail
install -m 0755 "$(dirname "$0")/proxy-start" "$1/proxy-start"
