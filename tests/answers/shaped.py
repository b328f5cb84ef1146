"""The seed-shaped answers behind the contract's interface, as targets a check and its
replay.py load by name (``tests.answers.shaped:plan_wheel``)."""

from schedcheck.practice.shapes import seed_shaped_scheduler, seed_shaped_wheel
from tests.answers.plan_scheduler import TaskScheduler
from tests.answers.plan_wheel import TimingWheel

plan_scheduler = seed_shaped_scheduler(TaskScheduler)
plan_wheel = seed_shaped_wheel(TimingWheel)
