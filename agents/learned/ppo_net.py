"""The PPO network: sb3-contrib's maskable actor-critic with a lean masked softmax.

Žolík has 2,658 actions, of which a few dozen are legal at any moment. sb3-contrib's
``MaskableCategorical`` writes -1e8 into every illegal logit, builds a validated torch
``Categorical`` and exponentiates the (B, 2658) table up to five times per minibatch;
``exp`` of -1e8 takes the slow path of the vector math library, so in one profile of a
1,024-decision minibatch those passes took half of the update's time, more than the
matrix products of the network itself.

``LeanMaskablePolicy`` computes the same quantities over the legal moves alone: the
last layer's logits, the priors' bonuses and the softmax only at each row's legal moves
(``masked_softmax.LegalMoves``: a list of (row, move) pairs and a (B, K) table of the
rows' moves, K the most any row has), then the log-probability of the taken move, the
entropy and, while collecting, a sample (``masked_softmax.sample_moves``) or the argmax.
A cz row has about 7 legal moves on average and at most a few dozen, so the update no
longer makes (1024, 2658) tables at all: the last layer's product, the priors and the
elementwise passes over those tables had been more than half of its time. Without masks
(and for ``predict``) the full table is still there (``action_logits``), and tests hold
the two paths equal, gradients included. Values, losses and the saved format are those
of ``MaskableActorCriticPolicy``. Every state the trainer sees has a legal move.

**Plan prior** (``plan_prior=True``, for observations with ``agents.features.hand_features``): a
move that follows the hand's plan gets a learned bonus on its logit. The features say
which cards the best melds of the hand put in runs and which in sets; a meld move
follows the plan when its cards are among the plan's cards of its own kind (a run
pattern among the run cards, a set among the set cards), a lay-off when its card is in
the plan, a discard when the hand holds more of that card than the plan uses. The bonus
is ``w[g] + v[g] * can_open`` for each group ``g`` of moves (melds, lay-offs, high
aces, jokers, discards): ten numbers learned with the network, zero at the start but
``v[meld]``, which starts at ``plan_open_start`` (a clone started at 0 left about one
turn in ten that could open without opening: the planner leaves none). With
``plan_pending_start`` a third term ``u[g] * pending`` joins them, ``pending`` = the hand
can open and still needs points, so an opening is under way: ``can_open`` is also 1 once
the seat has opened, and the two terms alone cannot tell "lay off a planned card now"
(after the opening) from "lay off a card the opening still needs". ``u`` starts at
``+plan_pending_start`` for melds and minus that for the other groups; networks saved
without it have two rows, and read the third as zeros. The network no longer has to
rediscover, from 2,658 independent logits, which meld patterns a plan of 53 card counts
allows; it weighs the plan against everything else it sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor

from agents.features.hand_features import HAND_FEATURES, PLAN_RUNS, PLAN_SETS, SCALARS
from agents.learned.discard_prior import DiscardPrior
from agents.learned.masked_softmax import (
    LegalMoves,
    as_legal,
    as_mask,
    bonus_at,
    bonus_table,
    layer_at,
    legal_entropy,
    masked_log_softmax,
    sample_moves,
)
from agents.learned.net_spec import NetSpec
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_RANKS, NUM_SUITS

_GROUPS = ("meld", "layoff", "ace_high", "joker", "discard")


class PlanPrior(torch.nn.Module):
    """The plan prior's logit bonus (see the module docstring) from the scaled
    observation, whose hand counts, plan counts and ``can_open`` flag are unscaled.

    ``values`` gives the bonus of each distinct (feature, group) pair, about 600 per row;
    ``source`` maps every move to its value (or to none), so the bonus of the legal moves
    alone is a lookup (``at``) and the full table a gather (``forward``)."""

    def __init__(self, scale: float = 1.0, open_start: float = 0.0,
                 pending_start: float | None = None) -> None:
        super().__init__()
        self.scale = float(scale)  # see ``LeanMaskablePolicy``'s ``prior_scale``
        counts = torch.as_tensor(A.MELD_PATTERN_COUNTS, dtype=torch.float32)  # (P, 53)
        is_run = torch.as_tensor(A.MELD_PATTERN_KIND == A.RUN)
        self.register_buffer("needs_one", (counts >= 1).float().T.contiguous())
        self.register_buffer("needs_two", (counts >= 2).float().T.contiguous())
        self.register_buffer("is_run", is_run)
        group, source = _plan_layout()
        # not in the state dict: made from the action table, as the networks saved before
        self.register_buffer("group", torch.as_tensor(group), persistent=False)
        self.register_buffer("source", torch.as_tensor(source), persistent=False)
        others = np.where(source >= A.NUM_MELD_PATTERNS, source - A.NUM_MELD_PATTERNS,
                          len(group) - A.NUM_MELD_PATTERNS)  # meld moves: no other value
        self.register_buffer("other_source", torch.as_tensor(others), persistent=False)
        # (P, 53) the cards of each kind a pattern needs of the plan, min(count, 2): the
        # same test as ``_within``'s, one pattern at a time
        self.register_buffer("needs", (self.needs_one + self.needs_two).T.contiguous(),
                             persistent=False)
        start = torch.zeros(2 if pending_start is None else 3, len(_GROUPS))
        start[1, _GROUPS.index("meld")] = open_start  # a plan meld while the hand can open
        if pending_start is not None:  # while an opening is under way: lay the plan, keep it
            start[2] = -pending_start
            start[2, _GROUPS.index("meld")] = pending_start
        self.weight = torch.nn.Parameter(start / self.scale)

    def values(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, V) the bonus of each value ``source`` points at."""
        runs, sets, plan, hand, weight = self._parts(obs)
        melds = torch.where(self.is_run, self._within(runs), self._within(sets))
        return torch.cat([melds * weight[:, :1], self._other_values(plan, hand, weight)], 1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, NUM_ACTIONS) bonus for the (B, OBS + HAND_FEATURES) scaled observations."""
        return bonus_table(self.values(obs), self.source)

    @property
    def coefficients(self) -> torch.Tensor:
        """(3, groups): each group's bonus, its addition when the hand can open, and its
        addition while an opening is under way (zeros for a prior without that row)."""
        c = self.weight * self.scale
        return torch.nn.functional.pad(c, (0, 0, 0, 3 - len(c)))

    def at(self, obs: torch.Tensor, rows: torch.Tensor, moves: torch.Tensor,
           coefficients: torch.Tensor | None = None) -> torch.Tensor:
        """(N,) the bonus of move ``moves[i]`` in row ``rows[i]``: ``forward(obs)[rows,
        moves]``, with the meld test made only for the meld moves asked for.
        ``coefficients`` (B, 3, groups), one set per row, replace the prior's own."""
        runs, sets, plan, hand, weight = self._parts(obs, coefficients)
        bonus = bonus_at(self._other_values(plan, hand, weight), self.other_source, rows, moves)
        asked = torch.nonzero((moves >= A.MELD_BASE) & (moves < A.LAYOFF_BASE))[:, 0]
        row, pattern = rows[asked], moves[asked] - A.MELD_BASE
        cards = torch.where(self.is_run[pattern, None], runs[row], sets[row])
        fits = (cards >= self.needs[pattern]).all(1)
        return bonus.index_add(0, asked, fits.float() * weight[row, 0])

    def _parts(self, obs: torch.Tensor, coefficients: torch.Tensor | None = None
               ) -> tuple[torch.Tensor, ...]:
        """The plan's run and set cards, the whole plan and the hand (B, 53 each), and the
        groups' weights (B, groups)."""
        features = obs[:, -HAND_FEATURES:]
        runs, sets = features[:, PLAN_RUNS], features[:, PLAN_SETS]
        can_open = features[:, SCALARS.index("can_open")]
        # an opening under way: the hand can open and still needs points. (A cz turn that
        # has laid the points but not yet its clean run needs none, so it does not count.)
        pending = can_open * (features[:, SCALARS.index("need_points")] > 0)
        c = self.coefficients if coefficients is None else coefficients
        weight = (c[..., 0, :] + c[..., 1, :] * can_open[:, None]
                  + c[..., 2, :] * pending[:, None])
        return runs, sets, runs + sets, obs[:, :NUM_KINDS], weight

    def _other_values(self, plan: torch.Tensor, hand: torch.Tensor,
                      weight: torch.Tensor) -> torch.Tensor:
        """(B, V - P) the values of every group but the melds."""
        follows = torch.cat([
            (plan[:, :NUM_NATURALS] >= 1).float(),  # lay off a planned card
            (plan[:, 0:NUM_NATURALS:NUM_RANKS] >= 1).float(),  # a planned ace high
            (plan[:, JOKER:JOKER + 1] >= 1).float(),  # a planned joker
            (hand > plan).float()], 1)  # discard a card held beyond the plan
        return follows * weight[:, self.group[A.NUM_MELD_PATTERNS:]]

    def _within(self, plan: torch.Tensor) -> torch.Tensor:
        """(B, P) 1.0 where every card of meld pattern p is among ``plan`` (B, 53)."""
        short = (plan < 1).float() @ self.needs_one + (plan < 2).float() @ self.needs_two
        return (short == 0).float()


