"""Argument types shared by the commands: numbers that must be positive are refused at
parse time, in argparse's one-line error naming the option and the value."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def finite_non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value
