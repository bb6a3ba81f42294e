"""Chance at the web table that no seat can compute: a secret key and a keyed hash.

A game made without a chosen seed holds a 256-bit key from ``secrets`` (``new_key``),
kept on the server (in the game's save) and never sent. Every random number of the game
is drawn from HMAC-SHA256 under that key, in counter mode (``SecretStream``): deal ``i``'s
pack is shuffled by Fisher-Yates with unbiased draws from the stream labelled ``deal i``
(``secret_deal``), and each roll of Pět kostek uses a 64-bit key from the stream labelled
with the move's number (``secret_u64``). Without the key, the outputs are
indistinguishable from random as far as anyone knows (HMAC-SHA256 is a PRF), so a seat's
own cards say nothing about the others', and a search must guess the key: 2^256
candidates. ``docs/play.md`` says what a player can and cannot infer.

The seeded deals of the core (``game.init``: evaluation, training, a seed chosen with
``zolik play --seed``) are untouched; this module only feeds ``dealing.deal_stock``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import numpy as np

from zolik_env.rummy.cards import cards_of, deck_counts
from zolik_env.rummy.options import RuleSet

KEY_BYTES = 32  # 256 bits


def new_key() -> str:
    """A fresh secret key, as hex (``KEY_BYTES`` bytes from ``secrets``)."""
    return secrets.token_hex(KEY_BYTES)


def check_key(key: object) -> str:
    """``key`` if it is a key ``new_key`` could have made (hex of ``KEY_BYTES`` bytes)."""
    if not isinstance(key, str) or len(key) != 2 * KEY_BYTES:
        raise ValueError(f"a deal key is {2 * KEY_BYTES} hex digits, got {str(key)[:80]!r}")
    try:
        bytes.fromhex(key)
    except ValueError:
        raise ValueError(f"a deal key is hex digits, got {key[:80]!r}") from None
    return key


class SecretStream:
    """Random bits from HMAC-SHA256(key, label | block number), block after block."""

    def __init__(self, key: str, label: str) -> None:
        self._key = bytes.fromhex(check_key(key))
        self._label = label.encode()
        self._block = 0
        self._buffer = b""

    def _more(self) -> None:
        message = self._label + b"|" + self._block.to_bytes(8, "big")
        self._buffer += hmac.new(self._key, message, hashlib.sha256).digest()
        self._block += 1

    def bits64(self) -> int:
        """The next 64 bits as an integer."""
        while len(self._buffer) < 8:
            self._more()
        out, self._buffer = self._buffer[:8], self._buffer[8:]
        return int.from_bytes(out, "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) (rejection sampling: no modulo bias)."""
        if not 0 < n <= 2**32:
            raise ValueError(f"below(n) needs n in [1, 2^32], got {n}")
        limit = 2**64 - 2**64 % n
        while True:
            draw = self.bits64()
            if draw < limit:
                return draw % n


def secret_deal(rules: RuleSet, key: str, deal_index: int) -> tuple[np.ndarray, int]:
    """Deal ``deal_index`` of a game keyed by ``key``: the shuffled pack of ``rules``
    (int8, dealt from its end by ``dealing.deal_stock``) and the deal's 64-bit key for
    jolly's reshuffles of the stock."""
    stream = SecretStream(key, f"deal {int(deal_index)}")
    pack = list(cards_of(deck_counts(rules.num_jokers)))
    for i in range(len(pack) - 1, 0, -1):  # Fisher-Yates
        j = stream.below(i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return np.array(pack, np.int8), stream.bits64()


def secret_u64(key: str, label: str) -> int:
    """A 64-bit number of the stream ``label`` under ``key``."""
    return SecretStream(key, label).bits64()
