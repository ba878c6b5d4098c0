# SPDX-License-Identifier: GPL-2.0
"""The implementations on a guest of another architecture (make check-impl KERNEL_ARCH=s390x),
the harness's side of it, with no VM and no cross compiler:
  * the offline half keeps this machine's emitter; the plan the VM run takes names the
    guest's: the reference's from make's VARIANT=<arch> build, a C or C++ row's from its
    build script under EHCONF_CROSS_ARCH, and for any other language a skip that the VM
    run reports as that implementation's one item;
  * the contract rows are judged by the expectations of the machine the guest reports,
    so a row of cases/kernel-expectations.txt that holds on s390x only picks the promise
    there and nowhere else.
"""

from __future__ import annotations

import json
import os

import run_impl
import run_impl_vm
from contract_rows import Row
from impls import Impl, Profile


class Scratch(Impl):
    """A registry row whose folder is a scratch one (the build script under test)."""
    where = "/nonexistent"

    @property
    def folder(self) -> str:
        return self.where


def impl(name, language, checkout="LTTP", folder="/nonexistent"):
    row = Scratch(name, language, checkout, "x/y", "cases", "emit", "ehdecode", "-")
    row.where = folder
    return row


def test_on_the_host_architecture_the_plan_is_unchanged(monkeypatch, tmp_path):
    monkeypatch.setattr(run_impl, "foreign_arch", lambda: "")
    plan = {"emitter": "/host/emit"}
    assert run_impl.guest_emitter(impl("x", "c"), str(tmp_path / "gcc"), str(tmp_path), plan) == []
    assert plan == {"emitter": "/host/emit"}


def test_the_reference_runs_makes_build_for_that_architecture(monkeypatch, tmp_path):
    monkeypatch.setattr(run_impl, "foreign_arch", lambda: "s390x")
    guest = tmp_path / "s390x" / "impl" / "ehconf" / "emit"
    plan = {"emitter": "/host/emit"}
    [e] = run_impl.guest_emitter(impl("ehconf", "c", "-"), str(tmp_path / "gcc"), str(tmp_path), plan)
    assert (e["id"], e["status"]) == ("impl/ehconf/build-s390x", "fail")
    assert "make VARIANT=s390x" in e["message"] and plan["no_emitter"] == e["message"]
    guest.parent.mkdir(parents=True)
    guest.write_text("#!/bin/sh\n")
    guest.chmod(0o755)
    plan = {"emitter": "/host/emit"}
    [e] = run_impl.guest_emitter(impl("ehconf", "c", "-"), str(tmp_path / "gcc"), str(tmp_path), plan)
    assert e["status"] == "pass" and "no_emitter" not in plan
    assert plan == {"emitter": str(guest), "host_emitter": "/host/emit", "arch": "s390x"}


def test_a_c_row_is_cross_built_by_its_build_script(monkeypatch, tmp_path):
    monkeypatch.setattr(run_impl, "foreign_arch", lambda: "s390x")
    monkeypatch.setenv("IMPL_SRC_LTTP", str(tmp_path))
    folder = tmp_path / "impl"
    folder.mkdir()
    # A build script that says which architecture it was asked for, and builds nothing else.
    (folder / "build").write_text('#!/bin/sh\nmkdir -p "$2"\nprintf "#!/bin/sh\\n" >"$2/emit"\n'
                                  'chmod +x "$2/emit"\necho "for=$EHCONF_CROSS_ARCH"\necho "$2/emit"\n')
    (folder / "build").chmod(0o755)
    plan = {"emitter": "/host/emit"}
    [e] = run_impl.guest_emitter(impl("lttp-c", "c", folder=str(folder)), str(tmp_path / "gcc"),
                                 str(tmp_path), plan)
    assert (e["id"], e["status"]) == ("impl/lttp-c/build-s390x", "pass"), e
    assert plan["emitter"] == str(tmp_path / "build-s390x" / "emit")
    with open(tmp_path / "build-s390x.log", encoding="utf-8") as f:
        assert "for=s390x" in f.read()


def test_another_language_is_a_skip_in_the_vm(monkeypatch, tmp_path):
    monkeypatch.setattr(run_impl, "foreign_arch", lambda: "s390x")
    plan = {"emitter": "/host/emit", "cases": {}}
    [e] = run_impl.guest_emitter(impl("rust-dynamic", "rust", "RUST"), str(tmp_path / "gcc"),
                                 str(tmp_path), plan)
    assert e["status"] == "skip" and "not cross-built for s390x" in e["message"]
    # The VM run boots for nobody and reports that skip as the implementation's item.
    results = tmp_path / "results"
    (results / "impl-rust-dynamic").mkdir(parents=True)
    (results / "impl-rust-dynamic" / run_impl.PLAN).write_text(json.dumps(plan))
    monkeypatch.setattr(run_impl_vm, "read_registry", lambda: [impl("rust-dynamic", "rust", "RUST")])
    [(folder, entries, _)] = run_impl_vm.run_impl_vm(["rust-dynamic"], str(tmp_path / "s390x"),
                                                     str(results), str(tmp_path))
    assert os.path.basename(folder) == "rust-dynamic"
    assert [(x["id"], x["status"]) for x in entries] == [("impl-vm/rust-dynamic", "skip")]


# A row the kernel decides by an expectation that has a row for s390x alone
# (cases/kernel-expectations.txt: kernel_half_enable_errno is 14 everywhere, 12 on s390x).
ROW = Row("kernel-half", "K07", "an enable word in the kernel's half",
          ("ask register",), "errno 14",
          ("kernel_half_enable_errno", ((14, "errno 14"), (12, "errno 12"))))


def test_the_contract_is_judged_by_the_guests_machine(monkeypatch):
    monkeypatch.setattr(run_impl_vm, "ROWS", [ROW])
    seen = {ROW.name: {"observed": "errno 12"}}
    [e] = run_impl_vm.judge_contract("x", Profile(), seen, "6.12.117", "s390x")
    assert e["status"] == "pass", e
    [e] = run_impl_vm.judge_contract("x", Profile(), seen, "6.12.117", "x86_64")
    assert e["status"] == "fail" and "'errno 14'" in e["message"]
