"""agents.learned.masked_softmax.sample_moves: draws from the masked distribution, never an
illegal move."""

import numpy as np
import pytest
import torch

from agents.learned.masked_softmax import masked_log_softmax, sample_moves


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


def test_legal_moves_list_each_rows_moves_in_order_and_find_slots():
    from agents.learned.masked_softmax import LegalMoves

    rng = np.random.default_rng(4)
    mask = rng.random((50, 300)) < 0.05
    mask[np.arange(50), rng.integers(0, 300, 50)] = True
    mask[7] = False
    mask[7, [0, 299]] = True  # the first and the last move
    legal = LegalMoves.of(torch.as_tensor(mask))
    counts = mask.sum(1)
    assert legal.width == counts.max()
    table, valid = legal.moves().numpy(), legal.valid.numpy()
    for row in range(50):
        assert (table[row, :counts[row]] == np.flatnonzero(mask[row])).all()
        assert valid[row].sum() == counts[row] and valid[row, :counts[row]].all()
    picks = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    picks[3] = np.flatnonzero(~mask[3])[0]  # an illegal move is not found
    slot, found = legal.slot_of(torch.as_tensor(picks))
    assert found.numpy().tolist() == [row != 3 for row in range(50)]
    rows = np.flatnonzero(found.numpy())
    assert (table[rows, slot.numpy()[rows]] == picks[rows]).all()
    logits = torch.randn(50, 300)
    log_probs = legal.log_softmax(logits[legal.rows, legal.cols])
    want = masked_log_softmax(logits, torch.as_tensor(mask))
    torch.testing.assert_close(log_probs[valid], want[torch.as_tensor(mask)])
    assert torch.isneginf(log_probs[~legal.valid]).all()


@pytest.mark.parametrize("shape", [(64, 2658), (7, 13), (3, 5), (1, 2658), (0, 2658)])
def test_legal_moves_entries_are_nonzeros_order_on_any_shape(shape):
    from agents.learned.masked_softmax import LegalMoves, _entries

    rng = np.random.default_rng(shape[1])
    mask = rng.random(shape) < rng.random((shape[0], 1)) ** 4  # sparse to dense rows
    if shape[0] > 2:
        mask[1] = False  # a row with no move
        mask[-1, -1] = True  # the very last entry, past the whole eight-entry words
    tensor = torch.as_tensor(mask)
    rows, cols = _entries(tensor)
    want_rows, want_cols = tensor.nonzero(as_tuple=True)
    assert torch.equal(rows, want_rows) and torch.equal(cols, want_cols)
    strided = torch.as_tensor(np.concatenate([mask, mask], 1))[:, ::2]  # not contiguous
    assert torch.equal(torch.stack(_entries(strided)), torch.stack(strided.nonzero(as_tuple=True)))
    assert LegalMoves.of(tensor).count.tolist() == mask.sum(1).tolist()
