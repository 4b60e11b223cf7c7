# install.ps1 under a real PowerShell, against archives release/package.ts made (tests/pwsh/harness.ts
# lays them out): from -Archive, from a file:// mirror and a loopback HTTP server, and through
# `irm ... | iex`. The user PATH goes to a file (PEAKS_TEST_PATH_STORE), never to the registry.

BeforeAll {
  . (Join-Path $PSScriptRoot 'Helpers.ps1')
  $V1 = $Fixture.v1
  $V2 = $Fixture.v2
  $Exe = $Fixture.binaryName

  function Install-Release($Box, $Release, [string[]]$More = @('-NoModifyPath'), [System.Collections.IDictionary]$Environment = @{}) {
    Invoke-Installer -Box $Box -Arguments (@('-Archive', $Release.archive, '-Checksums', $Release.sums, '-Yes') + $More) -Environment $Environment
  }

  function Get-Manifest($Box) {
    return @(Get-Content -LiteralPath (Join-Path $Box.PeaksHome '.install-manifest'))
  }

  function Get-Stamps($Box) {
    $stamps = [ordered]@{}
    $root = (Resolve-Path -LiteralPath $Box.PeaksHome).Path.TrimEnd('\', '/')
    foreach ($item in Get-ChildItem -LiteralPath $root -Recurse -Force | Sort-Object FullName) {
      $stamps[$item.FullName.Substring($root.Length + 1)] = $item.LastWriteTimeUtc.Ticks
    }
    return Format-Snapshot $stamps
  }
}

Describe 'install.ps1 installs' {
  It 'from -Archive: the binary, the skills and the manifest; -NoModifyPath leaves PATH alone' {
    $box = New-Sandbox
    $result = Install-Release $box $V1
    $result.Code | Should -Be 0 -Because $result.Stderr
    $result.Stderr | Should -BeNullOrEmpty
    Get-InstalledVersion $box | Should -Be "peaks $($V1.version)"
    Get-Content -Raw (Join-Path $box.PeaksHome 'skills/peaks-fixture/SKILL.md') | Should -Be "fixture`n"
    foreach ($doc in 'LICENSE', 'README.md', 'THIRD_PARTY_LICENSES.md', '.claude-plugin/plugin.json') {
      Join-Path $box.PeaksHome $doc | Should -Exist
    }
    $manifest = Get-Manifest $box
    $manifest | Should -Contain "version=$($V1.version)"
    $manifest | Should -Contain "target=$($Fixture.target)"
    $manifest | Should -Contain "file=bin/$Exe"
    $manifest | Should -Contain 'file=skills/peaks-fixture/SKILL.md'
    $manifest | Should -Contain 'mkdir=skills'
    $box.PathStore | Should -Not -Exist
    $result.Stdout | Should -Match ([regex]::Escape("peaks is not on PATH. Add it with: `$env:PATH = '$(Join-Path $box.PeaksHome 'bin')"))
    $result.LastLine | Should -Be "Next step: cd into your project (its git repository), then run: & '$(Join-Path (Join-Path $box.PeaksHome 'bin') $Exe)' skills install"
    @(Get-ChildItem -LiteralPath $box.PeaksHome -Force -Filter '.staging*').Count | Should -Be 0
  }

  It 'the latest release, or a chosen one, from a loopback HTTP server' {
    $box = New-Sandbox
    $latest = Invoke-Installer -Box $box -Arguments '-Yes', '-NoModifyPath' -Environment @{ PEAKS_DOWNLOAD_BASE = $Fixture.baseUrl }
    $latest.Code | Should -Be 0 -Because $latest.Stderr
    $latest.Stdout | Should -Match "downloading peaks $([regex]::Escape($V1.version)) for $($Fixture.target)"
    Get-InstalledVersion $box | Should -Be "peaks $($V1.version)"
    $pinned = Invoke-Installer -Box $box -Arguments '-Version', "v$($V2.version)", '-Yes', '-NoModifyPath' -Environment @{ PEAKS_DOWNLOAD_BASE = $Fixture.baseUrl }
    $pinned.Code | Should -Be 0 -Because $pinned.Stderr
    Get-InstalledVersion $box | Should -Be "peaks $($V2.version)"
  }

  It 'from a file:// mirror' {
    $box = New-Sandbox
    $base = [Uri]::new($Fixture.mirror).AbsoluteUri
    $result = Invoke-Installer -Box $box -Arguments '-Yes', '-NoModifyPath' -Environment @{ PEAKS_DOWNLOAD_BASE = $base }
    $result.Code | Should -Be 0 -Because $result.Stderr
    Get-InstalledVersion $box | Should -Be "peaks $($V1.version)"
  }

  It 'through irm | iex, with environment variables instead of parameters' {
    $box = New-Sandbox
    $result = Invoke-Shell -Box $box -Arguments '-Command', "irm $($Fixture.installerUrl) | iex" -Environment @{
      PEAKS_DOWNLOAD_BASE = $Fixture.baseUrl
      PEAKS_VERSION = $V2.version
    }
    $result.Code | Should -Be 0 -Because $result.Stderr
    Get-InstalledVersion $box | Should -Be "peaks $($V2.version)"
    (Get-Manifest $box) | Should -Contain "version=$($V2.version)"
    # The user PATH store got the bin folder: no -NoModifyPath through iex.
    (Get-Content -Raw $box.PathStore).Trim() | Should -Be (Join-Path $box.PeaksHome 'bin')
  }

  It 'through irm | iex, an error is one clear line and a non-zero exit' {
    $box = New-Sandbox
    $result = Invoke-Shell -Box $box -Arguments '-Command', "irm $($Fixture.installerUrl) | iex" -Environment @{
      PEAKS_DOWNLOAD_BASE = $Fixture.baseUrl
      PEAKS_VERSION = '9.9.9'
    }
    $result.Code | Should -Not -Be 0
    $result.Stderr.Trim() | Should -Be "error: could not download $($Fixture.baseUrl)/download/v9.9.9/SHA256SUMS"
    Assert-NoStackDump $result
    $box.PeaksHome | Should -Not -Exist
  }
}

Describe 'install.ps1 checks SHA256SUMS before it unpacks anything' {
  It 'refuses an archive whose bytes changed, and writes nothing' {
    $box = New-Sandbox
    $copy = Copy-Release $V1 $box
    $bytes = [IO.File]::ReadAllBytes($copy.Archive)
    $bytes[$bytes.Length - 1] = $bytes[$bytes.Length - 1] -bxor 0xff
    [IO.File]::WriteAllBytes($copy.Archive, $bytes)
    $result = Invoke-Installer -Box $box -Arguments '-Archive', $copy.Archive, '-Yes'
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match "^error: checksum mismatch for $([regex]::Escape($copy.Name)) \(expected [0-9a-f]{64}, got [0-9a-f]{64}\); nothing was changed"
    Assert-NoStackDump $result
    $box.PeaksHome | Should -Not -Exist
    $box.PathStore | Should -Not -Exist
  }

  It 'refuses when SHA256SUMS was changed, and leaves an install in place untouched' {
    $box = New-Sandbox
    (Install-Release $box $V1).Code | Should -Be 0
    $before = Format-Snapshot (Get-Snapshot $box.PeaksHome)
    $copy = Copy-Release $V2 $box
    Set-Content -LiteralPath $copy.Sums -Value "$('0' * 64)  $($copy.Name)"
    $result = Invoke-Installer -Box $box -Arguments '-Archive', $copy.Archive, '-Yes', '-NoModifyPath'
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match 'checksum mismatch'
    Format-Snapshot (Get-Snapshot $box.PeaksHome) | Should -Be $before
  }

  It 'refuses a SHA256SUMS without a line for the archive' {
    $box = New-Sandbox
    $copy = Copy-Release $V1 $box
    Set-Content -LiteralPath $copy.Sums -Value "$('a' * 64)  peaks-9.9.9-$($Fixture.target)$($Fixture.archiveSuffix)"
    $result = Invoke-Installer -Box $box -Arguments '-Archive', $copy.Archive, '-Yes'
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match "has no entry for $([regex]::Escape($copy.Name)); refusing to install an unverified archive"
    $box.PeaksHome | Should -Not -Exist
  }

  It 'refuses an archive with no SHA256SUMS next to it' {
    $box = New-Sandbox
    $copy = Copy-Release $V1 $box
    Remove-Item -LiteralPath $copy.Sums
    $result = Invoke-Installer -Box $box -Arguments '-Archive', $copy.Archive, '-Yes'
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match 'no SHA256SUMS next to'
    $box.PeaksHome | Should -Not -Exist
  }

  It 'refuses a download that does not match the mirror''s SHA256SUMS' {
    $box = New-Sandbox
    $mirror = Join-Path $box.Root 'mirror'
    Copy-Item -Recurse -LiteralPath $Fixture.mirror -Destination $mirror
    $archive = Join-Path $mirror "download/v$($V1.version)/$($V1.name)"
    $bytes = [IO.File]::ReadAllBytes($archive)
    $bytes[0] = $bytes[0] -bxor 0xff
    [IO.File]::WriteAllBytes($archive, $bytes)
    $result = Invoke-Installer -Box $box -Arguments '-Version', $V1.version, '-Yes' -Environment @{ PEAKS_DOWNLOAD_BASE = [Uri]::new($mirror).AbsoluteUri }
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match 'checksum mismatch'
    $box.PeaksHome | Should -Not -Exist
  }

  It 'refuses a damaged archive even when SHA256SUMS matches it' {
    $box = New-Sandbox
    $copy = Copy-Release $V1 $box
    $bytes = [IO.File]::ReadAllBytes($copy.Archive)
    [IO.File]::WriteAllBytes($copy.Archive, $bytes[0..([int]($bytes.Length / 2))])
    $digest = (Get-FileHash -LiteralPath $copy.Archive -Algorithm SHA256).Hash.ToLowerInvariant()
    Set-Content -LiteralPath $copy.Sums -Value "$digest  $($copy.Name)"
    $result = Invoke-Installer -Box $box -Arguments '-Archive', $copy.Archive, '-Yes'
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match 'could not be unpacked \(damaged archive\?\); nothing was changed'
    Assert-NoStackDump $result
    @(Get-ChildItem -LiteralPath $box.PeaksHome -Force -ErrorAction SilentlyContinue).Count | Should -Be 0
  }
}

Describe 'install.ps1 again' {
  It 'for the same version changes nothing, not even a timestamp' {
    $box = New-Sandbox
    (Install-Release $box $V1 @()).Code | Should -Be 0
    $tree = Format-Snapshot (Get-Snapshot $box.PeaksHome)
    $stamps = Get-Stamps $box
    $store = Get-Content -Raw $box.PathStore
    $again = Install-Release $box $V1 @()
    $again.Code | Should -Be 0 -Because $again.Stderr
    $again.Stdout | Should -Match ([regex]::Escape("peaks $($V1.version) is already installed in $($box.PeaksHome); nothing to replace"))
    $again.Stdout | Should -Not -Match 'installed peaks .* into'
    Format-Snapshot (Get-Snapshot $box.PeaksHome) | Should -Be $tree
    Get-Stamps $box | Should -Be $stamps
    Get-Content -Raw $box.PathStore | Should -Be $store
  }

  It 'for a newer version replaces only what it installed' {
    $box = New-Sandbox
    (Install-Release $box $V1).Code | Should -Be 0
    $notes = Join-Path $box.PeaksHome 'skills/peaks-fixture/notes.md'
    Set-Content -LiteralPath $notes -Value 'my notes'
    Set-Content -LiteralPath (Join-Path $box.PeaksHome 'bin/my-tool') -Value 'mine'
    $upgrade = Install-Release $box $V2
    $upgrade.Code | Should -Be 0 -Because $upgrade.Stderr
    Get-InstalledVersion $box | Should -Be "peaks $($V2.version)"
    Get-Content -Raw (Join-Path $box.PeaksHome 'skills/peaks-fixture/SKILL.md') | Should -Be "two`n"
    Join-Path $box.PeaksHome 'skills/peaks-old' | Should -Not -Exist
    Get-Content $notes | Should -Be 'my notes'
    Get-Content (Join-Path $box.PeaksHome 'bin/my-tool') | Should -Be 'mine'
    (Get-Manifest $box) | Should -Contain "version=$($V2.version)"
    (Get-Manifest $box) | Should -Not -Contain 'file=skills/peaks-old/SKILL.md'
  }
}

Describe 'install.ps1 into a folder that holds other files' {
  It 'refuses, naming the clash, and changes nothing; without a clash it installs beside them' {
    $box = New-Sandbox
    $folder = Join-Path $box.Home '.claude'
    New-Item -ItemType Directory -Path (Join-Path $folder 'skills/my-skill') -Force | Out-Null
    Set-Content -LiteralPath (Join-Path $folder 'skills/my-skill/SKILL.md') -Value 'mine'
    Set-Content -LiteralPath (Join-Path $folder 'README.md') -Value 'my notes'
    $before = Format-Snapshot (Get-Snapshot $folder)
    $result = Install-Release $box $V1 -Environment @{ PEAKS_HOME = $folder }
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match ("^error: $([regex]::Escape($folder)) already holds files this installer did not put there: README\.md\. " +
      'It never replaces them: move them away, or install somewhere else with PEAKS_HOME\. Nothing was changed\.')
    Assert-NoStackDump $result
    Format-Snapshot (Get-Snapshot $folder) | Should -Be $before

    Remove-Item -LiteralPath (Join-Path $folder 'README.md')
    $beside = Install-Release $box $V1 -Environment @{ PEAKS_HOME = $folder }
    $beside.Code | Should -Be 0 -Because $beside.Stderr
    Get-Content (Join-Path $folder 'skills/my-skill/SKILL.md') | Should -Be 'mine'
    Join-Path $folder 'skills/peaks-fixture/SKILL.md' | Should -Exist
    $manifest = @(Get-Content -LiteralPath (Join-Path $folder '.install-manifest'))
    $manifest | Should -Not -Contain 'mkdir=skills'

    $removed = Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes' -Environment @{ PEAKS_HOME = $folder }
    $removed.Code | Should -Be 0 -Because $removed.Stderr
    @((Get-Snapshot $folder).Keys) | Should -Be @('skills', 'skills/my-skill', 'skills/my-skill/SKILL.md')
  }
}

Describe 'install.ps1 -Uninstall' {
  It 'removes exactly the files in the manifest and keeps everything else' {
    $box = New-Sandbox
    (Install-Release $box $V1).Code | Should -Be 0
    $listed = @(Get-Manifest $box | Where-Object { $_ -like 'file=*' } | ForEach-Object { $_.Substring(5) })
    $listed.Count | Should -BeGreaterThan 5
    New-Item -ItemType Directory -Path (Join-Path $box.PeaksHome '_runtime') | Out-Null
    Set-Content -LiteralPath (Join-Path $box.PeaksHome '_runtime/session.json') -Value '{}'
    Set-Content -LiteralPath (Join-Path $box.PeaksHome 'bin/my-tool') -Value 'mine'
    $result = Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes'
    $result.Code | Should -Be 0 -Because $result.Stderr
    $result.LastLine | Should -Be "Removed peaks from $($box.PeaksHome)."
    foreach ($file in $listed) { Join-Path $box.PeaksHome $file | Should -Not -Exist }
    @((Get-Snapshot $box.PeaksHome).Keys) | Should -Be @('_runtime', '_runtime/session.json', 'bin', 'bin/my-tool')
    $again = Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes'
    $again.Code | Should -Be 0
    $again.Stdout | Should -Match 'nothing to remove'
  }

  It 'of a clean install leaves no trace, and refuses a peaks it did not install' {
    $box = New-Sandbox
    (Install-Release $box $V1).Code | Should -Be 0
    (Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes').Code | Should -Be 0
    $box.PeaksHome | Should -Not -Exist
    New-Item -ItemType Directory -Path (Join-Path $box.PeaksHome 'bin') -Force | Out-Null
    Set-Content -LiteralPath (Join-Path $box.PeaksHome "bin/$Exe") -Value 'not ours'
    $foreign = Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes'
    $foreign.Code | Should -Be 1
    $foreign.Stderr | Should -Match 'was not put there by this installer'
    Join-Path $box.PeaksHome "bin/$Exe" | Should -Exist
  }

  It 'refuses a manifest that lists a path outside the install folder, removing nothing' {
    $box = New-Sandbox
    (Install-Release $box $V1).Code | Should -Be 0
    $outside = Join-Path $box.Root 'precious.txt'
    Set-Content -LiteralPath $outside -Value 'keep'
    Add-Content -LiteralPath (Join-Path $box.PeaksHome '.install-manifest') -Value 'file=../../precious.txt'
    $result = Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes'
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match 'lists an unsafe path: \.\./\.\./precious\.txt'
    $outside | Should -Exist
    Join-Path $box.PeaksHome "bin/$Exe" | Should -Exist
  }
}

Describe 'install.ps1 and the user PATH (through PEAKS_TEST_PATH_STORE)' {
  It 'puts bin first once, keeps the other entries unexpanded, and takes it out again on -Uninstall' {
    $box = New-Sandbox
    $bin = Join-Path $box.PeaksHome 'bin'
    $others = '%USERPROFILE%\tools;C:\Other Tools'
    Set-Content -LiteralPath $box.PathStore -Value $others
    $first = Install-Release $box $V1 @()
    $first.Code | Should -Be 0 -Because $first.Stderr
    $first.Stdout | Should -Match ([regex]::Escape("added $bin to your user PATH"))
    (Get-Content -Raw $box.PathStore).TrimEnd() | Should -Be "$bin;$others"
    (Get-Manifest $box) | Should -Contain "path=$bin"
    $first.LastLine | Should -Be 'Next step: cd into your project (its git repository), then run: peaks skills install'

    $second = Install-Release $box $V2 @()
    $second.Code | Should -Be 0 -Because $second.Stderr
    $second.Stdout | Should -Match 'your user PATH already holds'
    (Get-Content -Raw $box.PathStore).TrimEnd() | Should -Be "$bin;$others"
    @(Get-Manifest $box | Where-Object { $_ -like 'path=*' }).Count | Should -Be 1

    $removed = Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes'
    $removed.Code | Should -Be 0 -Because $removed.Stderr
    $removed.Stdout | Should -Match ([regex]::Escape("removed $bin from the user PATH"))
    (Get-Content -Raw $box.PathStore).TrimEnd() | Should -Be $others
  }

  It 'keeps an entry the user had before: it is not listed and stays after -Uninstall' {
    $box = New-Sandbox
    $bin = Join-Path $box.PeaksHome 'bin'
    Set-Content -LiteralPath $box.PathStore -Value "C:\First;$bin"
    $result = Install-Release $box $V1 @()
    $result.Code | Should -Be 0 -Because $result.Stderr
    $result.Stdout | Should -Match 'your user PATH already holds'
    (Get-Manifest $box) | Should -Not -Contain "path=$bin"
    (Invoke-Installer -Box $box -Arguments '-Uninstall', '-Yes').Code | Should -Be 0
    (Get-Content -Raw $box.PathStore).TrimEnd() | Should -Be "C:\First;$bin"
  }

  It 'with -NoModifyPath writes no user PATH' {
    $box = New-Sandbox
    (Install-Release $box $V1 @('-NoModifyPath')).Code | Should -Be 0
    $box.PathStore | Should -Not -Exist
    (Get-Manifest $box) | Where-Object { $_ -like 'path=*' } | Should -BeNullOrEmpty
  }

  It 'without the store on Linux and macOS prints how to put peaks on PATH' -Skip:($Fixture.windows) {
    $box = New-Sandbox
    $result = Install-Release $box $V1 @() -Environment @{ PEAKS_TEST_PATH_STORE = $null }
    $result.Code | Should -Be 0 -Because $result.Stderr
    $bin = Join-Path $box.PeaksHome 'bin'
    $result.Stdout | Should -Match ([regex]::Escape("peaks is not on PATH. Add it with: `$env:PATH = '$bin" + [IO.Path]::PathSeparator + "' + `$env:PATH (put that line in `$PROFILE to keep it)"))
    $box.PathStore | Should -Not -Exist
  }
}

Describe 'install.ps1 on bad input says what is wrong, exits non-zero and prints no stack trace' {
  It '<Case>' -ForEach @(
    @{ Case = 'an unknown option'; Arguments = @('-Frobnicate'); Code = 2; Message = '^error: unknown option: -Frobnicate\nRun install.ps1 -Help for the options\.$' }
    @{ Case = 'a malformed -Version'; Arguments = @('-Version', '../../etc'); Code = 2; Message = '^error: -Version must look like 2\.0\.0 \(got: \.\./\.\./etc\)' }
    @{ Case = 'a missing archive'; Arguments = @('-Archive', 'no-such.zip', '-Yes'); Code = 1; Message = '^error: archive not found: no-such\.zip$' }
    @{ Case = 'no archive and no download address'; Arguments = @('-Yes'); Code = 1; Message = '^error: no download address: set PEAKS_DOWNLOAD_BASE' }
    @{ Case = 'a version the mirror does not have'; Arguments = @('-Version', '0.0.1', '-Yes'); Code = 1; Message = '^error: could not download '; Mirror = $true }
    @{ Case = 'a file that is not a peaks archive'; Arguments = @('-Archive', 'SHA256SUMS', '-Checksums', 'SHA256SUMS', '-Yes'); Code = 1; Message = 'is not a peaks archive'; InRelease = $true }
  ) {
    $box = New-Sandbox
    $environment = @{}
    if ($Mirror) { $environment.PEAKS_DOWNLOAD_BASE = $Fixture.baseUrl }
    $arguments = $Arguments
    if ($InRelease) {
      $copy = Copy-Release $Fixture.v1 $box
      $arguments = @($Arguments | ForEach-Object { if ($_ -eq 'SHA256SUMS') { $copy.Sums } else { $_ } })
    }
    $result = Invoke-Installer -Box $box -Arguments $arguments -Environment $environment
    $result.Code | Should -Be $Code -Because "$($result.Stdout)$($result.Stderr)"
    $result.Stderr.TrimEnd() | Should -Match $Message
    Assert-NoStackDump $result
    $box.PeaksHome | Should -Not -Exist
  }

  It 'another platform''s archive' {
    $box = New-Sandbox
    $other = Join-Path $box.Root $Fixture.otherArchive
    Copy-Item -LiteralPath $V1.archive -Destination $other
    $digest = (Get-FileHash -LiteralPath $other -Algorithm SHA256).Hash.ToLowerInvariant()
    Set-Content -LiteralPath (Join-Path $box.Root 'SHA256SUMS') -Value "$digest  $($Fixture.otherArchive)"
    $result = Invoke-Installer -Box $box -Arguments '-Archive', $other, '-Yes'
    $result.Code | Should -Be 1
    $result.Stderr | Should -Match ([regex]::Escape("is not for this machine ($($Fixture.target))"))
    Assert-NoStackDump $result
  }

  It '-Help lists every option and changes nothing' {
    $box = New-Sandbox
    $result = Invoke-Installer -Box $box -Arguments '-Help'
    $result.Code | Should -Be 0
    foreach ($option in '-Version', '-Archive', '-Checksums', '-NoModifyPath', '-Yes', '-Uninstall', '-Help') {
      $result.Stdout | Should -Match ([regex]::Escape($option))
    }
    $box.PeaksHome | Should -Not -Exist
  }
}
