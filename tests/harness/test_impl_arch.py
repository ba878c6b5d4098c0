# SPDX-License-Identifier: GPL-2.0
"""The implementations on a guest of another architecture (make check-impl KERNEL_ARCH=s390x),
the harness's side of it, with no VM and no cross compiler:
  * the offline half keeps this machine's emitter; the plan the VM run takes names the
    guest's: the reference's from make's VARIANT=<arch> build, a C, C++ or Rust row's from
    its build script under EHCONF_CROSS_ARCH, and for any other language a skip that the VM
    run reports as that implementation's one item;
  * a Rust build script gets cargo's cross environment from emitlib/build.sh
    rust_cross_setup: --target, the target's standard library (vm/rust-std) as --sysroot
    for the target's crates only, the cross gcc as linker; nothing without EHCONF_CROSS_ARCH;
  * the contract rows are judged by the expectations of the machine the guest reports,
    so a row of cases/kernel-expectations.txt that holds on s390x only picks the promise
    there and nowhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from harness.impl import run_impl
from harness.impl import run_impl_vm
from harness.core.common import REPO_ROOT
from harness.impl.contract_rows import Row
from harness.impl.registry import Impl, Profile


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


@pytest.mark.parametrize("name,language,checkout", [("lttp-c", "c", "LTTP"),
                                                    ("rust-dynamic", "rust", "RUST")])
def test_a_row_is_cross_built_by_its_build_script(monkeypatch, tmp_path, name, language,
                                                  checkout):
    """C and Rust rows alike: run_impl runs the row's own build for the guest's architecture."""
    monkeypatch.setattr(run_impl, "foreign_arch", lambda: "s390x")
    monkeypatch.setenv(f"IMPL_SRC_{checkout}", str(tmp_path))
    folder = tmp_path / "impl"
    folder.mkdir()
    # A build script that says which architecture it was asked for, and builds nothing else.
    (folder / "build").write_text('#!/bin/sh\nmkdir -p "$2"\nprintf "#!/bin/sh\\n" >"$2/emit"\n'
                                  'chmod +x "$2/emit"\necho "for=$EHCONF_CROSS_ARCH"\necho "$2/emit"\n')
    (folder / "build").chmod(0o755)
    plan = {"emitter": "/host/emit"}
    [e] = run_impl.guest_emitter(impl(name, language, checkout, str(folder)),
                                 str(tmp_path / "gcc"), str(tmp_path), plan)
    assert (e["id"], e["status"]) == (f"impl/{name}/build-s390x", "pass"), e
    assert plan["emitter"] == str(tmp_path / "build-s390x" / "emit") and "no_emitter" not in plan
    with open(tmp_path / "build-s390x.log", encoding="utf-8") as f:
        assert "for=s390x" in f.read()


def test_another_language_is_a_skip_in_the_vm(monkeypatch, tmp_path):
    monkeypatch.setattr(run_impl, "foreign_arch", lambda: "s390x")
    plan = {"emitter": "/host/emit", "cases": {}}
    [e] = run_impl.guest_emitter(impl("go-emitter", "go", "GO"), str(tmp_path / "gcc"),
                                 str(tmp_path), plan)
    assert e["status"] == "skip" and "not cross-built for s390x" in e["message"]
    # The VM run boots for nobody and reports that skip as the implementation's item.
    results = tmp_path / "results"
    (results / "impl-go-emitter").mkdir(parents=True)
    (results / "impl-go-emitter" / run_impl.PLAN).write_text(json.dumps(plan))
    monkeypatch.setattr(run_impl_vm, "read_registry", lambda: [impl("go-emitter", "go", "GO")])
    [(folder, entries, _)] = run_impl_vm.run_impl_vm(["go-emitter"], str(tmp_path / "s390x"),
                                                     str(results), str(tmp_path))
    assert os.path.basename(folder) == "go-emitter"
    assert [(x["id"], x["status"]) for x in entries] == [("impl-vm/go-emitter", "skip")]


# emitlib/build.sh's rust_cross_setup in a scratch tree: vm/arches as committed, vm/cross-toolchain
# and vm/rust-std stand-ins that print the folders they would fill (no download, no compiler).
SETUP = """
. "$1/emitlib/build.sh"
build_init probe x/y "$2" "$3"
need_files .
cross_setup
rust_cross_setup
printf 'target=%s\\nrelease=%s\\n' "$rust_target" "$rust_release"
printf 'env=%s\\n' "${rust_env[@]}"
"""


def rust_setup(tmp_path, arch, std_ok=True):
    tree = tmp_path / "tree"
    (tree / "emitlib").mkdir(parents=True)
    (tree / "vm").mkdir()
    shutil.copy(os.path.join(REPO_ROOT, "emitlib", "build.sh"), tree / "emitlib" / "build.sh")
    for table in ("arches", "arch.sh"):  # the table and its reader
        shutil.copy(os.path.join(REPO_ROOT, "vm", table), tree / "vm" / table)
    gcc = tmp_path / "cross" / "bin"
    gcc.mkdir(parents=True)
    for tool in ("s390x-linux-gnu-gcc", "s390x-linux-gnu-g++", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++"):
        (gcc / tool).write_text("#!/bin/sh\n")
        (gcc / tool).chmod(0o755)
    sysroot = tmp_path / "std" / "usr"
    for target in ("s390x-unknown-linux-gnu", "aarch64-unknown-linux-gnu"):
        (sysroot / "lib" / "rustlib" / target / "lib").mkdir(parents=True)
    stubs = {"cross-toolchain": f"#!/bin/sh\necho {gcc}\n",
             "rust-std": f"#!/bin/sh\necho \"std for $1\" >&2\necho {sysroot if std_ok else '/nonexistent'}\n"}
    for name, text in stubs.items():
        (tree / "vm" / name).write_text(text)
        (tree / "vm" / name).chmod(0o755)
    env = dict(os.environ)
    env.pop("EHCONF_CROSS_ARCH", None)
    if arch:
        env["EHCONF_CROSS_ARCH"] = arch
    r = subprocess.run(["bash", "-c", SETUP, "setup", str(tree), str(tmp_path), str(tmp_path / "out")],
                       capture_output=True, text=True, env=env, timeout=60)
    return r, str(gcc), str(sysroot)


def test_rust_cross_setup_gives_cargo_the_target_its_std_and_linker(tmp_path):
    r, gcc, sysroot = rust_setup(tmp_path, "s390x")
    assert r.returncode == 0, r.stderr
    assert "target=s390x-unknown-linux-gnu" in r.stdout
    assert "release=s390x-unknown-linux-gnu/release" in r.stdout
    env = [ln[4:] for ln in r.stdout.splitlines() if ln.startswith("env=")]
    assert env == ["CARGO_BUILD_TARGET=s390x-unknown-linux-gnu",
                   f"CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUSTFLAGS=--sysroot {sysroot}",
                   f"CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER={gcc}/s390x-linux-gnu-gcc"]
    r, gcc, _ = rust_setup(tmp_path / "arm", "arm64")
    assert "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=" + gcc + "/aarch64-linux-gnu-gcc" in r.stdout


def test_without_a_cross_arch_cargo_is_left_as_it_was(tmp_path):
    r, _, _ = rust_setup(tmp_path, "")
    assert r.returncode == 0, r.stderr
    assert "target=\nrelease=release\n" in r.stdout
    assert [ln for ln in r.stdout.splitlines() if ln.startswith("env=") and ln != "env="] == []


def test_a_missing_target_std_is_the_build_failure_line(tmp_path):
    r, _, _ = rust_setup(tmp_path, "s390x", std_ok=False)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1].startswith("probe: build: rust-std failed (log: ")


def test_rust_std_refuses_the_host_and_unknown_architectures():
    for arch, why in (("x86_64", "builds with the host's own standard library"), ("mips", "not a row of vm/arches")):
        r = subprocess.run([os.path.join(REPO_ROOT, "vm", "rust-std"), arch], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, EHCONF_CACHE="/nonexistent"))
        assert r.returncode != 0 and why in r.stderr, r.stderr


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


def cached(*parts):
    return os.path.join(os.environ.get("EHCONF_CACHE", "/var/cache/ehconf"), *parts)


@pytest.mark.skipif(not os.environ.get("IMPL_SRC_RUST"), reason="IMPL_SRC_RUST is not set: no checkout "
                    "of microsoft/LinuxTracepoints-Rust to cross-build")
@pytest.mark.skipif(not (os.path.isdir(cached("rust-std-s390x", "usr", "lib", "rustlib"))
                         and os.path.isdir(cached("cross-s390x-c++"))),
                    reason="no s390x standard library or cross compiler in the cache (vm/rust-std s390x, "
                    "vm/cross-toolchain --c++ s390x): this test downloads nothing")
def test_rust_dynamic_cross_builds_a_big_endian_s390x_program(tmp_path):
    """The real thing, from the cache: impl/rust-dynamic/build under EHCONF_CROSS_ARCH=s390x
    leaves an ELF for the guest (64-bit, big-endian, machine 22: S/390)."""
    r = subprocess.run([os.path.join(REPO_ROOT, "impl", "rust-dynamic", "build"), os.environ["IMPL_SRC_RUST"],
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, EHCONF_CROSS_ARCH="s390x"))
    assert r.returncode == 0, r.stderr
    emit = r.stdout.strip().splitlines()[-1]
    assert emit.endswith("/target/s390x-unknown-linux-gnu/release/emit")
    with open(emit, "rb") as f:
        head = f.read(20)
    assert head[:4] == b"\x7fELF" and head[4] == 2 and head[5] == 2, head  # ELFCLASS64, ELFDATA2MSB
    assert int.from_bytes(head[18:20], "big") == 22  # EM_S390
