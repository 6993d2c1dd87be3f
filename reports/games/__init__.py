"""Game-specific report parts, one module per game (see reports.registry for the mapping)."""
