"""``NetSpec``: one saved record shapes every learned bot, and older files convert.

Every checkpoint's sidecar and every shipped bot holds the spec; a network saved before
it (an sb3-contrib zip naming the agents' old module paths, a bot ``.pt`` of format 1,
a run config without later keys) loads through ``agents.learned.legacy`` and plays as
before.
"""

import json
import zipfile

import numpy as np
import pytest
import torch

from agents.learned import legacy, pretrained
from agents.learned import ppo as ppo_agent
from agents.learned.net_spec import SPEC_VERSION, NetSpec
from agents.learned.ppo import ScaledObs
from agents.learned.ppo_net import LeanMaskablePolicy
from tests.agents.networks import spec_net
from zolik_env.rummy import game, rules
from zolik_env.rummy.observe import observe


def some_states(rule_set, n=24, moves=9):
    state = game.init(rule_set, np.arange(n))
    rng = np.random.default_rng(1)
    for _ in range(moves):
        mask = game.legal_action_mask(rule_set, state)
        state = game.step(rule_set, state, game.sample_legal(mask, rng))[0]
    return observe(rule_set, state, state.current), game.legal_action_mask(rule_set, state)


def format_one(saved):
    """A bot's ``.pt`` contents in the layout of format 1 (flat fields, as the shipped
    bot was written before specs)."""
    spec = NetSpec.from_dict(saved["net_spec"])
    return {"format": 1, "net_arch": list(spec.net_arch), "rules": spec.rules,
            "obs_features": spec.obs_features, "feature_version": spec.feature_version,
            "critic_extra": spec.critic_extra, "plan_prior": spec.plan_prior,
            "discard_prior": spec.discard_prior is not None, "prior_scale": spec.prior_scale,
            "state_dict": saved["state_dict"]}


def test_the_shipped_bot__holds_its_spec_and_plays():
    cz = rules.preset("cz")
    saved = torch.load(pretrained.BOTS / "cz_2p.pt", map_location="cpu", weights_only=True)
    assert saved["format"] in (2, pretrained.FORMAT) and pretrained.FORMAT == 3
    spec = NetSpec.from_dict(saved["net_spec"])
    assert spec.rule_set() == cz and spec.obs_features == "hand+discard"
    assert NetSpec.from_dict(spec.to_dict()) == spec
    bot = ppo_agent.PPOPolicy(pretrained.unpack(saved, cz, "cz_2p"), rules=cz)
    assert bot.spec == spec
    obs, mask = some_states(cz)
    probs = bot.probabilities(obs, mask)
    assert np.allclose(probs.sum(1), 1) and not (probs[~mask] > 0).any()


def test_a_format_one_bot__loads_through_the_converter_and_plays_as_written():
    """Format 1 wrote flat fields, and its discard prior could only be the default
    planner's: such a bot (a network of the shipped bot's layout, with that prior) loads
    through the converter to the same spec and plays as its format-2 form."""
    cz = rules.preset("cz")
    shipped = NetSpec.from_dict(torch.load(pretrained.BOTS / "cz_2p.pt", map_location="cpu",
                                           weights_only=True)["net_spec"])
    net = spec_net(shipped.net_arch, cz, shipped.obs_features, plan_prior=shipped.plan_prior,
                   discard_prior=True, prior_scale=shipped.prior_scale)
    saved = pretrained.pack(net, cz)
    now = ppo_agent.PPOPolicy(pretrained.unpack(saved, cz, "cz_2p"), rules=cz)
    old = ppo_agent.PPOPolicy(pretrained.unpack(format_one(saved), cz, "cz_2p"), rules=cz)
    assert old.spec == now.spec == NetSpec.from_dict(saved["net_spec"])
    obs, mask = some_states(cz)
    np.testing.assert_array_equal(old.probabilities(obs, mask), now.probabilities(obs, mask))


@pytest.mark.parametrize(("change", "message"), [
    ({"version": 99}, "net spec version 99; this kit reads version 1"),
    ({"colour": "red"}, r"unknown \['colour'\], missing \[\]"),
    ({"net_arch": ["wide"]}, "bad net_arch"),
])
def test_a_bad_spec__is_one_error_naming_the_bad_part(change, message):
    good = NetSpec(rules={"rules": "cz", "num_players": 2, "rule_options": {}},
                   net_arch=(8,)).to_dict()
    with pytest.raises(ValueError, match=message):
        NetSpec.from_dict({**good, **change}, "bot 'x'")
    missing = dict(good)
    del missing["plan_prior"]
    with pytest.raises(ValueError, match=r"missing \['plan_prior'\]"):
        NetSpec.from_dict(missing)
    with pytest.raises(ValueError, match="not a mapping"):
        NetSpec.from_dict([1, 2])
    assert good["version"] == SPEC_VERSION


def test_a_bot_of_an_unknown_format__names_the_formats_read():
    with pytest.raises(ValueError, match="has format 7; this kit reads formats 1, 2, 3"):
        pretrained.unpack({"format": 7}, rules.preset("cz"), "odd")


def old_checkpoint(final, folder):
    """A copy of checkpoint ``final`` as the kit wrote it before specs: its pickles name
    the old module paths (``agents.ppo_net``, ``agents.ppo``), its policy keyword
    arguments and its sidecar have no net spec."""
    model = legacy.load_model(final, device="cpu")
    model.policy_kwargs.pop("net_spec")
    classes = {LeanMaskablePolicy: "agents.ppo_net", ScaledObs: "agents.ppo"}
    homes = {cls: cls.__module__ for cls in classes}
    try:
        with legacy.old_module_names():
            for cls, old in classes.items():
                cls.__module__ = old
            model.save(folder / "old.zip")
    finally:
        for cls, home in homes.items():
            cls.__module__ = home
    side = json.loads(final.with_suffix(".json").read_text())
    side.pop("net_spec")
    (folder / "old.json").write_text(json.dumps(side))
    return folder / "old.zip"


def test_a_checkpoint_from_before_specs__loads_through_the_converter(tiny_run, tmp_path):
    cfg, result = tiny_run
    rule_set = cfg.rules()
    side = json.loads(result.final.with_suffix(".json").read_text())
    spec = NetSpec.from_dict(side["net_spec"])  # today's checkpoints carry it
    old = old_checkpoint(result.final, tmp_path)
    with zipfile.ZipFile(old) as saved:
        data = json.loads(saved.read("data"))
    assert data["policy_class"]["__module__"] == "agents.ppo_net"
    assert "net_spec" not in data["policy_kwargs"]
    from sb3_contrib import MaskablePPO

    with pytest.raises((AttributeError, KeyError, ModuleNotFoundError, TypeError)):
        MaskablePPO.load(old, device="cpu").policy.net_spec  # noqa: B018 (no converter)
    converted = ppo_agent.load(old, rule_set)
    assert converted.spec == spec
    obs, mask = some_states(rule_set)
    today = ppo_agent.load(result.final, rule_set)
    np.testing.assert_array_equal(converted.probabilities(obs, mask),
                                  today.probabilities(obs, mask))


def test_an_old_run_config__gets_the_keys_it_predates():
    raw = legacy.upgrade_run_config({"preset": "cz", "plan_prior": True})
    assert raw == {"preset": "cz", "plan_prior": True, **{
        k: v for k, v in legacy.RUN_CONFIG_DEFAULTS.items() if k != "plan_prior"}}
