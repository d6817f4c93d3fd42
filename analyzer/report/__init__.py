"""Presentation: charts and the Markdown/HTML report built from stored results."""
