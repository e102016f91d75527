"""Blueprints: ``pages`` (home, rules, meld checker, print), ``tables`` (matches, games), ``api``."""
