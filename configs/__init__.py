"""The kit's YAML configs, installed as the package ``zolik_configs`` (package data).

``ppo/`` (``zolik train``, ``zolik main``), ``eval/`` (``zolik eval``), ``dice/``
(``zolik dice train``). ``cli.configs.resolve_config`` finds one by path or by name;
``zolik configs`` lists them.
"""
