"""``zolik main``: the README's main job with its defaults.

Until the batched core lands, it shows the rules API on the presets' example melds.
"""

from __future__ import annotations

from zolik_env.rummy import rules
from zolik_env.rummy.melds import describe

EXAMPLES = ("5H JK 7H", "QH KH AH", "AD AH AS", "6D JK 8D JK 10D", "KH AH 2H")


def main(argv: list[str]) -> int:
    for name in rules.PRESETS:
        ruleset = rules.preset(name)
        print(f"preset {name}: opening >= {ruleset.opening_points} points")
        for meld in EXAMPLES:
            print(f"  {meld:18} {describe(rules.check_meld(meld, ruleset))}")
    return 0
