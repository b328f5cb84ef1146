"""The durable scheduler's lease suite (``suite``: the lease model and a store in lockstep under
a manual clock) and its history checker (``history``: a log of claims and reports judged
against specs/durable.md)."""
