# install.ps1 (and the completion script peaks prints) keep to what Windows PowerShell 5.1 has:
# PowerShell's own parser reads them and Compat51.ps1 lists every construct PowerShell 7 added.
# Each construct planted into a copy of install.ps1 must be caught, so the check is known to work.

BeforeAll {
  . (Join-Path $PSScriptRoot 'Helpers.ps1')
  . (Join-Path $PSScriptRoot 'Compat51.ps1')

  # A copy of install.ps1 with one line added inside its script block.
  function New-PlantedCopy([string]$Line) {
    $text = Get-Content -Raw -LiteralPath $Fixture.installer
    $anchor = "  `$ManifestName = '.install-manifest'"
    $text.Contains($anchor) | Should -BeTrue -Because 'the line the plants go after must exist'
    $path = Join-Path $TestDrive "planted-$([Guid]::NewGuid().ToString('N')).ps1"
    Set-Content -LiteralPath $path -Value $text.Replace($anchor, "$anchor`n  $Line") -NoNewline
    return $path
  }
}

Describe 'Windows PowerShell 5.1 compatibility' {
  It 'install.ps1 uses nothing that PowerShell 7 added' {
    Get-Ps7OnlyConstruct $Fixture.installer | Should -BeNullOrEmpty
  }

  It 'the completion script peaks prints uses nothing that PowerShell 7 added' {
    Get-Ps7OnlyConstruct $Fixture.completions | Should -BeNullOrEmpty
  }

  It 'the guarded $IsWindows in install.ps1 passes, an unguarded one does not' {
    (Get-Content -Raw -LiteralPath $Fixture.installer) | Should -Match 'PSEdition -ne .Core.\) -or \$IsWindows'
    $found = Get-Ps7OnlyConstruct (New-PlantedCopy 'if ($IsLinux) { $x = 1 }')
    $found | Should -HaveCount 1
    $found[0] | Should -Match '\$IsLinux without a PSEdition guard'
  }

  It 'catches <What> planted into a copy of install.ps1' -ForEach @(
    @{ What = '??'; Line = '$a = $env:PEAKS_HOME ?? ''x'''; Expect = 'null-coalescing operator' }
    @{ What = '??='; Line = '$a ??= 1'; Expect = 'null-coalescing assignment' }
    @{ What = '?.'; Line = '$n = ${Archive}?.Length'; Expect = 'null-conditional member access' }
    @{ What = '?[]'; Line = '$n = ${Unexpected}?[0]'; Expect = 'null-conditional index' }
    @{ What = 'a ternary'; Line = '$a = $Yes ? 1 : 2'; Expect = 'ternary' }
    @{ What = '&&'; Line = 'Get-Date && Get-Date'; Expect = 'pipeline chain operator &&' }
    @{ What = '||'; Line = 'Get-Date || Get-Date'; Expect = 'pipeline chain operator \|\|' }
    @{ What = 'ForEach-Object -Parallel'; Line = '1..2 | ForEach-Object -Parallel { $_ }'; Expect = 'ForEach-Object -Parallel' }
    @{ What = '% -Parallel'; Line = '1..2 | % -Parallel { $_ }'; Expect = 'ForEach-Object -Parallel' }
    @{ What = 'an unguarded $IsWindows'; Line = 'if ($IsWindows) { $a = 1 }'; Expect = '\$IsWindows without a PSEdition guard' }
    @{ What = 'Get-Error'; Line = 'Get-Error'; Expect = 'the command Get-Error' }
    @{ What = 'Test-Json'; Line = 'Test-Json -Json ''{}'''; Expect = 'the command Test-Json' }
    @{ What = 'ConvertFrom-Json -AsHashtable'; Line = '$h = ''{}'' | ConvertFrom-Json -AsHashtable'; Expect = 'ConvertFrom-Json -AsHashtable' }
    @{ What = '-SkipCertificateCheck'; Line = 'Invoke-WebRequest -Uri $u -SkipCertificateCheck'; Expect = '-SkipCertificateCheck' }
    @{ What = 'Join-Path with three children'; Line = '$p = Join-Path $HOME a b'; Expect = 'Join-Path with more than two' }
    @{ What = 'Get-Content -AsByteStream'; Line = '$b = Get-Content -AsByteStream -LiteralPath $a'; Expect = '-AsByteStream' }
    @{ What = '-replace with a script block'; Line = '$a = ''x'' -replace ''x'', { ''y'' }'; Expect = '-replace with a script block' }
    @{ What = 'a `u{} escape'; Line = '$a = "`u{2713}"'; Expect = 'escape' }
  ) {
    $found = Get-Ps7OnlyConstruct (New-PlantedCopy $Line)
    $found | Should -HaveCount 1 -Because ($found -join '; ')
    $found[0] | Should -Match $Expect
  }
}
