"""Untrained PPO networks for tests, built from a ``NetSpec`` as training builds them."""

from agents.learned.build import make_spec, network


def spec_net(net_arch, rule_set, features="", **kwargs):
    """An untrained network of ``make_spec(rule_set, net_arch, features, **kwargs)``."""
    return network(make_spec(rule_set, net_arch, features, **kwargs), rule_set)
