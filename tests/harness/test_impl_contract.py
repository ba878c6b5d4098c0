# SPDX-License-Identifier: GPL-2.0
"""`emit --contract` (Documentation/impl-contract.md) of every implementation of
impl/implementations.txt, offline under the user_events stand-in: the answers of the
protocol with a consumer and without one (EHCONF_STANDIN_LISTENING=0), and the event every
implementation must write byte for byte alike. The rows themselves run on the real kernel
(make check-impl, harness/impl/guest_impl.py); here also how the host judges a row
(harness/run_impl_vm.judge_contract) and that the document lists every row's promise.
Without an implementation's checkout its tests skip with one line."""

from __future__ import annotations

import os

import pytest

from harness.core.common import REPO_ROOT
from harness.impl.contract_rows import BY_NAME, EVENT, ROWS, promise_for
from impl_emitters import by_name, ehconf_build, judged, need, standin_of, tool_of
from harness.impl.registry import Profile, read_profile, read_registry
from harness.impl.run_impl_vm import judge_contract
from harness.core.processes import run
from harness.core.standin import standin_env

# The offline conversations below hold an emitter to the contract event's exact bytes and
# to errno answers: the libraries that emit the case descriptions write that event. A
# producer with inputs of its own (tracing-etw) writes the event its API makes (tracing adds
# a time field, records seq as u64) and may answer `none`: its rows are judged in the VM
# against its profile, like every implementation's.
NAMES = [i.name for i in read_registry() if i.inputs == "cases"]


def enabled_answer(name: str):
    """(what the implementation's enabled check answers while a tracer listens, why): "1",
    unless its profile declares the `perf` row with another enabled answer (the row's
    second word), as rust-macro's does. Asserted exactly, so a fix upstream fails here and
    gets noticed, and the profile stays the one place that says it."""
    declared = read_profile(by_name(name)).contract.get("perf")
    if declared and len(declared[0].split()) > 1:
        return declared[0].split()[1], f"impl/{name}/profile.txt, contract perf: {declared[1]}"
    return "1", ""
SESSION = ["register", "enabled", "write 1 0", "write 2 5", "fork 3", "unregister",
           "enabled", "write 4 0", "bogus"]


def emitter_of(name: str, pytestconfig, tmp_path_factory) -> str:
    impl = by_name(name)
    if impl.checkout == "-":
        return need(os.path.join(ehconf_build(pytestconfig), "impl", name, "emit"),
                    "the reference emitter")
    return judged(impl, pytestconfig, tmp_path_factory).emitter


def converse(pytestconfig, emitter: str, dat: str, commands, listening: bool):
    env = standin_env(standin_of(ehconf_build(pytestconfig)), dat, listening)
    r = run([emitter, "--contract"], 60, env=env, merge_stderr=False,
            input_text="\n".join(commands) + "\nquit\n")
    assert not r.how(), f"{emitter} --contract: {r.how()}: {r.stderr.strip()[-300:]}"
    return r.output.splitlines()


def decoded(pytestconfig, dat: str):
    if not os.path.exists(dat):
        return []
    r = run([tool_of(ehconf_build(pytestconfig), "ehdecode"), "--golden", dat], 60)
    return [ln for ln in r.output.splitlines() if ln.strip()]


def contract_event(seq: int, pad: int) -> str:
    return (f'{{ "n": "{EVENT}", "seq": {seq}, "pad": "{"p" * pad}", '
            f'"meta": {{ "level": 4, "keyword": "0x1" }} }}')


@pytest.mark.parametrize("name", NAMES)
def test_answers_and_event_with_a_consumer(name, pytestconfig, tmp_path_factory, tmp_path):
    emitter = emitter_of(name, pytestconfig, tmp_path_factory)
    dat = str(tmp_path / "contract.dat")
    got = converse(pytestconfig, emitter, dat, SESSION, listening=True)
    on, why = enabled_answer(name)
    assert got == ["ok", on, "0", "0", f"child {on} 0", "ok", "0", "9", "error usage"], \
        f"{name}: answers to {SESSION}" + (f" ({why})" if why else "")
    # The child's event (3) and the parent's: the same bytes from every implementation.
    assert decoded(pytestconfig, dat) == [contract_event(1, 0), contract_event(2, 5),
                                          contract_event(3, 0)]


@pytest.mark.parametrize("name", NAMES)
def test_no_consumer_means_disabled_and_ebadf(name, pytestconfig, tmp_path_factory, tmp_path):
    emitter = emitter_of(name, pytestconfig, tmp_path_factory)
    dat = str(tmp_path / "contract.dat")
    got = converse(pytestconfig, emitter, dat, ["register", "enabled", "write 1 0", "fork 2"],
                   listening=False)
    assert got == ["ok", "0", "9", "child 0 9"], name
    assert decoded(pytestconfig, dat) == [], f"{name} sent events nobody listened to"


ALL_NAMES = [i.name for i in read_registry()]
# One grammar for every loop (emitlib/c/contract_loop.h, emitlib/rust/contract.rs): decimal
# digits only, a pad of at most 65,535, exactly the command's words.
MALFORMED_COMMANDS = ["write -5 0", "write +5 0", "write 1 2 3", "write 1 65536", "write 0x1 0",
                      "fork x", "fork", "enabled now", "register twice", ""]


