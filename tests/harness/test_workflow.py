# SPDX-License-Identifier: GPL-2.0
"""`make ci-lint`: .github/workflows/ehconf.yml is valid YAML and has the jobs and steps
the CI issue asks for. Each test names one requirement; removing the step that meets it
makes that test fail. EHCONF_WORKFLOW=<file> checks another file (used to break it on
purpose)."""

from __future__ import annotations

import os
import re
from typing import List

import pytest
import yaml

from harness.core.common import REPO_ROOT

REPO = REPO_ROOT
WORKFLOW = os.environ.get("EHCONF_WORKFLOW") or os.path.join(REPO, ".github", "workflows", "ehconf.yml")
CACHE = "/var/cache/ehconf"


@pytest.fixture(scope="module")
def text() -> str:
    with open(WORKFLOW, encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def wf(text) -> dict:
    data = yaml.safe_load(text)
    assert isinstance(data, dict), f"{WORKFLOW}: top level is not a mapping"
    return data


def triggers(wf: dict) -> dict:
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean True.
    on = wf.get("on", wf.get(True))
    assert on is not None, "no `on:` triggers"
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {k: None for k in on}
    return on


def job(wf: dict, name: str) -> dict:
    jobs = wf.get("jobs") or {}
    assert name in jobs, f"no job {name!r} (jobs: {sorted(jobs)})"
    return jobs[name]


def steps(j: dict) -> List[dict]:
    s = j.get("steps")
    assert isinstance(s, list) and s, "job has no steps"
    return s


def runs(step: dict) -> str:
    return str(step.get("run") or "")


def find(stps: List[dict], pred, what: str) -> int:
    for i, s in enumerate(stps):
        if pred(s):
            return i
    pytest.fail(f"no step that {what}", pytrace=False)


def runs_command(cmd: str):
    """A step whose `run` has `cmd` as a whole command (not e.g. `make check-vm`)."""
    pat = re.compile(r"(^|[;&|]\s*|\n\s*)" + re.escape(cmd) + r"\s*($|[;&|\n])", re.M)
    return lambda s: bool(pat.search(runs(s)))


def uses(action: str):
    return lambda s: str(s.get("uses", "")).split("@")[0] == action


def always(step_or_job: dict) -> bool:
    return "always()" in str(step_or_job.get("if", ""))


def make_targets() -> set:
    targets = set()
    # every makefile of the checkout (harness/ keeps its own in its wings' folders), not
    # walking the build folder (cargo's trees are large) or hidden ones
    files = [os.path.join(REPO, "Makefile")]
    for top, dirs, names in os.walk(REPO):
        dirs[:] = [d for d in dirs if not d.startswith(".") and
                   os.path.join(top, d) != os.path.join(REPO, "build")]
        files += [os.path.join(top, n) for n in names if n.endswith(".mk")]
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^([A-Za-z0-9_.%/-]+(?:\s+[A-Za-z0-9_.%/-]+)*)\s*:(?!=)", line)
                if m:
                    targets.update(m.group(1).split())
    return targets


# --- triggers -------------------------------------------------------------------------

def test_valid_yaml_with_name_and_jobs(wf):
    assert wf.get("name")
    assert isinstance(wf.get("jobs"), dict) and wf["jobs"]


def test_runs_on_push_and_pull_request(wf):
    on = triggers(wf)
    assert "push" in on and "pull_request" in on


def test_workflow_dispatch_selects_the_kernel_source(wf):
    on = triggers(wf)
    assert "workflow_dispatch" in on, "no workflow_dispatch trigger"
    inputs = (on["workflow_dispatch"] or {}).get("inputs") or {}
    assert "kernel_git_url" in inputs and "kernel_git_ref" in inputs
    # empty URL = Debian's 6.12, the default
    assert inputs["kernel_git_url"].get("default", "") == ""


# --- the Linux job ------------------------------------------------------------------------

def test_linux_job_runs_in_debian_12(wf):
    j = job(wf, "linux")
    assert "ubuntu" in str(j.get("runs-on"))
    c = j.get("container")
    image = c.get("image") if isinstance(c, dict) else c
    assert image in ("debian:bookworm", "debian:12"), f"container image {image!r}"
    t = j.get("timeout-minutes")
    assert isinstance(t, int) and 30 <= t <= 360, "the job needs a timeout (a hung VM must not run 6 h)"


def test_matrix_kernel_comes_from_the_dispatch_input(wf):
    j = job(wf, "linux")
    matrix = str((j.get("strategy") or {}).get("matrix"))
    assert "inputs.kernel_git_url" in matrix and "debian-6.12" in matrix


def test_matrix_runs_every_kernel_of_check_matrix(wf):
    """One job per kernel of the Makefile's default KERNELS, each passing its version on."""
    import os
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(here, "harness", "vm", "vm.mk"), encoding="utf-8") as f:
        m = re.search(r"^KERNELS \?= (.+)$", f.read(), re.M)
    assert m, "harness/vm/vm.mk has no KERNELS ?= line"
    j = job(wf, "linux")
    include = ((j.get("strategy") or {}).get("matrix") or {}).get("include") or []
    assert sorted(str(x.get("version")) for x in include) == sorted(m.group(1).split())
    src = steps(j)[find(steps(j), lambda x: x.get("id") == "ksrc", "has id ksrc")]
    assert "matrix.version" in str(src.get("env")) and "KERNEL_VERSION" in str(src.get("run"))


