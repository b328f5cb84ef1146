"""The timing wheel's differential suite: ``suite`` (the rules), ``advance`` and ``cancel``
(their rules), ``checks`` (the comparisons), ``ledger`` (what the model expects to fire),
``draws`` and ``fixtures`` (what is drawn and handed to a target), ``cost`` and ``memory``
(the scaling and memory clauses)."""
