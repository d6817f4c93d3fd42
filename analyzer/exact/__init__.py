"""Exact play on small games: the deal as a game tree with explicit chance, research sizes, the CFR+ solver."""