def test_every_other_architecture_is_a_job_of_its_own(wf):
    """Issue 34: each row of vm/arches but the host's x86_64 is one job of the `arches`
    matrix, running make check-vm with that KERNEL_ARCH, then make check-impl."""
    with open(os.path.join(REPO, "vm", "arches"), encoding="utf-8") as f:
        arches = [ln.split()[0] for ln in f if ln.strip() and not ln.startswith("#")]
    j = job(wf, "arches")
    assert sorted((j.get("strategy") or {}).get("matrix", {}).get("arch") or []) == \
        sorted(a for a in arches if a != "x86_64")
    s = steps(j)
    vm = find(s, lambda x: "make check-vm KERNEL_ARCH=${{ matrix.arch }}" in runs(x),
              "runs check-vm")
    # ...then the implementations in the same guest kernel, against the checkouts it takes
    impl = find(s, lambda x: "make check-impl KERNEL_ARCH=${{ matrix.arch }}" in runs(x),
                "runs check-impl")
    assert impl > vm and "IMPL_SRC_LTTP=" in runs(s[impl]) and "IMPL_SRC_RUST=" in runs(s[impl])
    for repo in ("microsoft/LinuxTracepoints", "microsoft/LinuxTracepoints-Rust"):
        find(s, lambda x, r=repo: (x.get("with") or {}).get("repository") == r,
             f"checks out {repo}")


def test_the_selftests_series_runs_in_every_guest(wf):
    """Issue 41: the workflow runs the upstream selftests series in a VM, on the linux job's
    kernel after make check, and on each other architecture's 6.12 after its check-vm (K38's
    test is the one that depends on the architecture)."""
    s = steps(job(wf, "linux"))
    check = find(s, runs_command("make check"), "runs make check")
    series = find(s, lambda x: "make selftests-series-vm" in runs(x), "runs the series in the VM")
    assert series > check and 'SERIES_KERNELS="$KERNEL_VERSION"' in runs(s[series])
    s = steps(job(wf, "arches"))
    vm = find(s, lambda x: "make check-vm KERNEL_ARCH=${{ matrix.arch }}" in runs(x), "runs check-vm")
    series = find(s, lambda x: "make selftests-series-vm KERNEL_ARCH=${{ matrix.arch }}" in runs(x),
                  "runs the series in that guest")
    assert series > vm and "SERIES_KERNELS=6.12" in runs(s[series])


def test_git_kernel_is_cloned_and_passed_as_kernel_src(wf):
    s = steps(job(wf, "linux"))
    i = find(s, lambda x: "KERNEL_SRC=" in runs(x), "sets KERNEL_SRC")
    assert "GITHUB_ENV" in runs(s[i]) and "git" in runs(s[i]) and "fetch" in runs(s[i])
    assert "git_url" in str(s[i].get("env", "")) + runs(s[i])


def base_packages(wf: dict, j: dict, step: dict) -> str:
    env = {**(wf.get("env") or {}), **(j.get("env") or {}), **(step.get("env") or {})}
    cmd = runs(step)
    for k, v in env.items():
        cmd = cmd.replace("$" + k, str(v)).replace("${" + k + "}", str(v))
    return cmd


