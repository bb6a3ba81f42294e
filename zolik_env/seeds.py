"""Deal seed ranges shared by training and evaluation, so that they never meet.

Training deals are drawn from ``[0, TRAIN_SEED_LIMIT)``; evaluation deals start at
``EVAL_SEED_START`` by default and may never reach below ``TRAIN_SEED_LIMIT``.
Imports nothing.
"""

TRAIN_SEED_LIMIT = 10**9  # training deal seeds are drawn from [0, 10^9)
EVAL_SEED_START = 2 * 10**9  # default first evaluation deal seed (held out)
