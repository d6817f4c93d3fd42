"""The ``durak`` command line (typer)."""
