"""From a question to its numbers: experiment files, line-ups, seeds, chunks and the executor."""