@pytest.mark.parametrize("name", ALL_NAMES)
def test_one_grammar_every_malformed_command_is_a_usage_error(name, pytestconfig,
                                                              tmp_path_factory, tmp_path):
    emitter = emitter_of(name, pytestconfig, tmp_path_factory)
    got = converse(pytestconfig, emitter, str(tmp_path / "c.dat"), MALFORMED_COMMANDS + ["enabled"],
                   listening=True)
    assert got[:-1] == ["error usage"] * len(MALFORMED_COMMANDS), f"{name}: {got}"
    # A producer's API may have no enabled check at all (OpenTelemetry's spans and metrics):
    # `none`, as the protocol lets a write say nothing; the libraries all have one.
    answers = ("0", "1") + (("none",) if by_name(name).inputs != "cases" else ())
    assert got[-1] in answers, f"{name}: the loop went on answering: {got}"


def test_judging_a_row():
    row = ROWS[0]
    p = Profile()
    [e] = judge_contract("x", p, {row.name: {"observed": row.promise}}, "6.12.117")[:1]
    assert e["status"] == "pass"
    [e] = judge_contract("x", p, {row.name: {"observed": "ok 1 0"}}, "6.12.117")[:1]
    assert e["status"] == "fail" and "not declared" in e["message"]
    p.contract[row.name] = ("ok 1 0", "why")
    [e] = judge_contract("x", p, {row.name: {"observed": "ok 1 0"}}, "6.12.117")[:1]
    assert e["status"] == "xfail" and e["message"].startswith("why")
    [e] = judge_contract("x", p, {}, "")[:1]
    assert e["status"] == "fail" and "not run" in e["message"]


def test_a_declaration_that_stops_showing_gives_evidence_not_advice():
    """Declared 'ok 1 0', observed the promise: the message says what was declared, what
    was seen and which rows moved with it, and never tells anyone to delete the line (the
    change may be a new bug that happens to look like the promise)."""
    p = Profile()
    p.contract["no-consumer"] = ("ok 1 0", "why")
    seen = {"no-consumer": {"observed": BY_NAME["no-consumer"].promise},
            "perf": {"observed": "ok 1 0 sent 1"}}
    e = {x["id"].rsplit("/", 1)[1]: x for x in judge_contract("x", p, seen, "6.12.117")}
    m = e["no-consumer"]["message"]
    assert e["no-consumer"]["status"] == "fail"
    assert "declares 'ok 1 0'" in m and f"observed {BY_NAME['no-consumer'].promise!r}" in m
    assert "perf ('ok 1 0 sent 1')" in m, m
    assert "remove" not in m.lower()


# What a library whose enabled check ignores the kernel's bit answers on 6.12: always
# enabled, every write handed to the kernel (which takes it while perf listens).
IGNORES_THE_BIT = {
    "no-consumer": "ok 1 0", "perf": "ok 1 0 sent 1", "ftrace": "ok 1 0 1",
    "reregister": "ok ok 1 ok 1 0 sent", "fork": "ok child 1 0 sent", "thread": "ok 1 0 sent",
    "size": "ok 0 sent 0 lost 0 lost 0 lost 7 lost"}


@pytest.mark.parametrize("row", ["no-consumer", "perf", "ftrace", "reregister", "thread"])
def test_a_library_that_ignores_the_enable_bit_fails_every_row_that_reads_it(row):
    seen = {r: {"observed": o} for r, o in IGNORES_THE_BIT.items()}
    e = {x["id"].rsplit("/", 1)[1]: x for x in judge_contract("x", Profile(), seen, "6.12.117")}
    assert e[row]["status"] == "fail", e[row]["message"]


def test_the_thread_row_promise_follows_the_kernel():
    """K40 on every kernel so far: the registering thread takes its enablers with it, so a
    library that honours the bit answers 0 and EBADF; a kernel that kept them per process
    (thread_exit_drops_enablers 0) would promise the event."""
    row = BY_NAME["thread"]
    assert promise_for(row, {"thread_exit_drops_enablers": 1}) == "ok 0 9 lost"
    assert promise_for(row, {"thread_exit_drops_enablers": 0}) == "ok 1 0 sent"
    from harness.kernel.expectations import for_kernel
    assert for_kernel("6.12.117")["thread_exit_drops_enablers"].value == 1


def test_the_document_holds_the_generated_table_of_the_rows():
    from harness.impl.contract_rows import BEGIN, END, markdown
    with open(os.path.join(REPO_ROOT, "Documentation", "impl-contract.md"), encoding="utf-8") as f:
        doc = f.read()
    assert BEGIN in doc and END in doc
    table = doc[doc.index(BEGIN):doc.index(END) + len(END)]
    assert table == markdown(), ("Documentation/impl-contract.md: the rows' table is stale: "
                                 "rewrite it with `harness/impl/contract_rows.py --markdown`")


def test_profiles_declare_only_rows_that_exist():
    """A declaration for a row that does not exist would never be judged: a typo fails."""
    from harness.impl.contract_rows import BY_NAME
    from harness.impl.registry import read_profile
    for impl in read_registry():
        unknown = set(read_profile(impl).contract) - set(BY_NAME)
        assert not unknown, f"impl/{impl.name}/profile.txt: no contract row {sorted(unknown)}"
