"""The written contracts (``*.md``) and the z3-proved lemmas (``schedcheck prove``)."""
