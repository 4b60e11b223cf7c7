# Runs Pester test files and writes their counts and results as JSON, for tests/pwsh/harness.ts.
#   pwsh -File run_pester.ps1 <Pester.psd1> <result.json> <file.Tests.ps1>...
param(
  [Parameter(Mandatory)][string]$Pester,
  [Parameter(Mandatory)][string]$ResultFile,
  [Parameter(Mandatory, ValueFromRemainingArguments)][string[]]$Paths
)
$ErrorActionPreference = 'Stop'
if ($PSStyle) { $PSStyle.OutputRendering = 'PlainText' }
Import-Module $Pester -Force
$config = New-PesterConfiguration
$config.Run.Path = $Paths
$config.Run.PassThru = $true
$config.Output.Verbosity = 'Detailed'
$config.Output.RenderMode = 'Plaintext'
$run = Invoke-Pester -Configuration $config
$tests = @(foreach ($test in $run.Tests) {
    [ordered]@{
      name = $test.ExpandedPath
      file = Split-Path -Leaf $test.ScriptBlock.File
      result = [string]$test.Result
      error = (@($test.ErrorRecord | ForEach-Object { $_.ToString() }) -join "`n")
    }
  })
$failedContainers = @(
  foreach ($container in $run.Containers) {
    if ($container.Result -eq 'Failed' -and -not @($run.Tests | Where-Object { $_.Result -eq 'Failed' -and $_.ScriptBlock.File -eq $container.Item.FullName }).Count) {
      "$($container.Item.Name): $(@($container.ErrorRecord | ForEach-Object { $_.ToString() }) -join '; ')"
    }
  }
)
[ordered]@{
  passed = $run.PassedCount
  failed = $run.FailedCount
  skipped = $run.SkippedCount + $run.NotRunCount
  tests = $tests
  failedContainers = $failedContainers
} | ConvertTo-Json -Depth 5 | Set-Content -LiteralPath $ResultFile -Encoding utf8
