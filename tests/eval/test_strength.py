"""``zolik strength pairs``: heuristic pairs on duplicate deals, a Markdown table."""

from cli import strength


def test_strength_pairs__prints_one_row_per_pair_preset_and_player_count(capsys):
    assert strength.main(["pairs", "--deals", "2", "--presets", "cz", "--players", "2",
                          "--pairs", "greedy:greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| pair | preset |") and len(lines) == 3
    assert "points per deal, A - B (higher is better for A)" in lines[0]
    assert lines[2].startswith("| greedy - greedy | cz | 2 | 2 | +0.0 |")


def test_strength_pairs__any_agent_specs_with_display_names(capsys):
    assert strength.main(["pairs", "--deals", "2", "--presets", "cz", "--players", "2",
                          "--pair", "mine=pretrained:cz_2p:argmax", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[2].startswith("| mine - greedy | cz | 2 | 2 | ")
