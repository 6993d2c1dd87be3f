#!/usr/bin/env bash
# Make sure a headless-capable Chromium exists at /usr/bin/chromium (used by tests/test_reports*.py).
# Installs Debian's `chromium` package with apt-get when it is missing; a no-op otherwise.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    /usr/bin/chromium --version 2>/dev/null || true
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "ensure-chromium: /usr/bin/chromium missing and not root (no sudo)" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core

if [ ! -x /usr/bin/chromium ]; then
    echo "ensure-chromium: apt-get finished but /usr/bin/chromium is still missing" >&2
    exit 1
fi
/usr/bin/chromium --version 2>/dev/null || true
