"""`python -m analyzer` runs the `durak` CLI."""

from analyzer.cli import main

main()
