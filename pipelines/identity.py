"""Which code is running: the git commit of this checkout. Below both pipelines/storage.py (the
manifest's provenance) and pipelines/integrity.py (each batch record's writer), which import it, so
neither imports the other for it. Standard library only."""
from __future__ import annotations

import subprocess
from pathlib import Path


def git_commit() -> str | None:
    """HEAD of the checkout this module lives in, with '-dirty' when tracked files changed; None
    outside a git checkout (an installed package)."""
    try:
        here = Path(__file__).resolve().parent
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        commit = out.stdout.strip()
        if out.returncode != 0 or not commit:
            return None
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None
