"""The date offers are aged against, in one place.

Prices carry dates, and a plan flags an offer older than 12 months; so what a command prints
depends on the day it runs. `GPUWISE_TODAY=YYYY-MM-DD` pins that day: a report reproduced later
(or the README's sample sessions, which tests/test_readme_samples.py runs) ages the offers as on the
day it was made. Unset, it is the system date.
"""

from __future__ import annotations

import os
from datetime import date

from gpuwise.errors import UsageError

TODAY_ENV = "GPUWISE_TODAY"


def today() -> date:
    """GPUWISE_TODAY when set (an ISO date), else the system date."""
    text = os.environ.get(TODAY_ENV, "").strip()
    if not text:
        return date.today()
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{TODAY_ENV}={text[:40]!r}: expected a date as YYYY-MM-DD") from None
