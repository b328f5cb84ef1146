"""The scheduler's differential suites: the contract suite (``suite``: rules; ``checks``: the
per-run state and comparisons; ``fixtures``: what is drawn; ``scenarios``: the classic
adversarial templates; ``oracles``: networkx's cycle verdict and the topological batches;
``deep_rules`` and ``topo_rule``: rules mixed into the machine) and the core level (``core``;
``core_graphs``: what it draws; ``core_generations``: its resubmit rules)."""
