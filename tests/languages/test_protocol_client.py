"""The protocol's client (``schedcheck.targets.exec_client`` / ``exec_instances``) against small
Python children that break the protocol in one way each: every break is an ExecFault whose
verdict names the line, the child is killed, and the next instance gets a fresh child."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from schedcheck.targets.adapt import error_name
from schedcheck.targets.exec_client import ExecFault
from schedcheck.targets.exec_instances import ExecTarget, close_all

#: a wheel child that behaves until it is asked to ``advance``, then does ``MISTAKE``
CHILD = '''
import json, sys
MISTAKE = {mistake!r}
for line in sys.stdin:
    msg = json.loads(line)
    reply = {{"id": msg["id"], "value": None}}
    if msg["op"] == "hello":
        reply["value"] = {{"protocol": 1, "system": "wheel",
                          "methods": ["schedule", "schedule_after", "cancel", "advance",
                                      "pending"]}}
    elif msg.get("method") == "pending":
        reply["value"] = 0
    elif msg.get("method") == "schedule":
        reply["value"] = {{"handle": 7, "deadline": msg["args"][0]}} if MISTAKE != "shape" else 3
    elif msg.get("method") == "advance":
        if MISTAKE == "wrong id":
            reply["id"] += 5
        elif MISTAKE == "no value":
            del reply["value"]
        elif MISTAKE == "array":
            reply = [1, 2]
        elif MISTAKE == "no newline":
            sys.stdout.write('{{"id": ' + str(msg["id"]))
            sys.stdout.flush()
            sys.exit(0)
        elif MISTAKE == "error":
            reply = {{"id": msg["id"], "error": {{"name": "ValueError", "message": "no",
                                                 "now": msg["args"][0]}}}}
        else:
            reply["value"] = [7, 8] if MISTAKE == "fires" else []
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
'''


def _target(tmp_path: Path, mistake: str) -> ExecTarget:
    script = tmp_path / f"child_{mistake.replace(' ', '_')}.py"
    script.write_text(textwrap.dedent(CHILD.format(mistake=mistake)))
    return ExecTarget(f"{sys.executable} {script}", "wheel", cwd=str(tmp_path),
                      limit=lambda: 5.0)


@pytest.fixture(autouse=True)
def _children_end() -> object:
    yield
    close_all()


@pytest.mark.parametrize(("mistake", "words"), [
    ("wrong id", "answers id"),
    ("no value", "neither 'value' nor 'error'"),
    ("array", "is not a JSON object"),
    ("no newline", "ends without a newline"),
])
def test_a_broken_reply_is_a_protocol_error_naming_the_line(
        tmp_path: Path, mistake: str, words: str) -> None:
    factory = _target(tmp_path, mistake)
    wheel = factory(1, 8)
    wheel.schedule(3, print)
    with pytest.raises(ExecFault) as fault:
        wheel.advance(5)
    assert error_name(fault.value).startswith("ProtocolError[line ")
    assert words in str(fault.value)
    with pytest.raises(ExecFault):  # the instance's child is gone: the same verdict again
        wheel.pending()
    fresh = factory(1, 8)  # a fresh child for the next instance
    assert fresh.pending() == 0


def test_a_handle_without_its_id_is_a_protocol_error(tmp_path: Path) -> None:
    wheel = _target(tmp_path, "shape")(1, 8)
    with pytest.raises(ExecFault, match="schedule must return"):
        wheel.schedule(3, print)


def test_an_error_reply_is_raised_under_the_contracts_name_with_its_fields(
        tmp_path: Path) -> None:
    wheel = _target(tmp_path, "error")(1, 8)
    with pytest.raises(ValueError) as raised:
        wheel.advance(4)
    assert error_name(raised.value) == "ValueError"
    assert raised.value.now == 4  # type: ignore[attr-defined]


def test_fired_handles_are_the_scheduled_objects_and_an_unknown_id_is_shown_as_such(
        tmp_path: Path) -> None:
    wheel = _target(tmp_path, "fires")(1, 8)
    handle = wheel.schedule(3, print)
    assert (handle.deadline, handle.fired, handle.cancelled) == (3, False, False)
    fired = wheel.advance(5)
    assert fired[0] is handle and handle.fired
    assert fired[1].id == 8 and fired[1].deadline is None  # no schedule returned id 8
