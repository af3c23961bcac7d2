"""The browse view: tenants → threads → turns → one turn, as Miller columns.

``spec.py`` declares it (keys, actions, ``:`` commands; ``commands.py`` reads their
words); ``screen.py`` is the screen, built on ``levels.py`` (the level, the layout,
the breadcrumbs), ``writes.py`` (pin, new ttl, erase) and ``named.py`` (opening what a
command or another view names). One module per column: ``tenants.py``,
``threads.py``, ``turns.py``, ``detail_pane.py`` (with ``status.py``, what they tell
the screen); their rows are ``rows.py``, the turn's text ``detail.py`` and
``reader.py``, export and copy ``export.py``, the whole-thread search
``thread_search.py``.
"""
