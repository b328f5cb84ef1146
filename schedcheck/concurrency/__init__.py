"""Controlled thread interleavings, linearizability checking and real-thread stress."""
