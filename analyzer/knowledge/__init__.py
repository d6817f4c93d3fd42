"""What a player with perfect memory knows, and the worlds consistent with it.

:mod:`~analyzer.knowledge.observer` follows a deal move by move from one
player's chair and keeps, for every other player, one *slot* per unknown card
in hand with the set of cards it may still be (voids inferred from forced
draws and passes, cards drawn from a talon whose order or content is known);
:mod:`~analyzer.knowledge.sampler` draws *determinizations* — full hidden
states — uniformly among all those consistent with that knowledge, exactly
(a counting dynamic programme, not rejection).
"""
