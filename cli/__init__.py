"""The commands of the kit: ``zolik`` (``cli.main``) and one module per subcommand.

The top floor: a command module parses its arguments and calls the library (core,
envs, agents, eval, train); it may import any of them, and nothing imports it.
"""
