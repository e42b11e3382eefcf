"""How a bench script prints its figures: JSON for a machine (``--json``), else its own table."""

from __future__ import annotations

import json
from typing import Callable


def emit(results: dict, as_json: bool, table: Callable[[dict], None]) -> int:
    if as_json:
        print(json.dumps(results, indent=1))
    else:
        table(results)
    return 0
