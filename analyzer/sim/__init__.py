"""The batch simulator: many deals at once, held equal to the rules engine by tests."""
