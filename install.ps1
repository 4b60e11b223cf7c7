# Installs peaks on Windows: the binary in $env:PEAKS_HOME\bin and the skills in
# $env:PEAKS_HOME\skills. Same options as install.sh; run with -Help to list them.
# Works in Windows PowerShell 5.1 and PowerShell 7, from a file or through `irm ... | iex`.
param(
  [string]$Version = $env:PEAKS_VERSION,
  [string]$Archive = $env:PEAKS_ARCHIVE,
  [string]$Checksums = $env:PEAKS_CHECKSUMS,
  [switch]$NoModifyPath,
  [switch]$Yes,
  [switch]$Uninstall,
  [switch]$Help
)

# Everything runs in its own scope, so `irm ... | iex` leaves no functions or
# preference changes behind in the caller's session.
& {
  $ErrorActionPreference = 'Stop'
  $ProgressPreference = 'SilentlyContinue'

  # The release workflow writes the project's releases address here when it publishes
  # this script; a checkout leaves it empty (use PEAKS_DOWNLOAD_BASE or -Archive).
  $DefaultDownloadBase = ''

  $ManifestName = '.install-manifest'
  $Docs = @('LICENSE', 'README.md', 'THIRD_PARTY_LICENSES.md')

  $Usage = @'
Install peaks (the binary and its agent skills).

Usage: install.ps1 [options]

Options:
  -Version <v>        Version to install, e.g. 2.0.0 (default: the latest release).
  -Archive <file>     Install from a local archive instead of downloading one.
  -Checksums <file>   SHA256SUMS for that archive (default: SHA256SUMS next to it).
  -NoModifyPath       Leave the user PATH alone; print how to add peaks instead.
  -Yes                Do not ask for confirmation.
  -Uninstall          Remove what this installer put into the install directory.
  -Help               Show this help.

Environment:
  PEAKS_HOME           Install directory (default: ~\.peaks): bin\peaks.exe and skills\.
  PEAKS_VERSION        Same as -Version.
  PEAKS_ARCHIVE        Same as -Archive.
  PEAKS_CHECKSUMS      Same as -Checksums.
  PEAKS_DOWNLOAD_BASE  Releases address to download from: <base>/download/v<version>/<file>
                       and <base>/latest/download/<file> (https://, http:// or file://).

An archive named peaks-<version>-<target>.zip lying next to this script is used
without downloading anything. Every archive is checked against SHA256SUMS before it
is unpacked; a mismatch stops the installer and changes nothing.
'@

  function Fail([string]$Message) {
    throw [System.InvalidOperationException]::new($Message)
  }

  function Say([string]$Message) {
    Write-Host $Message
  }

  function Confirm-Step([string]$Question) {
    if ($Yes) { return $true }
    if (-not [Environment]::UserInteractive -or [Console]::IsInputRedirected) { return $true }
    $answer = Read-Host "$Question [Y/n]"
    return ($answer -eq '' -or $answer -match '^(y|yes)$')
  }

  function Get-PeaksTarget {
    if ($PSVersionTable.PSEdition -eq 'Core' -and -not $IsWindows) {
      Fail 'this is not Windows: run install.sh instead'
    }
    $arch = $null
    try {
      $arch = [string][System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture
    } catch {
      $arch = $null
    }
    if (-not $arch) {
      $arch = if ($env:PROCESSOR_ARCHITEW6432) { $env:PROCESSOR_ARCHITEW6432 } else { $env:PROCESSOR_ARCHITECTURE }
    }
    switch -Regex ($arch) {
      '^(X64|AMD64)$' { return 'x86_64-pc-windows-msvc' }
      '^(Arm64|ARM64)$' { return 'aarch64-pc-windows-msvc' }
      default { Fail "peaks has no release for Windows on $arch" }
    }
  }

  function Get-Sha256([string]$Path) {
    return (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
  }

  # The digest SHA256SUMS lists for a file name, or $null.
  function Get-ExpectedSha256([string]$SumsPath, [string]$Name) {
    foreach ($line in Get-Content -LiteralPath $SumsPath) {
      if ($line -match '^([0-9A-Fa-f]{64}) [ *](.+)$' -and $Matches[2] -eq $Name) {
        return $Matches[1].ToLowerInvariant()
      }
    }
    return $null
  }

  # file:// addresses and plain paths are copied; the rest is downloaded.
  function Get-Remote([string]$Url, [string]$Destination) {
    if ($Url -match '^https?://') {
      [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
      Invoke-WebRequest -Uri $Url -OutFile $Destination -UseBasicParsing
    } elseif ($Url -like 'file://*') {
      Copy-Item -LiteralPath ([Uri]$Url).LocalPath -Destination $Destination
    } else {
      Copy-Item -LiteralPath $Url -Destination $Destination
    }
  }

  function Get-ComparablePath([string]$Path) {
    return [Environment]::ExpandEnvironmentVariables($Path).TrimEnd('\')
  }

  # A user variable set through .NET broadcasts WM_SETTINGCHANGE, so new terminals see the new PATH.
  function Send-SettingChange {
    $name = 'PeaksInstallerRefresh' + [Guid]::NewGuid().ToString('N')
    [Environment]::SetEnvironmentVariable($name, '1', 'User')
    [Environment]::SetEnvironmentVariable($name, $null, 'User')
  }

  # Reads the user PATH without expanding %VARIABLES% and writes it back as REG_EXPAND_SZ,
  # so entries such as %USERPROFILE%\bin keep working.
  function Update-UserPath([string]$Directory, [bool]$Add) {
    $key = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')
    try {
      $current = [string]$key.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
      $wanted = Get-ComparablePath $Directory
      $entries = @($current -split ';' | Where-Object { $_ -ne '' })
      $others = @($entries | Where-Object { (Get-ComparablePath $_) -ne $wanted })
      if ($Add) {
        if ($others.Count -ne $entries.Count) { return $false }
        $updated = @($Directory) + $entries
      } else {
        if ($others.Count -eq $entries.Count) { return $false }
        $updated = $others
      }
      $key.SetValue('Path', ($updated -join ';'), [Microsoft.Win32.RegistryValueKind]::ExpandString)
    } finally {
      $key.Close()
    }
    Send-SettingChange
    return $true
  }

  function Test-OnPath([string]$Directory) {
    $wanted = Get-ComparablePath $Directory
    foreach ($entry in ($env:Path -split ';')) {
      if ($entry -ne '' -and (Get-ComparablePath $entry) -eq $wanted) { return $true }
    }
    return $false
  }

  function Get-PeaksHome {
    $dir = if ($env:PEAKS_HOME) { $env:PEAKS_HOME } else { Join-Path $HOME '.peaks' }
    return $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($dir)
  }

  function Test-SafeRelative([string]$Path) {
    if ($Path -eq '' -or $Path -eq '.' -or [IO.Path]::IsPathRooted($Path)) { return $false }
    return -not (($Path -split '[\\/]') -contains '..')
  }

  function Invoke-Uninstall([string]$PeaksHome) {
    $manifest = Join-Path $PeaksHome $ManifestName
    $bin = Join-Path $PeaksHome 'bin'
    if (-not (Test-Path -LiteralPath $manifest)) {
      if (Test-Path -LiteralPath (Join-Path $bin 'peaks.exe')) {
        Fail "$bin\peaks.exe was not put there by this installer (no $ManifestName); remove it yourself if you want it gone"
      }
      Say "peaks is not installed in $PeaksHome; nothing to remove."
      return
    }
    if (-not (Confirm-Step "Remove peaks from $PeaksHome?")) { Fail 'nothing was removed' }
    foreach ($line in Get-Content -LiteralPath $manifest) {
      if ($line -notmatch '^(file|dir|path)=(.*)$') { continue }
      $kind = $Matches[1]
      $value = $Matches[2]
      if ($kind -eq 'path') {
        if (Update-UserPath $value $false) { Say "removed $value from the user PATH" }
        continue
      }
      if (-not (Test-SafeRelative $value)) { Fail "$manifest lists an unsafe path: $value" }
      $target = Join-Path $PeaksHome $value
      if (Test-Path -LiteralPath $target) { Remove-Item -LiteralPath $target -Recurse -Force }
    }
    Remove-Item -LiteralPath $manifest -Force
    foreach ($dir in @($bin, $PeaksHome)) {
      if ((Test-Path -LiteralPath $dir) -and -not (Get-ChildItem -LiteralPath $dir -Force)) {
        Remove-Item -LiteralPath $dir -Force
      }
    }
    Say "Skills that 'peaks skills install' copied into agent folders were left in place."
    Say "Removed peaks from $PeaksHome."
  }

  # True when an install of this version is in place with exactly the files the staged archive
  # holds: running the installer again then moves and rewrites nothing.
  function Test-SameInstall([string]$PeaksHome, [string]$Stage, [string]$ArchiveVersion) {
    $manifest = Join-Path $PeaksHome $ManifestName
    if (-not (Test-Path -LiteralPath $manifest)) { return $false }
    if (@(Get-Content -LiteralPath $manifest) -notcontains "version=$ArchiveVersion") { return $false }
    $stageRoot = (Resolve-Path -LiteralPath $Stage).Path.TrimEnd('\')
    foreach ($file in Get-ChildItem -LiteralPath $Stage -Recurse -File -Force) {
      $relative = $file.FullName.Substring($stageRoot.Length + 1)
      $installed = if ($relative -eq 'peaks.exe') { Join-Path $PeaksHome 'bin\peaks.exe' } else { Join-Path $PeaksHome $relative }
      if (-not (Test-Path -LiteralPath $installed -PathType Leaf)) { return $false }
      if ((Get-Sha256 $file.FullName) -ne (Get-Sha256 $installed)) { return $false }
    }
    return $true
  }

  function Find-Archive([string]$Target, [string]$WantedVersion, [string]$WorkDir) {
    $archivePath = $Archive
    $sumsPath = $Checksums
    if (-not $archivePath -and $PSScriptRoot) {
      $pattern = if ($WantedVersion -eq 'latest') { "peaks-*-$Target.zip" } else { "peaks-$WantedVersion-$Target.zip" }
      $found = @(Get-ChildItem -LiteralPath $PSScriptRoot -Filter $pattern -File -ErrorAction SilentlyContinue)
      if ($found.Count -gt 1) { Fail "several peaks archives for $Target lie next to the installer; pick one with -Archive" }
      if ($found.Count -eq 1) {
        $archivePath = $found[0].FullName
        Say "using the archive next to the installer: $archivePath"
      }
    }
    if ($archivePath) {
      if (-not (Test-Path -LiteralPath $archivePath -PathType Leaf)) { Fail "archive not found: $archivePath" }
      $archivePath = (Resolve-Path -LiteralPath $archivePath).Path
      if (-not $sumsPath) {
        $sumsPath = Join-Path (Split-Path -Parent $archivePath) 'SHA256SUMS'
        if (-not (Test-Path -LiteralPath $sumsPath)) {
          Fail "no SHA256SUMS next to $archivePath; pass -Checksums <file> (an archive is never installed unverified)"
        }
      }
      if (-not (Test-Path -LiteralPath $sumsPath -PathType Leaf)) { Fail "checksums file not found: $sumsPath" }
      return @{ Archive = $archivePath; Checksums = $sumsPath; Version = $WantedVersion }
    }

    $base = if ($env:PEAKS_DOWNLOAD_BASE) { $env:PEAKS_DOWNLOAD_BASE } else { $DefaultDownloadBase }
    if (-not $base) { Fail 'no download address: set PEAKS_DOWNLOAD_BASE to the releases address, or pass -Archive <file>' }
    $base = $base.TrimEnd('/')
    $sumsPath = Join-Path $WorkDir 'SHA256SUMS'
    $resolved = $WantedVersion
    if ($resolved -eq 'latest') {
      try { Get-Remote "$base/latest/download/SHA256SUMS" $sumsPath } catch { Fail "could not download $base/latest/download/SHA256SUMS" }
      $suffix = "-$Target.zip"
      $latest = $null
      foreach ($line in Get-Content -LiteralPath $sumsPath) {
        if ($line -match '^[0-9A-Fa-f]{64} [ *](peaks-.+)$' -and $Matches[1].EndsWith($suffix)) { $latest = $Matches[1]; break }
      }
      if (-not $latest) { Fail "the latest release has no archive for $Target" }
      $resolved = $latest.Substring(6, $latest.Length - 6 - $suffix.Length)
    }
    $name = "peaks-$resolved-$Target.zip"
    Say "downloading peaks $resolved for $Target"
    try { Get-Remote "$base/download/v$resolved/SHA256SUMS" $sumsPath } catch { Fail "could not download $base/download/v$resolved/SHA256SUMS" }
    $archivePath = Join-Path $WorkDir $name
    try { Get-Remote "$base/download/v$resolved/$name" $archivePath } catch { Fail "could not download $base/download/v$resolved/$name" }
    return @{ Archive = $archivePath; Checksums = $sumsPath; Version = $resolved }
  }

  function Invoke-Install([string]$PeaksHome, [string]$WantedVersion) {
    $target = Get-PeaksTarget
    $work = Join-Path ([IO.Path]::GetTempPath()) ('peaks-install-' + [Guid]::NewGuid().ToString('N'))
    $stage = $null
    New-Item -ItemType Directory -Path $work | Out-Null
    try {
      $found = Find-Archive $target $WantedVersion $work
      $name = Split-Path -Leaf $found.Archive
      $prefix = 'peaks-'
      $suffix = "-$target.zip"
      if (-not ($name.StartsWith($prefix) -and $name.EndsWith($suffix))) {
        if ($name -like 'peaks-*') { Fail "$name is not for this machine ($target)" }
        Fail "$name is not a peaks archive (expected peaks-<version>-$target.zip)"
      }
      $archiveVersion = $name.Substring($prefix.Length, $name.Length - $prefix.Length - $suffix.Length)
      if ($WantedVersion -ne 'latest' -and $WantedVersion -ne $archiveVersion) {
        Fail "$name holds peaks $archiveVersion, but version $WantedVersion was asked for"
      }

      $expected = Get-ExpectedSha256 $found.Checksums $name
      if (-not $expected) { Fail "$($found.Checksums) has no entry for $name; refusing to install an unverified archive" }
      $actual = Get-Sha256 $found.Archive
      if ($expected -ne $actual) { Fail "checksum mismatch for $name (expected $expected, got $actual); nothing was changed" }
      Say "verified $name (sha256 $actual)"

      $bin = Join-Path $PeaksHome 'bin'
      $addPath = -not $NoModifyPath -and -not (Test-OnPath $bin)
      $question = "Install peaks $archiveVersion for $target into $PeaksHome"
      if ($addPath) { $question += " and add $bin to your user PATH" }
      if (-not (Confirm-Step "$question?")) { Fail 'nothing was changed' }

      # Unpack and check next to the destination, so moving into place is a rename.
      New-Item -ItemType Directory -Force -Path $PeaksHome | Out-Null
      # An old peaks.exe that was running during the last upgrade may have stayed behind.
      Get-ChildItem -LiteralPath $PeaksHome -Filter '.staging.*' -Directory -Force |
        Remove-Item -Recurse -Force -ErrorAction SilentlyContinue
      $stage = Join-Path $PeaksHome ('.staging.' + [Guid]::NewGuid().ToString('N'))
      New-Item -ItemType Directory -Path $stage | Out-Null
      try {
        Expand-Archive -LiteralPath $found.Archive -DestinationPath $stage -Force
      } catch {
        Fail "$name could not be unpacked (damaged archive?); nothing was changed"
      }
      $newExe = Join-Path $stage 'peaks.exe'
      $newSkills = Join-Path $stage 'skills'
      if (-not (Test-Path -LiteralPath $newExe -PathType Leaf) -or -not (Test-Path -LiteralPath $newSkills -PathType Container)) {
        Fail "$name does not hold peaks.exe and skills\; nothing was changed"
      }
      $reported = ''
      try { $reported = (& $newExe --version 2>&1 | Out-String).Trim() } catch { $reported = $_.Exception.Message }
      if ($reported -ne "peaks $archiveVersion") {
        Fail "the peaks in $name does not run here (it printed: $reported); nothing was changed"
      }

      $exe = Join-Path $bin 'peaks.exe'
      $newPlugin = Join-Path $stage '.claude-plugin'
      $plugin = Test-Path -LiteralPath $newPlugin -PathType Container
      $unchanged = Test-SameInstall $PeaksHome $stage $archiveVersion
      if ($unchanged) {
        Say "peaks $archiveVersion is already installed in $PeaksHome; nothing to replace"
      } else {
        New-Item -ItemType Directory -Force -Path $bin | Out-Null
        $skills = Join-Path $PeaksHome 'skills'
        if (Test-Path -LiteralPath $skills) { Move-Item -LiteralPath $skills -Destination (Join-Path $stage 'skills.old') }
        Move-Item -LiteralPath $newSkills -Destination $skills
        # The Claude Code plugin manifests: with them $env:PEAKS_HOME is a plugin marketplace too.
        if ($plugin) {
          $pluginDir = Join-Path $PeaksHome '.claude-plugin'
          if (Test-Path -LiteralPath $pluginDir) { Move-Item -LiteralPath $pluginDir -Destination (Join-Path $stage 'plugin.old') }
          Move-Item -LiteralPath $newPlugin -Destination $pluginDir
        }
        foreach ($doc in $Docs) {
          $source = Join-Path $stage $doc
          if (Test-Path -LiteralPath $source) { Move-Item -LiteralPath $source -Destination (Join-Path $PeaksHome $doc) -Force }
        }
        # A running peaks.exe cannot be overwritten but can be renamed out of the way.
        if (Test-Path -LiteralPath $exe) { Move-Item -LiteralPath $exe -Destination (Join-Path $stage 'peaks.exe.old') }
        Move-Item -LiteralPath $newExe -Destination $exe
      }

      $manifest = Join-Path $PeaksHome $ManifestName
      $pathEntries = @()
      if (Test-Path -LiteralPath $manifest) {
        $pathEntries = @(Get-Content -LiteralPath $manifest | Where-Object { $_ -like 'path=*' })
      }
      if ($addPath) {
        # Only an entry this installer added is listed, so -Uninstall never removes one the user had.
        if (Update-UserPath $bin $true) {
          Say "added $bin to your user PATH"
          if ($pathEntries -notcontains "path=$bin") { $pathEntries += "path=$bin" }
        } else {
          Say "your user PATH already holds $bin"
        }
        $env:Path = "$bin;$env:Path"
      }
      $lines = @(
        '# Written by the peaks installer: -Uninstall removes exactly these.',
        "version=$archiveVersion",
        "target=$target",
        'file=bin/peaks.exe',
        'dir=skills'
      )
      if ($plugin) { $lines += 'dir=.claude-plugin' }
      foreach ($doc in $Docs) {
        if (Test-Path -LiteralPath (Join-Path $PeaksHome $doc)) { $lines += "file=$doc" }
      }
      $lines += $pathEntries
      # The same install again leaves the manifest as it is, timestamp included.
      $previous = if (Test-Path -LiteralPath $manifest) { @(Get-Content -LiteralPath $manifest) -join "`n" } else { $null }
      if ($previous -ne ($lines -join "`n")) {
        $temp = "$manifest.tmp"
        [IO.File]::WriteAllLines($temp, [string[]]$lines)
        Move-Item -LiteralPath $temp -Destination $manifest -Force
      }

      if (-not $unchanged) { Say "installed peaks $archiveVersion into $PeaksHome" }
      if (Test-OnPath $bin) {
        Say 'Next step: peaks skills install'
      } else {
        Say "peaks is not on PATH. Add it with: `$env:Path = '$bin;' + `$env:Path"
        Say "Next step: & '$exe' skills install"
      }
    } finally {
      Remove-Item -LiteralPath $work -Recurse -Force -ErrorAction SilentlyContinue
      if ($stage) { Remove-Item -LiteralPath $stage -Recurse -Force -ErrorAction SilentlyContinue }
    }
  }

  function Invoke-Main {
    if ($Help) {
      Write-Output $Usage
      return
    }
    $wanted = if ($Version) { $Version -replace '^v', '' } else { 'latest' }
    if ($wanted -ne 'latest' -and $wanted -notmatch '^[0-9][0-9A-Za-z.+-]*$') {
      Fail "-Version must look like 2.0.0 (got: $wanted)"
    }
    $peaksHome = Get-PeaksHome
    if ($Uninstall) { Invoke-Uninstall $peaksHome } else { Invoke-Install $peaksHome $wanted }
  }

  try {
    Invoke-Main
  } catch {
    Write-Host "error: $($_.Exception.Message)" -ForegroundColor Red
    # `exit` would close the window of someone who ran `irm ... | iex`; only a script file exits.
    if ($PSCommandPath) { exit 1 }
  }
}
