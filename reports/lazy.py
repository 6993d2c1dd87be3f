"""Modules imported when first used. SciPy, statsmodels and matplotlib take over a second to import
on the 2-core machine; a report needs them, but checking a study file's measure names (which imports
the games' report plug-ins for their OUTCOMES) must not wait for them."""
from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    """Stands for the module ``name``: the first attribute read imports it."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        module: ModuleType = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