@pytest.mark.parametrize("name", ["linux", "test-bisect"])
def test_git_make_and_python_installed_before_checkout(wf, name):
    # actions/checkout in a container without git downloads a tarball: no .git, and
    # the image has no make or python3 for `make deps` / the harness.
    j = job(wf, name)
    s = steps(j)
    i = find(s, lambda x: "apt-get install" in runs(x), "runs apt-get install")
    assert i < find(s, uses("actions/checkout"), "uses actions/checkout")
    cmd = base_packages(wf, j, s[i])
    for pkg in ("git", "make", "python3"):
        assert re.search(r"(^|\s)" + pkg + r"(\s|$)", cmd), f"{name}: {pkg} is not installed first"


def test_checkout_then_make_deps_then_make_check(wf):
    s = steps(job(wf, "linux"))
    co = find(s, uses("actions/checkout"), "uses actions/checkout")
    deps = find(s, runs_command("make deps"), "runs `make deps`")
    check = find(s, runs_command("make check"), "runs `make check`")
    assert co < deps < check


def test_kernel_cache_is_restored_before_make_check(wf):
    s = steps(job(wf, "linux"))
    r = find(s, lambda x: uses("actions/cache")(x) or uses("actions/cache/restore")(x),
             "restores a cache")
    check = find(s, runs_command("make check"), "runs `make check`")
    assert r < check
    w = s[r].get("with") or {}
    paths = str(w.get("path"))
    assert CACHE in paths, f"cache path {paths!r} does not keep {CACHE}"
    key = str(w.get("key"))
    assert "hashFiles(" in key and "vm/config.fragment" in key, "key must change with the config fragment"
    assert "steps.ksrc.outputs.version" in key, "key must change with the kernel source version"
    assert find(s, lambda x: x.get("id") == "ksrc", "has id ksrc (kernel source version)") < r


def test_kernel_cache_is_saved_even_if_check_fails(wf):
    s = steps(job(wf, "linux"))
    if any(uses("actions/cache")(x) for x in s):
        return  # the combined action saves in its post step
    r = find(s, uses("actions/cache/restore"), "restores the cache")
    k = find(s, runs_command("make kernel"), "builds the kernel (`make kernel`) before saving the cache")
    i = find(s, uses("actions/cache/save"), "saves the cache (actions/cache/save)")
    assert r < k < i, "restore, `make kernel`, then save: otherwise an empty cache is saved"
    assert always(s[i]), "the save step needs if: always()"
    assert CACHE in str((s[i].get("with") or {}).get("path"))


def test_cache_dir_is_the_one_the_scripts_use(wf):
    env = dict(wf.get("env") or {})
    assert env.get("EHCONF_CACHE", CACHE) == CACHE


def test_artifacts_are_collected_and_uploaded_always(wf):
    s = steps(job(wf, "linux"))
    c = find(s, runs_command("scripts/ci.sh collect"), "runs `scripts/ci.sh collect`")
    assert always(s[c])
    u = find(s, uses("actions/upload-artifact"), "uses actions/upload-artifact")
    assert always(s[u]) and c < u
    env = s[c].get("env") or {}
    dest = str(env.get("CI_ARTIFACTS", "ci-artifacts")).rstrip("/")
    assert dest in str((s[u].get("with") or {}).get("path"))


def test_ci_script_collects_report_console_perf_data_and_junit():
    path = os.path.join(REPO, "scripts", "ci.sh")
    assert os.access(path, os.X_OK), "scripts/ci.sh missing or not executable"
    with open(path, encoding="utf-8") as f:
        src = f.read()
    for needle in ("report.md", "console.log", ".xml", "vm-results.json", "make deps", "make", "check"):
        assert needle in src, f"scripts/ci.sh does not mention {needle!r}"
    assert re.search(r'results/vm/\$c"?\.\*', src), "scripts/ci.sh does not copy the failed cases' files (perf.data)"


# --- publishing -----------------------------------------------------------------------------

PUBLISHERS = ("EnricoMi/publish-unit-test-result-action", "dorny/test-reporter",
              "mikepenz/action-junit-report")


