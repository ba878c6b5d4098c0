# SPDX-License-Identifier: GPL-2.0
"""`make kselftest-install` / `make kselftest-tar` (cases/kselftest.mk): the kernel cases as
the kselftest collection ehconf_user_events, and how they behave with nothing of ehconf
around them (Documentation/kselftest.md).

The module installs once into a temporary folder with the build variant the plugin names
(--ehconf-build, default build/gcc; a sanitizer variant falls back to gcc), then checks
the tree, and runs the installed run_kselftest.sh on this machine: where the kernel has no
user_events every test must SKIP with a reason and none may fail.

Run: /usr/bin/python3 -m pytest -q tests/harness/test_kselftest_install.py
"""

import os
import re
import shutil
import struct
import subprocess
import tarfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = "ehconf_user_events"
FRAGMENT = os.path.join(REPO, "vm", "config.fragment")
OPEN_MARK, CLOSE_MARK = "# >>> kselftest config", "# <<< kselftest config"
CONFIG_LINE = re.compile(r"^(CONFIG_[A-Za-z0-9_]+=.*|# CONFIG_[A-Za-z0-9_]+ is not set)$")
UE_DATA = "/sys/kernel/tracing/user_events_data"
# Tests that open perf events call NEED_PERF() (cases/user_events_abi.h).
PERF_CALLS = ("perf_open_tracepoint", "perf_ring_open", "traced_open", "perf_attach", "perf_attach_id")


