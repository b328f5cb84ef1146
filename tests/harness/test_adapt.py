"""Part 3 name matching: a stranger's states, replies and errors compare by name."""

from __future__ import annotations

import enum
from collections import namedtuple

import pytest

from schedcheck import contract
from schedcheck.targets import adapt


class TheirState(enum.Enum):
    ready = 1
    Blocked = 2


def test_states_compare_by_name_case_insensitively() -> None:
    assert adapt.norm_name(contract.TaskState.READY) == "READY"
    assert adapt.norm_name("ready") == "READY"
    assert adapt.norm_name("TaskState.READY") == "READY"
    assert adapt.norm_name(TheirState.ready) == "READY"
    assert adapt.norm_name(TheirState.Blocked) == "BLOCKED"


def test_a_name_that_is_not_a_string_or_enum_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expected a state/outcome name, got int 3"):
        adapt.norm_name(3)


def test_replies_may_be_plain_tuples_or_objects_with_the_attribute_names() -> None:
    ours = contract.Reply(contract.Outcome.APPLIED, contract.TaskState.SUCCEEDED)
    theirs = namedtuple("R", "state outcome")("succeeded", "applied")  # other field order
    assert adapt.norm_reply(ours) == ("APPLIED", "SUCCEEDED")
    assert adapt.norm_reply(("applied", "Succeeded")) == ("APPLIED", "SUCCEEDED")
    assert adapt.norm_reply(theirs) == ("APPLIED", "SUCCEEDED")


def test_task_info_compares_the_four_fields_and_ignores_extra_attributes() -> None:
    cause = contract.Cause("failed", "a", 1)
    info = contract.TaskInfo("b", 2, contract.TaskState.BLOCKED, cause)
    Extra = namedtuple("Extra", "task_id generation state cause error")
    assert adapt.norm_info(info) == ("b", 2, "BLOCKED", ("FAILED", "a", 1))
    theirs = Extra("b", 2, "blocked", ("failed", "a", 1), "boom")
    assert adapt.norm_info(theirs) == adapt.norm_info(info)
    assert adapt.norm_info(("b", 2, "pending", None)) == ("b", 2, "PENDING", None)


def test_claims_compare_without_the_function() -> None:
    claims = [contract.Claim("a", 1, print), ("b", 3, None)]
    assert adapt.norm_claims(claims) == [("a", 1), ("b", 3)]


def test_errors_match_by_our_class_or_by_a_class_of_the_same_name() -> None:
    class CycleError(Exception):  # a stranger's own class
        pass

    class UnknownTaskError(KeyError):
        pass

    assert adapt.error_name(contract.CycleError(["a", "a"])) == "CycleError"
    assert adapt.error_name(CycleError()) == "CycleError"
    assert adapt.error_name(UnknownTaskError("x")) == "UnknownTaskError"
    assert adapt.error_name(KeyError("x")) == "KeyError"
    assert adapt.error_name(TypeError("x")) == "TypeError"
    assert adapt.error_name(ValueError("x")) == "ValueError"
    assert adapt.error_name(RuntimeError("x")) == "RuntimeError"


def test_an_object_without_a_repr_of_its_own_is_shown_by_its_class() -> None:
    from schedcheck.harness.outcomes import Observed
    from schedcheck.report.replay_runtime import same

    class TimerHandle:
        pass

    shown = repr(Observed(value=TimerHandle()))
    assert shown == "<TimerHandle object>"  # no module a file was loaded as, no address
    assert repr(Observed(value=[TimerHandle(), 3])) == "[<TimerHandle object>, 3]"
    assert same(TimerHandle(), shown)  # another object of the class: the replay's check holds
    assert not same(3, shown)
