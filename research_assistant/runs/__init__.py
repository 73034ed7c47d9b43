"""Durable runs: checkpoints, the run store, the trace and the metrics of every research run."""
