"""Config profiles and the typed invocation: the TOML file of named profiles, and one
run's settings resolved from flag > environment > profile > default.

``files`` (where the file is, whether it matters at all, the theme names) imports no
pydantic, and neither does ``invocation`` (the settings of a run, each with its origin,
and the one function that makes ``SessionOptions`` of them), so a start-up without a
config file never loads it; ``settings`` (the typed model and its sources,
pydantic-settings) is imported only when a file or a profile is in play.
"""
