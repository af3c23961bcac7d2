"""The demo workspace: a seeded, deterministic agent-memory container to explore offline.

* ``generator``: the items and the workspace built from them (``build_demo_workspace``);
* ``words.toml`` (read by ``words``): the tenant names and phrases it draws from;
* ``hostile``: the hostile text of one thread, kept as code beside its reasons;
* ``embedder``: the demo's deterministic embeddings (``DemoEmbedder``);
* ``recall_cases``: the planted why-not cases of the recall probe;
* ``manifest``: where the notable threads are, recorded in the workspace.

Nothing is imported here, so reading a manifest does not load the generator.
"""

# The demo's contents change with the console (new planted cases, new fields): a demo file
# made by an older generation is rebuilt when the console opens it. It is the demo's own
# file in the user data dir, never a user's workspace. Bump this when generate_items changes.
GENERATION = "3"  # 3: the demo keeps a change log (sources/local/change_log.py)
