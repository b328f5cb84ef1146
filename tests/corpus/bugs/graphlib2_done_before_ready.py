"""graphlib2 accepts done() for a node get_ready() never returned, then hands it out anyway.

The standard library refuses the same call with ValueError ("node 'a' was not passed out").
Run: python tests/corpus/bugs/graphlib2_done_before_ready.py
"""

import graphlib

import graphlib2

for name, module in (("graphlib", graphlib), ("graphlib2", graphlib2)):
    ts = module.TopologicalSorter()
    ts.add("a")
    ts.prepare()
    try:
        ts.done("a")  # never handed out
        accepted = True
    except ValueError:
        accepted = False
    print(f"{name}: done() before get_ready() accepted={accepted}; "
          f"get_ready() then returns {tuple(ts.get_ready())}")
