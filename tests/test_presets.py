"""Every rule preset is complete: its entry in ``zolik_env.rummy.options`` has golden games
(``python -m tests.golden.regenerate``); the whole walk-through of a new preset is in
``docs/style.md`` §10."""

from tests.golden import regenerate
from zolik_env.rummy.options import PRESETS


def missing_goldens(presets, player_counts=regenerate.PLAYER_COUNTS):
    """Golden game files that ``presets`` lack, one per preset and table size."""
    return [regenerate.path_of(name, players).name for name in presets
            for players in player_counts if not regenerate.path_of(name, players).exists()]


def test_every_preset__has_golden_games_for_two_and_four_players():
    assert set(regenerate.PLAYER_COUNTS) == {2, 4}
    assert missing_goldens(PRESETS) == []
    assert {name for name, _ in regenerate.VARIANTS} == set(PRESETS)


def test_missing_goldens__names_the_files_of_a_preset_without_them():
    assert missing_goldens(["no_such_preset"]) == ["no_such_preset_2p.jsonl",
                                                   "no_such_preset_4p.jsonl"]