def test_junit_xml_is_published_as_test_results(wf):
    jobs = wf.get("jobs") or {}
    found = []
    for name, j in jobs.items():
        for s in j.get("steps") or []:
            if str(s.get("uses", "")).split("@")[0].split("/linux")[0] in PUBLISHERS:
                found.append((name, j, s))
    assert found, f"no step uses one of {PUBLISHERS}"
    name, j, s = found[0]
    w = s.get("with") or {}
    pattern = str(w.get("files") or w.get("path") or w.get("report_paths"))
    assert pattern.endswith(".xml") and "junit" in pattern.lower() or "build/results" in pattern
    assert always(j) or always(s), "test results must be published when tests fail too"
    if name != "linux":
        assert "linux" in (j.get("needs") or []), "the publishing job must wait for the linux job"
        assert find(steps(j), uses("actions/download-artifact"), "downloads the artifacts") >= 0
        assert "checks: write" in yaml.safe_dump(j.get("permissions") or {}).replace("'", "")


# --- the Windows/ETW job (never run yet: see the workflow's comment) -----------------------

def test_mingw_build_is_uploaded_for_windows(wf):
    s = steps(job(wf, "mingw-build"))
    b = find(s, lambda x: re.search(r"make\s.*VARIANT=mingw.*\swindows-build", runs(x)),
             "runs `make VARIANT=mingw windows-build`")
    inst = find(s, lambda x: "gcc-mingw-w64-x86-64" in runs(x), "installs gcc-mingw-w64-x86-64")
    u = find(s, uses("actions/upload-artifact"), "uploads the mingw build")
    assert inst < b < u
    w = s[u].get("with") or {}
    assert w.get("name") == "mingw-build" and "build/mingw" in str(w.get("path"))


def test_windows_job_runs_check_ps1_on_the_mingw_build(wf):
    j = job(wf, "windows")
    assert "windows-2022" in str(j.get("runs-on"))
    assert "mingw-build" in (j.get("needs") or []), "windows must wait for the mingw build"
    assert j.get("timeout-minutes"), "windows: no timeout-minutes"
    s = steps(j)
    co = find(s, uses("actions/checkout"), "uses actions/checkout")
    dl = find(s, uses("actions/download-artifact"), "downloads the mingw build")
    assert (s[dl].get("with") or {}).get("name") == "mingw-build"
    assert str((s[dl].get("with") or {}).get("path")).rstrip("/") == "build/mingw"
    run = find(s, lambda x: re.search(r"(^|\s)pwsh\s+scripts/windows/check\.ps1", runs(x)),
               "runs `pwsh scripts/windows/check.ps1`")
    assert "-Prebuilt build/mingw" in runs(s[run])
    assert co < dl < run
    up = find(s, uses("actions/upload-artifact"), "uploads the Windows results")
    assert always(s[up]) and run < up
    assert str((s[up].get("with") or {}).get("name", "")).startswith("ehconf-windows")


def test_windows_job_records_with_wpr():
    # check.ps1 records each case with WPR and the project's profile (issue 14).
    ps1 = open(os.path.join(REPO, "scripts", "windows", "check.ps1"), encoding="utf-8").read()
    assert re.search(r'\$WprProfile = Join-Path \$Repo "scripts\\windows\\ehconf\.wprp"', ps1)
    assert re.search(r'Invoke-Wpr @\("-start", "\$WprProfile!ehconf", "-filemode"', ps1)
    assert re.search(r'\$stopArgs = @\("-stop", \$etl\b', ps1)
    # and once more compressed (issue 23), judged against the same golden file
    assert re.search(r'if \(\$compress\) \{ \$stopArgs \+= "-compress" \}', ps1)
    assert "compare_etl.py" in ps1


def test_windows_etl_is_decoded_and_compared(wf):
    j = job(wf, "windows-decode")
    assert "windows" in (j.get("needs") or []), "windows-decode must wait for the windows job"
    assert str(j.get("if", "")).strip() == "always()", "decode whatever the windows job left"
    assert j.get("continue-on-error") is True, "never run yet: must not fail the workflow"
    assert j.get("timeout-minutes"), "windows-decode: no timeout-minutes"
    s = steps(j)
    mk = find(s, lambda x: re.search(r"make\s.*build/gcc/bin/ehdecode", runs(x)), "builds ehdecode")
    dl = find(s, uses("actions/download-artifact"), "downloads the windows results")
    assert (s[dl].get("with") or {}).get("name") == "ehconf-windows"
    cmp_ = find(s, lambda x: "scripts/windows/compare_etl.py" in runs(x), "runs compare_etl.py")
    assert "--junit ci-artifacts/junit/" in runs(s[cmp_])
    up = find(s, uses("actions/upload-artifact"), "uploads the decode results")
    assert always(s[up]) and mk < cmp_ and dl < cmp_ < up
    assert str((s[up].get("with") or {}).get("name", "")).startswith("ehconf-windows")


