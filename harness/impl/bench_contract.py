# SPDX-License-Identifier: GPL-2.0
"""make bench-impls' second table: what a write costs when nobody listens, through the
`emit --contract` protocol every registered emitter answers (Documentation/impl-contract.md),
so that implementations without a --bench workload (OpenTelemetry's exporters take their
own inputs) are measured too, the same way for all.

Under the stand-in with nobody listening, in callgrind: `register`, then N times `write 1 0`
(the contract's event, seq and an empty pad), `quit`; and the same with N times `enabled`.
Each command is read, run and answered with one flushed line by the shared loop of its
language (emitlib/c/contract_loop.c, emitlib/rust/contract.rs): the figure per command
includes that loop (reading a line, answering it, a flush: about a thousand instructions,
the same for every emitter of a language), so it compares emitters of one language, and the
figure per `enabled` shows the loop's share. It is not a difference of the two: the two
commands take different branches of the loop (parsing, formatting the answer), a few hundred
instructions apart either way. Counts at two N, the difference over the difference, as for
the events."""

from __future__ import annotations

import os
from typing import Optional

from harness.impl.bench_figures import callgrind_total, per_event, spread
from harness.core.processes import run
from harness.core.standin import count_env

COUNTS = (200, 400)
TIMEOUT = 600.0


def _instructions(emitter: str, standin: str, out: str, command: str, n: int,
                  listening: bool = False) -> int:
    tag = command.split()[0] + ("-listening" if listening else "")
    cg = os.path.join(out, f"contract-{tag}-{n}.out")
    script = "register\n" + f"{command}\n" * n + "quit\n"
    r = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg, emitter, "--contract"],
            TIMEOUT, count_env(standin, os.path.join(out, "counts.txt"), listening=listening),
            input_text=script, merge_stderr=False)
    answers = r.output.splitlines()
    if r.how() or len(answers) != n + 1:
        raise RuntimeError(f"{r.how() or 'exit 0'} with {len(answers)} answers to {n + 1} commands: "
                           + ((r.stderr.strip().splitlines() or [""])[-1])[:200])
    with open(cg, encoding="utf-8", errors="replace") as f:
        return callgrind_total(f.read())


def disabled_write(emitter: str, standin: str, out: str) -> dict:
    """{"write": instr/command, "enabled": instr/command, "listening": instr per `write`
    when a tracer listens (the event written), "answer": what `write` answered,
    "spread_pct": the two repetitions of `write`} or {"error": why}."""
    os.makedirs(out, exist_ok=True)
    try:
        figures = {}
        for command, listening in (("write 1 0", False), ("enabled", False), ("write 1 0", True)):
            reps = []
            for _ in (1, 2):
                totals = tuple(_instructions(emitter, standin, out, command, n, listening)
                               for n in COUNTS)
                reps.append(per_event(totals, COUNTS))
            figures[(command, listening)] = reps
        r = run([emitter, "--contract"], 60, count_env(standin, os.path.join(out, "counts.txt"),
                                                         listening=False),
                input_text="register\nwrite 1 0\nquit\n", merge_stderr=False)
    except (RuntimeError, OSError, ValueError) as e:
        return {"error": str(e)}
    answers = r.output.split()
    write, enabled = figures[("write 1 0", False)], figures[("enabled", False)]
    return {"write": write[0], "enabled": enabled[0], "listening": figures[("write 1 0", True)][0],
            "answer": answers[-1] if answers else "", "spread_pct": spread(write[0], write[1])}


def cell(res: Optional[dict]) -> str:
    if not res:
        return "not measured"
    if "error" in res:
        return "not measured: " + res["error"].replace("|", "/")
    return (f"{res['write']:,.0f} per `write` (answered `{res['answer']}`), "
            f"{res['enabled']:,.0f} per `enabled`; {res['listening']:,.0f} per `write` when a "
            "tracer listens")
