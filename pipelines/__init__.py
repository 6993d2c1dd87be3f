"""Turns a study into Parquet files: plan, run_batch (plain), Ray fan-out, manifest, resume."""
