"""agents.masked_softmax.sample_moves: draws from the masked distribution, never an
illegal move."""

import numpy as np
import torch

from agents.masked_softmax import masked_log_softmax, sample_moves


def test_samples_follow_the_distribution_and_stay_legal():
    torch.manual_seed(0)
    legal = torch.zeros(1, 40, dtype=torch.bool)
    legal[0, [0, 3, 4, 17, 39]] = True  # the first and last columns among them
    log_probs = masked_log_softmax(torch.randn(1, 40) * 2, legal)
    draws = sample_moves(log_probs.expand(200_000, -1))
    counts = np.bincount(draws.numpy(), minlength=40)
    assert counts[~legal[0].numpy()].sum() == 0
    expected = 200_000 * log_probs[0].exp().numpy()
    legal_cols = legal[0].numpy()
    chi2 = (((counts - expected) ** 2)[legal_cols] / expected[legal_cols]).sum()
    assert chi2 < 18.5  # 4 degrees of freedom: p < 0.001 would be above 18.5


def test_a_single_legal_move_and_a_near_zero_tail_are_handled():
    torch.manual_seed(1)
    logits = torch.zeros(3, 2658)
    legal = torch.zeros(3, 2658, dtype=torch.bool)
    legal[0, 2657] = True  # only the last move
    legal[1, 7] = True  # only one move in the middle
    legal[2, [5, 2657]] = True
    logits[2, 2657] = -80.0  # a legal move of probability ~1e-35
    draws = sample_moves(masked_log_softmax(logits, legal).expand(3, -1).repeat(500, 1))
    assert set(draws[0::3].tolist()) == {2657}
    assert set(draws[1::3].tolist()) == {7}
    assert set(draws[2::3].tolist()) <= {5, 2657}
