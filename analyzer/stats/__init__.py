"""Statistics: sufficient sums, intervals and tests, result tables, strategy comparisons."""
