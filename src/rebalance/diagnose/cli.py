"""``python -m rebalance diagnose LOG...``: the command line of :func:`rebalance.diagnose.diagnose`.

It writes the JSON lines of :mod:`rebalance.diagnose.output` to stdout (or ``-o FILE``): per group its rebalances
and its summary, then one ``{"log": ...}`` line per file; ``-v`` adds one ``{"not_recognised": ...}`` line per
line it could not read (otherwise only their count, in the file's line).  As ``run`` and ``simulate`` do, it
never stops on a bad line; a file that cannot be read is a ``{"log": {"file", "error"}}`` line and a message on
stderr, and the exit status is then 1 (else 0).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from .report import diagnose

__all__ = ["diagnose_command"]


def diagnose_command(args: argparse.Namespace) -> int:
    """Run ``diagnose`` for parsed arguments ``files``, ``output`` and ``verbose``; the exit status."""
    result = diagnose(args.files)
    out: TextIO = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        for line in result.lines(verbose=args.verbose):
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
        out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
    for log in result.logs:
        if log["error"] is not None:
            print(f"{log['file']}: {log['error']}", file=sys.stderr)
    unrecognised = sum(log["not_recognised"] for log in result.logs)
    if unrecognised and not args.verbose:
        print(f"{unrecognised} line(s) not recognised (-v lists them)", file=sys.stderr)
    return 1 if result.unreadable else 0