def test_windows_results_are_published(wf):
    needs = job(wf, "publish-test-results").get("needs") or []
    assert "windows" in needs and "windows-decode" in needs


def test_windows_job_is_marked_never_run(text):
    assert re.search(r"windows.*NEVER RUN", text), \
        "the Windows job's comment must say it has never run (until it has)"


def test_test_bisect_on_every_push(wf):
    # .ci/run may skip it on a cold machine (its time budget): this job keeps running it.
    j = job(wf, "test-bisect")
    cond = str(j.get("if", ""))
    assert cond.replace(" ", "") == "github.event_name!='workflow_dispatch'||inputs.test_bisect"
    s = steps(j)
    co = find(s, uses("actions/checkout"), "uses actions/checkout")
    deps = find(s, runs_command("make deps"), "runs `make deps`")
    tb = find(s, runs_command("make test-bisect"), "runs `make test-bisect`")
    assert co < deps < tb
    up = find(s, uses("actions/upload-artifact"), "uploads the bisect logs")
    assert always(s[up]) and "build/bisect" in str((s[up].get("with") or {}).get("path"))


# --- consistency with the repository -----------------------------------------------------------

def test_every_make_target_used_exists(wf):
    known = make_targets()
    used = set()
    for j in (wf.get("jobs") or {}).values():
        for s in j.get("steps") or []:
            used.update(re.findall(r"(?:^|[;&|]\s*|\n\s*)make\s+([a-z][a-z0-9_-]*)", runs(s)))
    assert used, "no make command at all"
    missing = sorted(t for t in used if t not in known)
    assert not missing, f"make targets not defined in Makefile/*.mk: {missing}"


def test_actions_are_pinned_to_a_version(wf):
    for j in (wf.get("jobs") or {}).values():
        for s in j.get("steps") or []:
            u = s.get("uses")
            if u:
                assert re.search(r"@(v\d+|[0-9a-f]{40})$", u), f"{u} is not pinned"


def test_jobs_have_timeouts_and_bash(wf):
    for name in ("linux", "test-bisect"):
        j = job(wf, name)
        assert j.get("timeout-minutes"), f"{name}: no timeout-minutes"
        assert ((j.get("defaults") or {}).get("run") or {}).get("shell") == "bash", \
            f"{name}: the Debian container's default shell is sh; the steps use bash"


def test_implementations_job_checks_out_each_upstream_at_the_cited_commit(wf):
    """Every implementation with a checkout (impl/implementations.txt) is checked out by
    actions/checkout at a full commit, the one its profile's line numbers belong to, and
    `make check-impl IMPL=all` gets each checkout's path in its IMPL_SRC_* variable."""
    from harness.impl.registry import read_registry
    j = job(wf, "implementations")
    checkouts = {s["with"]["repository"]: s["with"] for s in steps(j)
                 if str(s.get("uses", "")).startswith("actions/checkout@")
                 and (s.get("with") or {}).get("repository")}
    make = [runs(s) for s in steps(j) if "make check-impl IMPL=all" in runs(s)]
    assert make, "no step runs make check-impl IMPL=all"
    from harness.impl.registry import CRATES
    for impl in read_registry():
        if impl.checkout in ("-", CRATES) or impl.upstream == "-":
            continue  # built by make, from the crate registry, or from this repository
        w = checkouts.get(impl.upstream)
        assert w, f"{impl.name}: no actions/checkout of {impl.upstream}"
        assert re.fullmatch(r"[0-9a-f]{40}", str(w.get("ref", ""))), \
            f"{impl.upstream}: ref {w.get('ref')!r} is not a pinned commit"
        with open(os.path.join(impl.folder, "profile.txt"), encoding="utf-8") as f:
            assert w["ref"][:8] in f.read(), \
                f"impl/{impl.name}/profile.txt cites another commit than {w['ref'][:8]}"
        assert f"{impl.variable}=\"$GITHUB_WORKSPACE/{w['path']}\"" in make[0], \
            f"{impl.variable} is not the path of the {impl.upstream} checkout"
