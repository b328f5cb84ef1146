"""Interview practice: the seed map, a skeleton to fill in, and a grader that marks every item.

* :mod:`schedcheck.practice.seed_map` reads ``specs/seed-map.md`` -- every item of the two
  interview texts with its own words, an English gloss and the evidence that verifies it;
* ``schedcheck practice scheduler|wheel DIR`` writes a skeleton, a pytest file and a guide;
* ``schedcheck grade FILE:Class`` grades an answer item by item and prints a card per section.
"""
