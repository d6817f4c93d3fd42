"""The games in OpenSpiel's API (the optional extra ``openspiel``): importing this package registers
``durak_czech``, ``durak_prague`` and ``durak_svinya`` with pyspiel (analyzer.openspiel.game), and
:func:`bot` seats any of our strategy specs as a ``pyspiel.Bot`` (analyzer.openspiel.bots)."""

from __future__ import annotations

try:
    import pyspiel  # noqa: F401  (the extra's one dependency)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError('analyzer.openspiel needs the optional extra: pip install -e ".[openspiel]"') from exc

from analyzer.openspiel.bots import StrategyBot, bot, play
from analyzer.openspiel.game import DurakGame, DurakState, register

register()

__all__ = ["DurakGame", "DurakState", "StrategyBot", "bot", "play", "register"]