def _plan_layout() -> tuple[np.ndarray, np.ndarray]:
    """The plan prior's values, in ``PlanPrior.values`` order: their groups (V,), and the
    value of every move (NUM_ACTIONS,), V for the moves without a bonus (draws, undo)."""
    patterns = A.NUM_MELD_PATTERNS
    sizes = {"meld": patterns, "layoff": NUM_NATURALS, "ace_high": NUM_SUITS, "joker": 1,
             "discard": NUM_KINDS}
    group = np.concatenate([np.full(sizes[name], g) for g, name in enumerate(_GROUPS)])
    start = dict(zip(_GROUPS, np.cumsum([0] + [sizes[name] for name in _GROUPS]), strict=False))
    source = np.full(A.NUM_ACTIONS, len(group))
    source[A.MELD_BASE:A.LAYOFF_BASE] = start["meld"] + np.arange(patterns)
    blocks = (("layoff", A.LAYOFF_BASE, A.ACE_HIGH_BASE), ("ace_high", A.ACE_HIGH_BASE,
              A.JOKER_BASE), ("joker", A.JOKER_BASE, A.UNDO))
    for name, first, end in blocks:  # each meld on the table has its own block of moves
        source[first:end] = start[name] + np.arange(end - first) % sizes[name]
    source[A.DISCARD_BASE:] = start["discard"] + np.arange(NUM_KINDS)
    return group.astype(np.int64), source.astype(np.int64)


