"""The planner and greedy: rule-of-thumb players that plan a turn with the hand search,
lay off, swap jokers, choose take or draw and rank the discards."""
