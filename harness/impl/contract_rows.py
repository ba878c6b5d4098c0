# SPDX-License-Identifier: GPL-2.0
"""The rows of the library-kernel contract (Documentation/impl-contract.md): what the guest
asks every implementation's `emit --contract` on the real kernel, and what the seed
documents and the kernel ABI promise it answers. The guest (harness/impl/guest_impl.py) runs
the rows; the host (harness/impl/run_impl_vm.py) compares each observation with the promise for
the kernel it ran on (promise_for) and with the profile's
`contract <row> <observed> <reason>` declarations. Standard library only
(imported in the guest too).

An observation is one line of words: every answer of the emitter in order (the first is
always its registration's), with `sent` or `lost` after each write made while perf
records (did perf record the event?); a crash ends it with
`crash:<exit status or signal>@<command>`.
"""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Tuple

TRACEPOINT = "EhconfContract_L4K1"
EVENT = "EhconfContract:Contract"

# Event sizes of the size row: bytes after the write index, the size EventHeader's
# 65,535-byte limit counts. Around perf's limit on the booted kernel (the expectation
# perf_max_payload: 8,184 on 6.12, kernel-size-limits), then 65,479 (the largest the dynamic
# builders of microsoft/LinuxTracepoints write), EventHeader's limit and one byte over it.
SIZES = ("perf_max_payload", "perf_max_payload+1", "65479", "65535", "65536")


def size_steps(first_seq: int) -> Tuple[str, ...]:
    steps: List[str] = []
    for seq, size in enumerate(SIZES, first_seq):
        steps += [f"ask write {seq} pad={size}", f"mark {seq}"]
    return tuple(steps)


class Row(NamedTuple):
    name: str
    behaviours: str  # the rows of Documentation/kernel-behaviours.md it exercises
    what: str
    # What the guest does, in order (harness/impl/contract_run.py runs them, STEPS below):
    steps: Tuple[str, ...]
    promise: str  # the observation the contract promises
    # Where the kernel, not the library, decides the answer: the kernel expectation
    # (cases/kernel-expectations.txt) that picks the promise, and the promise per value.
    # The promise then follows the kernel the row ran on, so a library that merely agrees
    # with what a broken library would answer cannot pass.
    kernel: Tuple[str, Tuple[Tuple[int, str], ...]] = ("", ())


# The steps a row may take. Each `ask` and `until` adds the emitter's answer to the
# observation, each `mark` a `sent` or `lost` (was that write recorded by perf?); the others
# add nothing. A perf recording still running when the steps end is stopped then, and a
# crash or a hang ends the observation (`crash:<how>@<command>`, `hang@<command>`).
STEPS = {
    "ask <command>": "send one command of the `--contract` protocol, take its answer",
    "until <command> <answer>": "ask again for up to 3 s until it answers that (the last "
                                "answer counts): a bit the kernel sets a moment late",
    "perf attach": "register the tracepoint with ehregister and start perf recording it",
    "perf detach": "stop perf and decode what it recorded",
    "ftrace on": "write 1 to the tracepoint's events/user_events/<name>/enable",
    "ftrace off": "write 0 to it",
    "mark <seq>": "`sent` if perf recorded the event of that sequence number, else `lost`",
}
# A `write <seq> pad=<size>` command is padded so that the event has <size> bytes after the
# write index: a number, or a kernel expectation (+N), e.g. pad=perf_max_payload+1.

COMMANDS = ("register", "unregister", "enabled", "write", "fork", "thread-register")


def step_problems(row: Row) -> List[str]:
    """What is wrong with a row's steps: an unknown step, a command the protocol does not
    have (Documentation/impl-contract.md), a mark without a write of that sequence, a
    perf step out of order. [] for a good row."""
    out, perf, seqs = [], False, set()
    for st in row.steps:
        verb, _, rest = st.partition(" ")
        words = rest.split()
        if verb in ("ask", "until") and words and words[0] in COMMANDS:
            if words[0] in ("write", "fork") and words[1:2] and words[1].isdigit():
                seqs.add(words[1])
            if verb == "until" and len(words) < 2:
                out.append(f"{row.name}: {st!r}: `until` needs a command and an answer")
        elif verb == "mark" and rest.isdigit():
            if rest not in seqs:
                out.append(f"{row.name}: {st!r}: no write or fork of sequence {rest} before it")
            if not perf:
                out.append(f"{row.name}: {st!r}: perf is not recording")
        elif st in ("perf attach", "perf detach"):
            if (st == "perf attach") == perf:
                out.append(f"{row.name}: {st!r}: perf is {'already' if perf else 'not'} recording")
            perf = st == "perf attach"
        elif st not in ("ftrace on", "ftrace off"):
            out.append(f"{row.name}: unknown step {st!r} (STEPS lists the steps)")
    return out


