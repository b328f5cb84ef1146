"""The controller is cheap to import: Hypothesis and networkx load only when used."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("hypothesis", "networkx")


def _loaded_after(statement: str) -> list[str]:
    code = (f"{statement}\nimport sys\n"
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_importing_the_baton_loads_neither_hypothesis_nor_networkx() -> None:
    assert _loaded_after("import schedcheck.concurrency.baton") == []
    assert _loaded_after("import schedcheck.concurrency.primitives") == []


def test_the_package_names_still_resolve_on_first_use() -> None:
    # The same probe sees them once a name that needs them is used: the check can fail.
    assert _loaded_after("from schedcheck.concurrency import concurrency_bases") == [
        "hypothesis"]
    import schedcheck.concurrency as conc

    assert callable(conc.run_stress) and callable(conc.concurrent_round)
    assert "controlled" in dir(conc)