assert NUM_SUITS * NUM_RANKS == NUM_NATURALS and JOKER == NUM_KINDS - 1


class SplitMlpExtractor(torch.nn.Module):
    """SB3's ``MlpExtractor`` for a privileged critic: the value MLP reads every feature,
    the policy MLP only the first ``actor_dim`` (the critic view that ends the features
    never reaches the actor, so the moves cannot depend on hidden cards)."""

    def __init__(self, features_dim: int, critic_extra: int, net_arch: Any,
                 activation_fn: type[torch.nn.Module], device: Any) -> None:
        super().__init__()
        self.actor_dim = features_dim - critic_extra
        actor = MlpExtractor(self.actor_dim, net_arch, activation_fn, device)
        critic = MlpExtractor(features_dim, net_arch, activation_fn, device)
        self.policy_net, self.value_net = actor.policy_net, critic.value_net
        self.latent_dim_pi, self.latent_dim_vf = actor.latent_dim_pi, critic.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[:, :self.actor_dim])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


def eval_mode(net: Any) -> None:
    """Put ``net`` in evaluation mode unless it already is. SB3's ``set_training_mode``
    walks every submodule on each call; a self-play pass calls it once per snapshot for a
    handful of rows, which made it about a tenth of the opponents' time."""
    if net.training:
        net.set_training_mode(False)


class LeanMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose rollout and update passes compute the logits
    and the softmax at the legal moves only, with an optional plan prior (see the module
    docstring), an optional discard prior (``agents.learned.discard_prior``;
    ``discard_prior`` is its spec),
    ``prior_scale`` (each prior's coefficients are that times its parameters, so Adam,
    whose steps are about the learning rate whatever the gradient's size, moves them that
    many times faster than the network's weights: a coefficient of size 10 barely moves
    at PPO's learning rate of 1e-4) and
    an optional privileged critic (``ScaledObs.critic_extra`` > 0: the observations end
    with a critic view that only the value MLP reads, ``SplitMlpExtractor``)."""

    def __init__(self, *args: Any, plan_prior: bool = False,
                 discard_prior: dict[str, Any] | None = None, prior_scale: float = 1.0,
                 plan_open_start: float = 0.0, plan_pending_start: float | None = None,
                 net_spec: dict[str, Any] | None = None, **kwargs: Any) -> None:
        # the spec it was built from (``agents.learned.build``); None for networks saved
        # before specs, which ``agents.learned.legacy.spec_of`` gives one
        self.net_spec = None if net_spec is None else NetSpec.from_dict(net_spec)
        self.use_plan_prior = plan_prior
        self.plan_open_start = float(plan_open_start)
        self.plan_pending_start = (None if plan_pending_start is None
                                   else float(plan_pending_start))
        self.discard_prior_spec = discard_prior
        self.prior_scale = float(prior_scale)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        # after the optimizer exists: rebuild it so it also trains the priors' weights
        if self.use_plan_prior:
            self.plan_prior = PlanPrior(self.prior_scale, self.plan_open_start,
                                        self.plan_pending_start)
        if self.discard_prior_spec is not None:
            self.discard_prior = DiscardPrior(self.discard_prior_spec, self.prior_scale)
        if self.use_plan_prior or self.discard_prior_spec is not None:
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                                  **self.optimizer_kwargs)

    @property
    def critic_extra(self) -> int:
        """Entries of privileged critic view the observations end with (0: none)."""
        return int(self.features_extractor_kwargs.get("critic_extra", 0))

    def _build_mlp_extractor(self) -> None:
        if not self.critic_extra:
            super()._build_mlp_extractor()
            return
        self.mlp_extractor = SplitMlpExtractor(self.features_dim, self.critic_extra,
                                               self.net_arch, self.activation_fn, self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["plan_prior"] = self.use_plan_prior
        data["discard_prior"] = self.discard_prior_spec
        data["prior_scale"] = self.prior_scale
        data["plan_open_start"] = self.plan_open_start
        data["plan_pending_start"] = self.plan_pending_start
        data["net_spec"] = None if self.net_spec is None else self.net_spec.to_dict()
        return data

    def action_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, NUM_ACTIONS) logits of raw observations (legal or not)."""
        features = self.extract_features(obs, self.pi_features_extractor)
        return self._logits(self.mlp_extractor.forward_actor(features), features)

    def _logits(self, latent_pi: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """The action logits from the actor's latent and the features (a critic view at
        their end is cut off before the plan prior reads them)."""
        logits = self.action_net(latent_pi)
        actor = features[:, :self.features_dim - self.critic_extra]
        if self.use_plan_prior:
            logits = logits + self.plan_prior(actor)
        if self.discard_prior_spec is not None:
            logits = logits + self.discard_prior(actor)
        return logits

    def get_distribution(self, obs: torch.Tensor,
                         action_masks: np.ndarray | None = None) -> MaskableDistribution:
        distribution = self.action_dist.proba_distribution(action_logits=self.action_logits(obs))
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(actor latent, critic latent, the actor's features)."""
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
            return latent_pi, latent_vf, features
        pi_features, vf_features = features
        return (self.mlp_extractor.forward_actor(pi_features),
                self.mlp_extractor.forward_critic(vf_features), pi_features)

    def _log_probs(self, latent_pi: torch.Tensor, features: torch.Tensor,
                   action_masks: Any) -> tuple[torch.Tensor, torch.Tensor | None]:
        logits = self._logits(latent_pi, features)
        if action_masks is None:
            return masked_log_softmax(logits, None), None
        legal = as_legal(action_masks, logits)
        return masked_log_softmax(logits, legal), legal

    def _legal_logits(self, latent_pi: torch.Tensor, features: torch.Tensor,
                      legal: LegalMoves) -> torch.Tensor:
        """(N,) the logits of the legal moves only: ``_logits`` at (``legal.rows``,
        ``legal.cols``) without the (B, NUM_ACTIONS) table, whose matrix product, priors
        and softmax were most of the update's time while a row has a few dozen moves."""
        logits = layer_at(self.action_net, latent_pi, legal.rows, legal.cols)
        return self.with_priors_at(logits, features, legal)

    def with_priors_at(self, logits: torch.Tensor, features: torch.Tensor, legal: LegalMoves,
                       nets: Sequence[LeanMaskablePolicy] | None = None,
                       whose: torch.Tensor | None = None) -> torch.Tensor:
        """(N,) the legal moves' ``logits`` plus the priors' bonuses there. With ``nets``
        (of this network's ``agents.learned.ppo_joint.joint_key``) and ``whose`` (B,), row ``i``
        takes the prior coefficients of ``nets[whose[i]]``."""
        def per_row(prior: str) -> torch.Tensor | None:
            if nets is None or whose is None:
                return None
            return torch.stack([getattr(net, prior).coefficients for net in nets])[whose]

        rows, moves = legal.rows, legal.cols
        actor = features[:, :self.features_dim - self.critic_extra]
        if self.use_plan_prior:
            logits = logits + self.plan_prior.at(actor, rows, moves, per_row("plan_prior"))
        if self.discard_prior_spec is not None:
            logits = logits + self.discard_prior.at(actor, rows, moves,
                                                    per_row("discard_prior"))
        return logits

    def _legal_log_probs(self, latent_pi: torch.Tensor, features: torch.Tensor,
                         action_masks: Any) -> tuple[torch.Tensor, LegalMoves]:
        """(B, K) log-probabilities of each row's legal moves (-inf on empty slots)."""
        legal = LegalMoves.of(as_mask(action_masks, len(latent_pi), latent_pi.device))
        return legal.log_softmax(self._legal_logits(latent_pi, features, legal)), legal

    def legal_log_probs(self, obs: torch.Tensor, action_masks: Any
                        ) -> tuple[torch.Tensor, LegalMoves]:
        """(B, K) log-probabilities of raw observations' legal moves, in the slots of the
        returned ``LegalMoves`` (-inf on empty slots), with gradients; the actor's path
        only. Two networks given the same masks fill the same slots."""
        features = self.extract_features(obs, self.pi_features_extractor)
        return self._legal_log_probs(self.mlp_extractor.forward_actor(features), features,
                                     action_masks)

    def legal_probabilities(self, obs: torch.Tensor, action_masks: Any) -> torch.Tensor:
        """float64 (B, NUM_ACTIONS) move distribution of raw observations, zero on
        illegal moves; the actor's path only."""
        log_probs, legal = self.legal_log_probs(obs, action_masks)
        return legal.spread(log_probs, int(self.action_space.n))

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf, features = self._latents(obs)
        if action_masks is None:
            log_probs, _ = self._log_probs(latent_pi, features, None)
            actions = log_probs.argmax(1) if deterministic else sample_moves(log_probs)
            return actions, self.value_net(latent_vf), log_probs.gather(1, actions[:, None])[:, 0]
        log_probs, legal = self._legal_log_probs(latent_pi, features, action_masks)
        slots = log_probs.argmax(1) if deterministic else sample_moves(log_probs)
        actions = legal.moves().gather(1, slots[:, None])[:, 0]
        return actions, self.value_net(latent_vf), log_probs.gather(1, slots[:, None])[:, 0]

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None,
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        latent_pi, latent_vf, features = self._latents(obs)
        if action_masks is None:
            log_probs, _ = self._log_probs(latent_pi, features, None)
            log_prob = log_probs.gather(1, actions.long().reshape(-1, 1))[:, 0]
            return self.value_net(latent_vf), log_prob, legal_entropy(log_probs, None)
        log_probs, legal = self._legal_log_probs(latent_pi, features, action_masks)
        slots, found = legal.slot_of(actions)
        log_prob = log_probs.gather(1, slots[:, None])[:, 0].masked_fill(~found, -torch.inf)
        return self.value_net(latent_vf), log_prob, legal_entropy(log_probs, legal.valid)
