"""Monte Carlo strategy analyzer for czech, prague and svinya (see RULES.md)."""

__version__ = "0.1.0"
