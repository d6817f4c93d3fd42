"""Tuned weights of ``weighted`` for the default rules of each variant (``weighted?preset=NAME``).

Each preset was found by ``durak tune weighted`` (CMA-ES on duplicate decks, every seat against copies of
default ``weighted``) and checked on fresh hold-out decks; ``command`` reruns it, ``report`` is its tuning
report (the curve with intervals and the hold-out margin) and ``about`` says what the check found.  Where
tuning found no gain the preset is shipped all the same (it plays differently, no better or worse within
the interval) and ``about`` says so.  ``w_points`` is held at 1 (scaling every weight changes no play).
"""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    "czech-2p": {
        "weights": {"w_wild": -52.097, "w_effect": 15.471, "w_suit_len": 8.723, "w_threat": 26.29, "w_same_rank": -7.883},
        "about": "+0.50 pp [+0.34, +0.67] over default weighted on 50,000 hold-out decks",
        "command": "durak tune weighted --variant czech --players 2 --budget 200000 --decks 5000 --holdout 50000 --sigma 0.5 --seed 2",
        "report": "reports/tuning/weighted-czech-2p/tune.md",
    },
    "czech-4p": {
        "weights": {"w_wild": -132.873, "w_effect": -17.994, "w_suit_len": 34.927, "w_threat": 19.566, "w_same_rank": 15.542},
        "about": "+0.93 pp [+0.77, +1.08] over default weighted on 20,000 hold-out decks",
        "command": "durak tune weighted --variant czech --players 4 --budget 60000 --decks 2000 --holdout 20000 --sigma 0.5 --seed 1",
        "report": "reports/tuning/weighted-czech-4p/tune.md",
    },
    "prague-2p": {
        "weights": {"w_wild": -12.965, "w_effect": 4.671, "w_suit_len": 0.317, "w_threat": 4.925, "w_same_rank": -0.12},
        "about": "+1.27 pp [+0.85, +1.69] over default weighted on 20,000 hold-out decks",
        "command": "durak tune weighted --variant prague --players 2 --budget 80000 --decks 2000 --holdout 20000 --sigma 0.5 --seed 1",
        "report": "reports/tuning/weighted-prague-2p/tune.md",
    },
    "prague-4p": {
        "weights": {"w_wild": -80.396, "w_effect": 5.603, "w_suit_len": 14.23, "w_threat": 35.392, "w_same_rank": 7.674},
        "about": "+2.23 pp [+1.97, +2.49] over default weighted on 20,000 hold-out decks",
        "command": "durak tune weighted --variant prague --players 4 --budget 60000 --decks 2000 --holdout 20000 --sigma 0.5 --seed 1",
        "report": "reports/tuning/weighted-prague-4p/tune.md",
    },
    "svinya-2p": {
        "weights": {"w_wild": -50.095, "w_effect": -2.16, "w_suit_len": -1.201, "w_threat": 29.865, "w_same_rank": -12.769},
        "about": "+3.08 pp [+2.65, +3.50] over default weighted on 20,000 hold-out decks",
        "command": "durak tune weighted --variant svinya --players 2 --budget 80000 --decks 2000 --holdout 20000 --sigma 0.5 --seed 1",
        "report": "reports/tuning/weighted-svinya-2p/tune.md",
    },
}
