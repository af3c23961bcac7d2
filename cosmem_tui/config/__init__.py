"""Config profiles: the TOML file of named profiles, and settings resolved from flag >
environment > profile > default.

``files`` (where the file is, whether it matters at all, the theme names) imports no
pydantic, so a start-up without a config file never loads it; ``settings`` (the typed
model and its sources, pydantic-settings) is imported only when a file or a profile is
in play.
"""
