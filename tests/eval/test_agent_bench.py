"""``eval.agent_bench``: the thinking players' rows of ``zolik bench --agents``."""

from eval.agent_bench import AgentRow, format_agent_rows, planner_rate, positions
from zolik_env.rummy.options import preset


def test_positions__are_live_decisions_of_planner_self_play():
    rows = positions(preset("cz"), deals=4, moves=40, every=8)
    assert rows and all(mask.any(1).all() for _, mask in rows)


def test_planner_rate__counts_decisions_per_second():
    assert planner_rate(preset("cz"), 16, 0.05) > 0


def test_the_table__states_planner_self_play_as_a_share_of_random():
    rows = [AgentRow("cz", 2, "random self-play (play_match)", 128, 2000.0, "turns/s"),
            AgentRow("cz", 2, "planner self-play (play_match)", 128, 1000.0, "turns/s"),
            AgentRow("cz", 2, "pimc search", 32, 0.0312, "s/decision")]
    text = format_agent_rows(rows)
    assert "0.50x random" in text and "0.031" in text