def kernel_cases():
    return sorted(f[:-2] for f in os.listdir(os.path.join(REPO, "cases"))
                  if f.startswith("kernel_") and f.endswith(".c"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def make_env():
    """The environment without the calling make's job server and flags."""
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS"):
        env.pop(k, None)
    env["LC_ALL"] = "C"
    return env


@pytest.fixture(scope="module")
def build(request):
    """(O, VARIANT) of the build the plugin names; the static links need gcc or clang."""
    b = os.path.normpath(request.config.getoption("--ehconf-build"))
    variant = os.path.basename(b)
    return os.path.dirname(b) or ".", variant if variant in ("gcc", "clang") else "gcc"


@pytest.fixture(scope="module")
def tree(build, tmp_path_factory):
    """`make kselftest-tar INSTALL_PATH=<tmp>` (which installs first): the tree's path."""
    o, variant = build
    inst = str(tmp_path_factory.mktemp("kselftest") / "install")
    p = subprocess.run(["make", "-C", REPO, "-j2", f"O={o}", f"VARIANT={variant}",
                        f"INSTALL_PATH={inst}", "kselftest-tar"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=make_env(), timeout=900)
    assert p.returncode == 0, f"make kselftest-tar failed:\n{p.stdout[-4000:]}"
    return inst


# --- the layout ---------------------------------------------------------------------------

def elf_info(path):
    """(bits, static) of an ELF file: static = no PT_INTERP program header."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x7fELF", f"{path} is not an ELF file"
    bits = {1: 32, 2: 64}[data[4]]
    assert data[5] == 1, "little-endian expected"
    if bits == 64:
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    else:
        phoff, = struct.unpack_from("<I", data, 0x1C)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x2A)
    types = [struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)]
    return bits, 3 not in types  # PT_INTERP = 3


def m32_static_links():
    src = "int main(void) { return 0; }\n"
    p = subprocess.run(["gcc", "-m32", "-static", "-x", "c", "-o", os.devnull, "-"], input=src,
                       text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode == 0


def test_tree_has_the_layout_of_a_kselftest_install(tree, build):
    runner_src = os.path.join(REPO, build[0], "kselftest", "runner")
    assert os.access(os.path.join(tree, "run_kselftest.sh"), os.X_OK)
    assert os.access(os.path.join(tree, "kselftest", "runner.sh"), os.R_OK)
    # Every file of the source package's kselftest/ folder (runner.sh and what it sources),
    # byte for byte: taken from the package, not written by ehconf.
    shipped = sorted(os.listdir(os.path.join(runner_src, "kselftest")))
    assert "runner.sh" in shipped and "prefix.pl" in shipped
    assert sorted(os.listdir(os.path.join(tree, "kselftest"))) == shipped
    for rel in ["run_kselftest.sh"] + [f"kselftest/{f}" for f in shipped]:
        with open(os.path.join(tree, rel), "rb") as a, open(os.path.join(runner_src, rel), "rb") as b:
            assert a.read() == b.read(), f"{rel} differs from the kernel source package's"
    for f in ("settings", "config", "kselftest-list.txt"):
        where = tree if f == "kselftest-list.txt" else os.path.join(tree, TARGET)
        assert os.path.getsize(os.path.join(where, f)) > 0, f


def test_the_runner_files_are_never_committed():
    """run_kselftest.sh and runner.sh come from the kernel source package at build time."""
    found = []
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in (".git", "build") and not d.startswith(".")]
        found += [os.path.join(root, f) for f in files
                  if f in ("run_kselftest.sh", "runner.sh", "prefix.pl", "ktap_helpers.sh")]
    assert found == []


def test_every_case_binary_is_static_and_the_32bit_probe_is_there_where_multilib_is(tree):
    d = os.path.join(tree, TARGET)
    for case in kernel_cases():
        path = os.path.join(d, case)
        assert os.access(path, os.X_OK), f"{case} not installed"
        assert elf_info(path) == (64, True), f"{case} is not a static 64-bit program"
    probe = os.path.join(d, "kernel_compat32.m32")
    if m32_static_links():
        assert elf_info(probe) == (32, True)
    else:
        assert not os.path.exists(probe)


def test_kselftest_list_names_every_kernel_case(tree):
    lines = read(os.path.join(tree, "kselftest-list.txt")).splitlines()
    assert lines == [f"{TARGET}:{c}" for c in kernel_cases()]
    p = subprocess.run([os.path.join(tree, "run_kselftest.sh"), "-l"], stdout=subprocess.PIPE,
                       text=True, timeout=60)
    assert p.stdout.splitlines() == lines


def test_installing_into_another_kselftest_tree_keeps_its_collections(build, tmp_path):
    """INSTALL_PATH may be a kernel kselftest install: its other collections stay listed,
    and a second install does not list ehconf's cases twice."""
    o, variant = build
    inst = tmp_path / "merged"
    inst.mkdir()
    (inst / "kselftest-list.txt").write_text("user_events:abi_test\nuser_events:dyn_test\n")
    for _ in range(2):
        p = subprocess.run(["make", "-C", REPO, "-j2", f"O={o}", f"VARIANT={variant}",
                            f"INSTALL_PATH={inst}", "kselftest-install"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=make_env(), timeout=900)
        assert p.returncode == 0, p.stdout[-3000:]
    assert (inst / "kselftest-list.txt").read_text().splitlines() == \
        ["user_events:abi_test", "user_events:dyn_test"] + [f"{TARGET}:{c}" for c in kernel_cases()]


def test_settings_timeout_is_at_least_the_guest_runners_budget(tree):
    """settings holds timeout=N; the guest runner gives one case binary T_CASE seconds."""
    text = read(os.path.join(tree, TARGET, "settings"))
    m = re.fullmatch(r"timeout=(\d+)\n", text)
    assert m, text
    t_case = int(re.search(r"^T_CASE = (\d+)", read(os.path.join(REPO, "harness", "vm", "guest_run.py")),
                           re.M).group(1))
    assert int(m.group(1)) >= t_case


def test_the_tarball_holds_the_tree(tree):
    with tarfile.open(os.path.join(tree, "kselftest-packages", "kselftest.tar.gz")) as t:
        names = {n.lstrip("./") for n in t.getnames()}
    want = {"run_kselftest.sh", "kselftest/runner.sh", "kselftest-list.txt",
            f"{TARGET}/settings", f"{TARGET}/config"} | {f"{TARGET}/{c}" for c in kernel_cases()}
    assert want <= names
    assert not any(n.startswith("kselftest-packages") for n in names)


# --- config: one list, in vm/config.fragment ---------------------------------------------

def fragment_block(text):
    """The option lines between the kselftest markers of a config fragment."""
    lines = text.splitlines()
    opens = [i for i, l in enumerate(lines) if l.startswith(OPEN_MARK)]
    closes = [i for i, l in enumerate(lines) if l.startswith(CLOSE_MARK)]
    assert len(opens) == 1 and len(closes) == 1 and opens[0] < closes[0], \
        "vm/config.fragment needs one '# >>> kselftest config' ... '# <<< kselftest config' block"
    return [l for l in lines[opens[0] + 1:closes[0]] if CONFIG_LINE.match(l)]


def config_drift(config_text, fragment_text):
    """What differs between an installed `config` and the fragment's block ([] = nothing)."""
    block, config = fragment_block(fragment_text), config_text.splitlines()
    return ([f"only in vm/config.fragment: {l}" for l in block if l not in config]
            + [f"only in config: {l}" for l in config if l not in block]
            + (["same options in another order"] if sorted(block) == sorted(config)
               and block != config else []))


def test_config_is_exactly_the_fragments_kselftest_block(tree):
    drift = config_drift(read(os.path.join(tree, TARGET, "config")), read(FRAGMENT))
    assert drift == [], "\n".join(drift)


def test_an_option_added_to_one_side_only_is_drift():
    frag = read(FRAGMENT)
    config = "\n".join(fragment_block(frag)) + "\n"
    assert config_drift(config, frag) == []
    assert config_drift(config + "CONFIG_KPROBES=y\n", frag) == ["only in config: CONFIG_KPROBES=y"]
    planted = frag.replace(CLOSE_MARK, "CONFIG_KPROBES=y\n" + CLOSE_MARK)
    assert config_drift(config, planted) == ["only in vm/config.fragment: CONFIG_KPROBES=y"]


def test_every_option_a_kernel_case_names_is_in_the_config():
    """A case that says "kernel lacks CONFIG_X" needs X: the kselftest config must have it."""
    block = {l.split("=")[0] for l in fragment_block(read(FRAGMENT)) if not l.startswith("#")}
    named = set()
    for f in os.listdir(os.path.join(REPO, "cases")):
        if f.startswith("kernel_") or f == "user_events_abi.h":
            named |= set(re.findall(r"CONFIG_[A-Z0-9_]+", read(os.path.join(REPO, "cases", f))))
    assert "CONFIG_USER_EVENTS" in named
    assert sorted(named - block) == []


# --- each program decides alone -------------------------------------------------------------

def perf_tests_without_need_perf(text):
    """The TESTs of a case source that open a perf event (directly or through a helper
    of the same file) but do not call NEED_PERF()."""
    # Top-level functions and TESTs: a header line, then a body up to a "}" line.
    bodies = {}
    for m in re.finditer(r"^(?:TEST\((\w+)\)|[a-z][^\n;]*?\b(\w+)\([^;\n]*\)?[^;\n]*)\n"
                         r"(?:[^\n]*\n)*?\{\n(.*?)^\}", text, re.M | re.S):
        name = "TEST " + m.group(1) if m.group(1) else m.group(2)
        bodies[name] = m.group(3)
    assert any(n.startswith("TEST ") for n in bodies), "no TEST found"
    uses = {n for n, b in bodies.items() if any(c + "(" in b for c in PERF_CALLS)}
    grew = True
    while grew:
        more = {n for n, b in bodies.items() if n not in uses and any(
            re.search(rf"\b{re.escape(u)}\(", b) for u in uses if not u.startswith("TEST "))}
        uses |= more
        grew = bool(more)
    return [n[5:] for n in sorted(uses) if n.startswith("TEST ") and "NEED_PERF();" not in bodies[n]]


def test_every_perf_test_says_need_perf():
    """A TEST that opens a perf event calls NEED_PERF(), so it SKIPs where
    perf_event_open is not allowed instead of failing."""
    missing = [f"{c}: {t}" for c in kernel_cases()
               for t in perf_tests_without_need_perf(read(os.path.join(REPO, "cases", c + ".c")))]
    assert missing == []


def test_the_need_perf_check_follows_helpers():
    text = """static int open_it(long id)
{
    return perf_open_tracepoint(id, 0, false);
}

static void outer(void)
{
    open_it(1);
}

TEST(A_uses_perf_through_two_helpers)
{
    NEED_USER_EVENTS();
    outer();
}

TEST(B_checks)
{
    NEED_USER_EVENTS();
    NEED_PERF();
    open_it(2);
}

TEST(C_no_perf)
{
    NEED_USER_EVENTS();
}
"""
    assert perf_tests_without_need_perf(text) == ["A_uses_perf_through_two_helpers"]


def case_tests(case):
    return re.findall(r"^TEST\((\w+)\)", read(os.path.join(REPO, "cases", case + ".c")), re.M)


def test_run_kselftest_on_this_machine_skips_every_test_and_fails_none(tree):
    """This machine's kernel has no user_events: every program exits 4 (KSFT_SKIP), so the
    runner reports "ok N ... # SKIP"; every test inside says why; run_kselftest.sh
    itself exits 0 (kselftest reports results in the TAP, not in its exit status)."""
    if os.path.exists(UE_DATA):
        pytest.skip(f"this machine has {UE_DATA}: the cases would really run")
    p = subprocess.run([os.path.join(tree, "run_kselftest.sh")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    out = p.stdout
    assert p.returncode == 0, out[-3000:]
    assert "not ok" not in out, out[-3000:]
    cases = kernel_cases()
    assert out.startswith("TAP version 13\n1..%d\n" % len(cases))
    outer = re.findall(r"^ok (\d+) selftests: (\S+): (\S+)(.*)$", out, re.M)
    assert [(int(n), t, c, rest) for n, t, c, rest in outer] == \
        [(i + 1, TARGET, c, " # SKIP") for i, c in enumerate(cases)]
    # The programs' own KTAP, prefixed "# " by the runner, in list order.
    inner = re.findall(r"^# ok \d+ global\.(\w+) # SKIP (.*)$", out, re.M)
    assert [t for t, _ in inner] == [t for c in cases for t in case_tests(c)]
    assert all(why.strip() for _, why in inner), "a SKIP without a reason"


def can_fake_tracefs():
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("setpriv"):
        return False
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                          stderr=subprocess.DEVNULL).returncode == 0


def run_in_fake_tracefs(tree, case, setpriv):
    """The installed `case` with a stand-in user_events_data (an empty file on a tmpfs over
    /sys/kernel/tracing, in a mount namespace of its own: the machine's stays untouched),
    under `setpriv ARGS`: (exit status, KTAP)."""
    src = os.path.join(tree, TARGET, case)
    script = ('set -e; mount -t tmpfs -o mode=0755 ehconf /sys/kernel/tracing; '
              ': > /sys/kernel/tracing/user_events_data; '
              'install -m 755 "$1" /sys/kernel/tracing/case; shift; '
              'exec setpriv "$@" /sys/kernel/tracing/case')
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                        "sh", src] + setpriv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    return p.returncode, p.stdout


@pytest.mark.skipif(not can_fake_tracefs(), reason="needs root and unshare --mount")
def test_not_root_skips_every_test(tree):
    rc, out = run_in_fake_tracefs(tree, "kernel_registration",
                                  ["--reuid=65534", "--regid=65534", "--clear-groups"])
    results = re.findall(r"^(ok|not ok) \d+ global\.(\w+)(.*)$", out, re.M)
    assert [t for _, t, _ in results] == case_tests("kernel_registration"), out[-2000:]
    assert all(w == "ok" and r.startswith(" # SKIP not root") for w, _, r in results), out[-2000:]
    assert rc == 4


@pytest.mark.skipif(not can_fake_tracefs(), reason="needs root and unshare --mount")
def test_no_perf_permission_skips_the_perf_tests(tree):
    with open("/proc/sys/kernel/perf_event_paranoid", encoding="ascii") as f:
        if int(f.read()) <= -1:
            pytest.skip("kernel.perf_event_paranoid is -1: perf needs no capability here")
    # kernel_write: every test opens a perf event.
    drop = "-perfmon,-sys_admin"
    rc, out = run_in_fake_tracefs(tree, "kernel_write", [f"--inh-caps={drop}", f"--bounding-set={drop}"])
    results = re.findall(r"^(ok|not ok) \d+ global\.(\w+)(.*)$", out, re.M)
    assert [t for _, t, _ in results] == case_tests("kernel_write"), out[-2000:]
    assert all(w == "ok" and r.startswith(" # SKIP no permission for perf_event_open")
               for w, _, r in results), out[-2000:]
    assert rc == 4
