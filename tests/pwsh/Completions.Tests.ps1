# `peaks completions powershell` loaded into a real pwsh session: TabExpansion2 completes
# commands, subcommands, flags and flag values. The harness generates the script by running peaks
# with the binary's permissions; a stub `peaks` on PATH gives the completer a command to serve.

BeforeAll {
  . (Join-Path $PSScriptRoot 'Helpers.ps1')
  $stubs = Join-Path $TestDrive 'bin'
  New-Item -ItemType Directory -Path $stubs | Out-Null
  if ($Fixture.windows) {
    Set-Content -LiteralPath (Join-Path $stubs 'peaks.cmd') -Value '@echo off'
  } else {
    Set-Content -LiteralPath (Join-Path $stubs 'peaks') -Value "#!/bin/sh`nexit 0"
    & chmod 755 (Join-Path $stubs 'peaks')
  }
  $env:PATH = $stubs + [IO.Path]::PathSeparator + $env:PATH
  # An empty working folder: where the completer offers nothing, PowerShell falls back to file names.
  Set-Location (New-Item -ItemType Directory -Path (Join-Path $TestDrive 'empty')).FullName
  . $Fixture.completions

  function Complete([string]$Line) {
    $result = TabExpansion2 -inputScript $Line -cursorColumn $Line.Length
    return @($result.CompletionMatches | ForEach-Object { $_.CompletionText })
  }
}

Describe 'peaks completions powershell' {
  It 'registers for peaks and peaks.exe, and peaks resolves to the stub' {
    (Get-Command peaks).CommandType | Should -Be 'Application'
    Get-Content -Raw $Fixture.completions | Should -Match "Register-ArgumentCompleter -Native -CommandName 'peaks', 'peaks.exe'"
  }

  It 'completes the top-level commands' {
    $words = Complete 'peaks '
    foreach ($word in 'skills', 'completions', 'doctor', 'statusline') { $words | Should -Contain $word }
  }

  It 'completes <Line> to <Expected>' -ForEach @(
    @{ Line = 'peaks ski'; Expected = @('skill', 'skills') }
    @{ Line = 'peaks skills '; Expected = @('install', 'uninstall', 'list', 'verify') }
    @{ Line = 'peaks skills ins'; Expected = @('install') }
    @{ Line = 'peaks skills install --ag'; Expected = @('--agent') }
    @{ Line = 'peaks skills install --agent '; Expected = @('claude-code', 'codex', 'copilot', 'cursor', 'gemini', 'lingma', 'opencode', 'qoder', 'qwen', 'trae', 'all') }
    @{ Line = 'peaks skills install --agent cod'; Expected = @('codex') }
    @{ Line = 'peaks skills install --agent=tr'; Expected = @('--agent=trae') }
    @{ Line = 'peaks --json skills list --scope '; Expected = @('project', 'user', 'all') }
    @{ Line = 'peaks skill presence:s'; Expected = @('presence:set') }
    @{ Line = 'peaks completions '; Expected = @('bash', 'zsh', 'fish', 'powershell') }
    @{ Line = 'peaks.exe completions p'; Expected = @('powershell') }
    @{ Line = 'peaks nonsense '; Expected = @() }
  ) {
    Complete $Line | Should -Be $Expected
  }

  It 'completes the flags of a command and the global ones' {
    $words = Complete 'peaks skills install --'
    foreach ($flag in '--agent', '--json') { $words | Should -Contain $flag }
    Complete 'peaks --v' | Should -Contain '--version'
  }
}
