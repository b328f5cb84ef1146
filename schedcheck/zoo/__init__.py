"""The mutant catalogue: copies of the bundled implementations with one known mistake put back.

Each entry is registered in ``schedcheck.zoo.catalogue`` with the seed mistake it stands for and
the clause expected to catch it; ``schedcheck zoo`` runs the suite against every entry.
"""
