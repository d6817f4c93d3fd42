"""The readable rules engine: one deal as a state machine, matches, replays, fault scenarios.

Everything here is plain Python over the core (``analyzer.core``); it loads
neither pandas nor the simulator.
"""