ROWS: Tuple[Row, ...] = (
    Row("no-consumer", "K29", "register; enabled; write with no tracer attached",
        ("ask register", "ask enabled", "ask write 1 0"), "ok 0 9"),
    Row("perf", "K36", "register; perf attaches; enabled; write; perf detaches; enabled",
        ("ask register", "perf attach", "until enabled 1", "ask write 2 0", "mark 2",
         "perf detach", "until enabled 0"), "ok 1 0 sent 0"),
    Row("ftrace", "K37", "register; ftrace enables; enabled; write; ftrace disables; enabled",
        ("ask register", "ftrace on", "until enabled 1", "ask write 2 0", "ftrace off",
         "until enabled 0"), "ok 1 0 0"),
    Row("reregister", "K22 K23", "register; perf attaches; unregister; enabled; register; "
        "enabled; write",
        ("ask register", "perf attach", "ask unregister", "until enabled 0", "ask register",
         "until enabled 1", "ask write 3 0", "mark 3"), "ok ok 0 ok 1 0 sent"),
    Row("fork", "K39", "register; perf attaches; fork: the child's enabled and write",
        ("ask register", "perf attach", "ask fork 4", "mark 4"), "ok child 1 0 sent"),
    # On every kernel since 6.4 the registering thread takes the enablers with it when it
    # ends: perf's attach sets no bit, a library that honours the bit writes nothing (EBADF),
    # and only one that ignores the bit would be "enabled" and have its event recorded.
    Row("thread", "K40", "register from a thread that then ends; perf attaches; enabled; "
        "write", ("ask thread-register", "perf attach", "until enabled 1", "ask write 5 0",
                  "mark 5"), "ok 0 9 lost",
        ("thread_exit_drops_enablers", ((1, "ok 0 9 lost"), (0, "ok 1 0 sent")))),
    Row("size", "K34", "register; perf attaches; events of perf's limit, one byte more, "
        "65479, 65535 and 65536 bytes", ("ask register", "perf attach") + size_steps(10),
        "ok 0 sent 0 lost 0 lost 0 lost 7 lost"),
)

BY_NAME = {r.name: r for r in ROWS}


def promise_for(row: Row, expectations: Dict[str, int]) -> str:
    """The row's promise on a kernel whose expectations (name -> value) are given; a row
    the kernel does not decide, or an expectation the table lacks, keeps its own."""
    what, by_value = row.kernel
    if what and what in expectations:
        for value, promise in by_value:
            if value == expectations[what]:
                return promise
    return row.promise



# Documentation/impl-contract.md holds the table below between these lines; a test keeps it
# equal to what markdown() prints, so adding a row is the row (and the regenerated table).
BEGIN = "<!-- the rows: generated by `harness/impl/contract_rows.py --markdown`, do not edit -->"
END = "<!-- end of the rows -->"


def markdown() -> str:
    out = [BEGIN, "", "| row | behaviour | what | steps | promised |", "|---|---|---|---|---|"]
    for r in ROWS:
        what, by_value = r.kernel
        promised = f"`{r.promise}`"
        if what:
            promised += "; by the kernel's `" + what + "`: " + ", ".join(
                f"{v}: `{p}`" for v, p in by_value)
        out.append(f"| `{r.name}` | {r.behaviours} | {r.what} | "
                   + "; ".join(f"`{st}`" for st in r.steps) + f" | {promised} |")
    return "\n".join(out + ["", END])


if __name__ == "__main__":
    import sys
    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: harness/impl/contract_rows.py --markdown")
    print(markdown())
