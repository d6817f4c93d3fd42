"""`python -m analyzer` runs the `durak` CLI."""

from analyzer.cli.app import main

main()
