"""The core: cards, bit masks, rules as data, the strategy contract, the registry, outcomes.

Every other layer depends on this one; it depends on numpy only.
"""
