# SPDX-License-Identifier: MIT
<#
.SYNOPSIS
  ehconf on Windows: build (or take a prebuilt build/mingw), run every case under its own
  WPR recording with the project's profile (scripts/windows/ehconf.wprp), keep each as
  <case>.etl, decode it with `ehdecode --golden` and diff against golden/<case>.json as
  transport "etw"; publish the results (JUnit XML + summary). Needs an elevated prompt
  (WPR starts ETW sessions).

.DESCRIPTION
  Build:   -Prebuilt DIR  use DIR (a build/mingw tree cross-built on Linux with
                          `make VARIANT=mingw windows-build`, e.g. a CI artifact);
           -Compiler mingw run `make VARIANT=mingw windows-build` here (MSYS2/mingw-w64 make
                          and gcc on PATH; CC is overridden with -CC, default gcc).
           -Compiler msvc is refused: libeventheader is GNU C (statement expressions,
                          __atomic builtins, section attributes, pthreads); clang-cl or MSVC
                          builds are not supported.
  Unit:    every tests\tl\test_tl_*.exe and tests\windows\test_*.exe (KTAP) runs first,
           then tests\windows\runner_selftest.exe judged by harness\runner_selftest.py.
  Cases:   every <build>\cases\<case>.exe with a golden\<case>.json runs as
             wpr -start scripts\windows\ehconf.wprp!ehconf -filemode -instancename ehconf
             <case>.exe
             wpr -stop <Results>\<case>.etl -instancename ehconf
           (item case/<case>: the case's own checks; etw/<case>: the recording), then
           once more recorded compressed (wpr -stop <Results>\<case>.compressed.etl
           -instancename ehconf -compress; items case-compressed/, etw-compressed/):
           both files are compared with the same golden file.
  Decode:  with -Ehdecode PATH (an ehdecode that reads .etl, e.g. one built on Windows) and
           Python, scripts/windows/compare_etl.py decodes every <case>.etl with
           `ehdecode --golden` and compares it with golden/<case>.json as transport "etw"
           (harness/core/golden.py, the same rules as Linux): items etl-golden/<case>. Without
           it the .etl files are left for the workflow's windows-decode job, which runs the
           same script on Linux on this job's artifact.
  -TdhCheck also asks TDH (Microsoft's own TraceLogging decoder, Windows only) for every
           event's name and top-level field count in each .etl and fails on a
           disagreement with ehconf's metadata: etwcapture.exe --decode-etl --tdh-check.
           That is what etwcapture is still for; WPR records, ehdecode decodes.
  Results: <Results>\windows-junit.xml, <Results>\windows-summary.md, the .etl files, one
           line "N passed, N failed, N skipped" at the end. Exit 1 on any failure.

  NOT RUN YET: written for a GitHub-hosted windows-2022 runner (admin, wpr.exe in
  System32) but never executed on Windows. The cases build with mingw
  (cases/windows/case_runner.c stands in for kselftest_harness.h, one process per test)
  and pass under wine (make check-wine), but wine has no ETW and no WPR, so the capture
  half of this script has never recorded an event.
#>
param(
    [string]$Prebuilt = "",
    [ValidateSet("mingw", "msvc")] [string]$Compiler = "mingw",
    [string]$CC = "gcc",
    [string]$Results = "build\results\windows",
    [int]$TimeoutSeconds = 300,
    [string]$Ehdecode = "",
    [switch]$TdhCheck
)

$ErrorActionPreference = "Stop"
$Repo = (Resolve-Path (Join-Path $PSScriptRoot "..\..")).Path
Set-Location $Repo

function Fail-Usage([string]$msg) { Write-Host "check.ps1: $msg"; exit 2 }

# ---- build ---------------------------------------------------------------------------
if ($Prebuilt) {
    $Build = (Resolve-Path $Prebuilt).Path
} elseif ($Compiler -eq "msvc") {
    Fail-Usage "MSVC cannot build libeventheader (GNU C: statement expressions, __atomic, section attributes, pthreads). Use -Compiler mingw or -Prebuilt."
} else {
    Write-Host "check.ps1: make VARIANT=mingw windows-build (CC=$CC)"
    & make VARIANT=mingw "CC=$CC" windows-build
    if ($LASTEXITCODE -ne 0) { Write-Host "check.ps1: build failed"; exit 1 }
    $Build = Join-Path $Repo "build\mingw"
}
$EtwCapture = Join-Path $Build "bin\etwcapture.exe"
if ($TdhCheck -and -not (Test-Path $EtwCapture)) { Fail-Usage "-TdhCheck: $EtwCapture not found" }
$WprProfile = Join-Path $Repo "scripts\windows\ehconf.wprp"
$Wpr = (Get-Command "wpr.exe" -ErrorAction SilentlyContinue)
if (-not $Wpr) { Fail-Usage "wpr.exe not found (Windows Performance Recorder: System32 on Windows 10+)" }
New-Item -ItemType Directory -Force -Path $Results | Out-Null
$Results = (Resolve-Path $Results).Path

$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
    Write-Host "check.ps1: WARNING not elevated: StartTraceW will fail with error 5"
}

$python = $null
foreach ($p in @("python", "python3", "py")) {
    if (Get-Command $p -ErrorAction SilentlyContinue) { $python = $p; break }
}

$cases = New-Object System.Collections.Generic.List[object]
function Add-Result([string]$name, [string]$status, [string]$message, [double]$seconds) {
    $cases.Add([pscustomobject]@{ Name = $name; Status = $status; Message = $message; Seconds = $seconds })
    Write-Host ("{0,-6} {1}{2}" -f $status, $name, $(if ($message) { ": " + ($message -split "`n")[0] } else { "" }))
}

# Runs a program with a hang guard; returns @{ Code; Out; Err; TimedOut }.
function Invoke-Guarded([string]$exe, [string[]]$arguments) {
    $psi = New-Object System.Diagnostics.ProcessStartInfo
    $psi.FileName = $exe
    $psi.Arguments = ($arguments | ForEach-Object { '"' + ($_ -replace '"', '\"') + '"' }) -join " "
    $psi.UseShellExecute = $false
    $psi.RedirectStandardOutput = $true
    $psi.RedirectStandardError = $true
    $proc = [System.Diagnostics.Process]::Start($psi)
    $outTask = $proc.StandardOutput.ReadToEndAsync()
    $errTask = $proc.StandardError.ReadToEndAsync()
    $timedOut = -not $proc.WaitForExit($TimeoutSeconds * 1000)
    if ($timedOut) { try { $proc.Kill() } catch {} }
    return @{ Code = $(if ($timedOut) { -1 } else { $proc.ExitCode }); Out = $outTask.Result; Err = $errTask.Result; TimedOut = $timedOut }
}

# ---- unit tests (platform-neutral encoder/decoder under the Windows ABI) --------------
$unitExes = @(Get-ChildItem -Path (Join-Path $Build "tests\tl") -Filter "test_tl_*.exe" -ErrorAction SilentlyContinue)
$unitExes += @(Get-ChildItem -Path (Join-Path $Build "tests\windows") -Filter "test_*.exe" -ErrorAction SilentlyContinue)
$unitExes | ForEach-Object {
    $t0 = Get-Date
    $r = Invoke-Guarded $_.FullName @()
    $secs = ((Get-Date) - $t0).TotalSeconds
    $r.Out | Set-Content -Encoding utf8 (Join-Path $Results ($_.BaseName + ".log"))
    if ($r.Code -eq 0) { Add-Result "unit/$($_.BaseName)" "PASS" "" $secs }
    else { Add-Result "unit/$($_.BaseName)" "FAIL" ("exit $($r.Code)`n" + $r.Out + $r.Err) $secs }
}

# ---- the case runner itself (cases/windows/case_runner.c) ------------------------------
# Its own tests fail on purpose; harness/kernel/windows_runner_selftest.py knows what kselftest would
# report for each (the same check make check-wine makes under wine).
$selftest = Join-Path $Build "tests\windows\runner_selftest.exe"
if (-not (Test-Path $selftest)) {
    Add-Result "runner/selftest" "FAIL" "$selftest not found" 0
} elseif (-not $python) {
    Add-Result "runner/selftest" "SKIP" "no Python on PATH to judge runner_selftest.exe" 0
} else {
    $t0 = Get-Date
    $out = & $python (Join-Path $Repo "harness\runner_selftest.py") $selftest 2>&1 | Out-String
    $secs = ((Get-Date) - $t0).TotalSeconds
    $out | Set-Content -Encoding utf8 (Join-Path $Results "runner_selftest.log")
    foreach ($line in ($out -split "`r?`n")) {
        if ($line -match '^(PASS|FAIL) (runner/\S+)(: (.*))?$') {
            Add-Result $Matches[2] $Matches[1] $Matches[4] $secs
        }
    }
}

# ---- cases under WPR ------------------------------------------------------------------
# The providers of a case: the "n" prefixes (before ':') of its golden events.
function Get-Providers([string]$goldenPath) {
    $names = @{}
    foreach ($line in Get-Content -Encoding utf8 $goldenPath) {
        if ($line -match '^\{\s*"n":\s*"([^":]+):') { $names[$Matches[1]] = 1 }
    }
    return @($names.Keys)
}

# wpr.exe with its output captured; returns @{ Code; Out }. ErrorActionPreference is
# relaxed around it: WPR writes notes to stderr, which "Stop" would turn into a throw.
function Invoke-Wpr([string[]]$wprArgs) {
    $saved = $ErrorActionPreference
    $ErrorActionPreference = "Continue"
    try {
        $text = & wpr.exe @wprArgs 2>&1 | Out-String
        return @{ Code = $LASTEXITCODE; Out = $text.Trim() }
    } finally {
        $ErrorActionPreference = $saved
    }
}

$Instance = "ehconf"
# A recording left by an earlier, interrupted run would make -start fail.
Invoke-Wpr @("-cancel", "-instancename", $Instance) | Out-Null

$caseDir = Join-Path $Build "cases"
$caseExes = @(Get-ChildItem -Path $caseDir -Filter "*.exe" -ErrorAction SilentlyContinue)
if ($caseExes.Count -eq 0) {
    Add-Result "cases" "FAIL" "no case binaries in $caseDir (make VARIANT=mingw windows-build builds them)" 0
}
# Every case is recorded twice: as WPR writes it, and with `wpr -stop ... -compress`, which
# writes compressed buffers (Documentation/etl-format.md §9) as the relogger, xperf -compress
# and UIforETW do. Both files are decoded against the same golden file (compare_etl.py:
# <case>.etl and <case>.compressed.etl; items etw/ and etw-compressed/).
foreach ($exe in $caseExes) {
    $case = $exe.BaseName
    $golden = Join-Path $Repo "golden\$case.json"
    if (-not (Test-Path $golden)) { Add-Result "etw/$case" "SKIP" "no golden\$case.json" 0; continue }
    foreach ($compress in @($false, $true)) {
        $sfx = if ($compress) { "-compressed" } else { "" }
        $name = if ($compress) { "$case.compressed" } else { $case }
        $etl = Join-Path $Results "$name.etl"
        Remove-Item -Force -ErrorAction SilentlyContinue $etl
        $t0 = Get-Date
        $start = Invoke-Wpr @("-start", "$WprProfile!ehconf", "-filemode", "-instancename", $Instance)
        if ($start.Code -ne 0) {
            Add-Result "etw$sfx/$case" "FAIL" ("wpr -start exit $($start.Code): " + $start.Out) 0
            continue
        }
        $r = Invoke-Guarded $exe.FullName @()
        $stopArgs = @("-stop", $etl, "-instancename", $Instance)
        if ($compress) { $stopArgs += "-compress" }
        $stop = Invoke-Wpr $stopArgs
        $stopCode = $stop.Code
        $secs = ((Get-Date) - $t0).TotalSeconds
        ($r.Out + "`n" + $r.Err + "`n" + $start.Out + "`n" + $stop.Out) | Set-Content -Encoding utf8 (Join-Path $Results "$name.log")
        if ($r.TimedOut) { Add-Result "case$sfx/$case" "FAIL" "timed out after $TimeoutSeconds s" $secs }
        elseif ($r.Code -ne 0) { Add-Result "case$sfx/$case" "FAIL" "the case itself failed, exit $($r.Code) (see $name.log)" $secs }
        else { Add-Result "case$sfx/$case" "PASS" "" $secs }
        if ($stopCode -ne 0 -or -not (Test-Path $etl)) {
            Add-Result "etw$sfx/$case" "FAIL" ("wpr -stop exit $($stopCode): " + $stop.Out) $secs
            continue
        }
        Add-Result "etw$sfx/$case" "PASS" "" $secs
        if ($TdhCheck -and -not $compress) {
            $capArgs = @()
            foreach ($p in (Get-Providers $golden)) { $capArgs += @("-p", $p) }
            $capArgs += @("--tdh-check", "-o", (Join-Path $Results "$case.tdh.json"), "--decode-etl", $etl)
            $t = Invoke-Guarded $EtwCapture $capArgs
            if ($t.Code -eq 0) { Add-Result "tdh/$case" "PASS" "" 0 }
            else { Add-Result "tdh/$case" "FAIL" ("etwcapture --tdh-check exit $($t.Code): " + $t.Err) 0 }
        }
    }
}

# ---- decode the .etl files and compare with golden/ --------------------------------------
if (-not $Ehdecode) {
    Add-Result "etl-golden" "SKIP" "no -Ehdecode: the .etl files are decoded by the windows-decode job (scripts/windows/compare_etl.py on Linux)" 0
} elseif (-not $python) {
    Add-Result "etl-golden" "FAIL" "-Ehdecode needs Python on PATH for scripts/windows/compare_etl.py" 0
} else {
    $out = & $python (Join-Path $Repo "scripts\windows\compare_etl.py") --ehdecode $Ehdecode $Results 2>&1 | Out-String
    $out | Set-Content -Encoding utf8 (Join-Path $Results "compare_etl.log")
    foreach ($line in ($out -split "`r?`n")) {
        if ($line -match '^(PASS|FAIL|SKIP) (\S+): (.*)$') { Add-Result $Matches[2] $Matches[1] $Matches[3] 0 }
    }
}

# ---- publish ----------------------------------------------------------------------------
$pass = @($cases | Where-Object Status -eq "PASS").Count
$fail = @($cases | Where-Object Status -eq "FAIL").Count
$skip = @($cases | Where-Object Status -eq "SKIP").Count
$xml = New-Object System.Text.StringBuilder
[void]$xml.AppendLine('<?xml version="1.0" encoding="UTF-8"?>')
[void]$xml.AppendLine("<testsuite name=`"ehconf-windows`" tests=`"$($cases.Count)`" failures=`"$fail`" skipped=`"$skip`">")
foreach ($c in $cases) {
    $n = [System.Security.SecurityElement]::Escape($c.Name)
    [void]$xml.Append("  <testcase classname=`"windows`" name=`"$n`" time=`"$([math]::Round($c.Seconds, 3))`"")
    if ($c.Status -eq "PASS") { [void]$xml.AppendLine(" />"); continue }
    [void]$xml.AppendLine(">")
    $m = [System.Security.SecurityElement]::Escape($c.Message)
    if ($c.Status -eq "FAIL") { [void]$xml.AppendLine("    <failure message=`"failed`">$m</failure>") }
    else { [void]$xml.AppendLine("    <skipped message=`"$m`" />") }
    [void]$xml.AppendLine("  </testcase>")
}
[void]$xml.AppendLine("</testsuite>")
$xml.ToString() | Set-Content -Encoding utf8 (Join-Path $Results "windows-junit.xml")

$md = @("# ehconf on Windows (ETW, recorded with WPR)", "", "| test | result | note |", "|---|---|---|")
foreach ($c in $cases) { $md += "| $($c.Name) | $($c.Status) | $((($c.Message -split "`n")[0]) -replace '\|', '/') |" }
$md += ""
$md += "$pass passed, $fail failed, $skip skipped"
$md | Set-Content -Encoding utf8 (Join-Path $Results "windows-summary.md")
if ($env:GITHUB_STEP_SUMMARY) { $md | Add-Content -Encoding utf8 $env:GITHUB_STEP_SUMMARY }

Write-Host "$pass passed, $fail failed, $skip skipped"
if ($fail -gt 0) { exit 1 }
exit 0
