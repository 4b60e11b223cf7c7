# The status line command peaks writes into Claude Code's settings runs as written in PowerShell
# (and in cmd.exe on Windows): a stub `peaks` on PATH records the arguments it got.

BeforeAll {
  . (Join-Path $PSScriptRoot 'Helpers.ps1')

  function New-StubBox {
    $box = New-Sandbox
    $stubs = Join-Path $box.Root 'bin'
    New-Item -ItemType Directory -Path $stubs | Out-Null
    $log = Join-Path $box.Root 'peaks-args.txt'
    if ($Fixture.windows) {
      Set-Content -LiteralPath (Join-Path $stubs 'peaks.cmd') -Value "@echo off`r`n(for %%a in (%*) do @echo %%a) > `"%PEAKS_STUB_LOG%`""
    } else {
      Set-Content -LiteralPath (Join-Path $stubs 'peaks') -Value "#!/bin/sh`nprintf '%s\n' `"`$@`" > `"`$PEAKS_STUB_LOG`""
      & chmod 755 (Join-Path $stubs 'peaks')
    }
    $box | Add-Member -NotePropertyName Log -NotePropertyValue $log
    $box | Add-Member -NotePropertyName Environment -NotePropertyValue @{
      PATH = $stubs + [IO.Path]::PathSeparator + $env:PATH
      PEAKS_STUB_LOG = $log
    }
    return $box
  }
}

Describe 'the status line command' {
  It 'is the plain words "peaks statusline render"' {
    $Fixture.statusLineCommand | Should -Be 'peaks statusline render'
  }

  It 'runs under pwsh -Command as written' {
    $box = New-StubBox
    $result = Invoke-Shell -Box $box -Shell $Fixture.pwsh -Arguments '-Command', $Fixture.statusLineCommand -Environment $box.Environment
    $result.Code | Should -Be 0 -Because $result.Stderr
    @(Get-Content -LiteralPath $box.Log) | Should -Be @('statusline', 'render')
  }

  It 'runs under cmd.exe as written' -Skip:(-not $Fixture.windows) {
    $box = New-StubBox
    $info = [Diagnostics.ProcessStartInfo]::new('cmd.exe')
    $info.ArgumentList.Add('/d')
    $info.ArgumentList.Add('/c')
    $info.ArgumentList.Add($Fixture.statusLineCommand)
    $info.UseShellExecute = $false
    foreach ($key in $box.Environment.Keys) { $info.Environment[$key] = $box.Environment[$key] }
    $process = [Diagnostics.Process]::Start($info)
    $process.WaitForExit()
    $process.ExitCode | Should -Be 0
    @(Get-Content -LiteralPath $box.Log | ForEach-Object { $_.Trim() }) | Should -Be @('statusline', 'render')
  }
}
