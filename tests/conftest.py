"""Test configuration: Hypothesis profiles come from schedcheck.profiles (SCHEDCHECK_PROFILE)."""

from schedcheck import profiles

profiles.load()
