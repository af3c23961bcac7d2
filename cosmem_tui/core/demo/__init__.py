"""The demo workspace: a seeded, deterministic agent-memory container to explore offline.

* ``generator``: the items and the workspace built from them (``build_demo_workspace``);
* ``words.toml`` (read by ``words``): the tenant names and phrases it draws from;
* ``hostile``: the hostile text of one thread, kept as code beside its reasons;
* ``embedder``: the demo's deterministic embeddings (``DemoEmbedder``);
* ``recall_cases``: the planted why-not cases of the recall probe;
* ``manifest``: where the notable threads are, recorded in the workspace.

Nothing is imported here, so reading a manifest does not load the generator.
"""
