# Installs peaks: the binary in $env:PEAKS_HOME\bin and the skills in $env:PEAKS_HOME\skills.
# Same options as install.sh; run with -Help to list them. Works in Windows PowerShell 5.1 and
# PowerShell 7, from a file or through `irm ... | iex`. Under PowerShell 7 on Linux and macOS it
# installs that platform's .tar.gz (the archive install.sh takes) and prints how to put peaks on
# PATH.
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
  param([object[]]$Unexpected)
  $ErrorActionPreference = 'Stop'
  $ProgressPreference = 'SilentlyContinue'

  # The release workflow writes the project's releases address here when it publishes
  # this script; a checkout leaves it empty (use PEAKS_DOWNLOAD_BASE or -Archive).
  $DefaultDownloadBase = ''

  $ManifestName = '.install-manifest'

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

An archive named peaks-<version>-<target>.zip (.tar.gz on Linux and macOS) lying next
to this script is used without downloading anything. Every archive is checked against
SHA256SUMS before it is unpacked; a mismatch stops the installer and changes nothing.
The installer never deletes or overwrites a file it did not put there.
'@

  # Windows PowerShell 5.1 is Windows only and has no $IsWindows.
  $OnWindows = ($PSVersionTable.PSEdition -ne 'Core') -or $IsWindows
  $BinaryName = if ($OnWindows) { 'peaks.exe' } else { 'peaks' }
  $ArchiveSuffix = if ($OnWindows) { '.zip' } else { '.tar.gz' }
  $PathSeparator = [IO.Path]::PathSeparator

  # A usage error: exit status 2, as install.sh.
  function Fail-Usage([string]$Message) {
    throw [System.ArgumentException]::new($Message)
  }

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
    $arch = $null
    try {
      $arch = [string][System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture
    } catch {
      $arch = $null
    }
    if (-not $arch -and $OnWindows) {
      $arch = if ($env:PROCESSOR_ARCHITEW6432) { $env:PROCESSOR_ARCHITEW6432 } else { $env:PROCESSOR_ARCHITECTURE }
    }
    $cpu = switch -Regex ($arch) {
      '^(X64|AMD64)$' { 'x86_64' }
      '^(Arm64|ARM64)$' { 'aarch64' }
      default { $null }
    }
    if ($OnWindows) {
      if (-not $cpu) { Fail "peaks has no release for Windows on $arch" }
      return "$cpu-pc-windows-msvc"
    }
    $os = [string](& uname -s)
    if ($os -eq 'Darwin') {
      # PowerShell translated by Rosetta reports x86_64 on Apple silicon; the native build is better.
      $translated = ''
      try { $translated = [string](& sysctl -n sysctl.proc_translated 2>$null) } catch { $translated = '' }
      if ($cpu -eq 'x86_64' -and $translated.Trim() -eq '1') { $cpu = 'aarch64' }
      if (-not $cpu) { Fail "peaks has no release for macOS on $arch" }
      return "$cpu-apple-darwin"
    }
    if ($os -eq 'Linux') {
      if (-not $cpu) { Fail "peaks has no release for Linux on $arch" }
      return "$cpu-unknown-linux-gnu"
    }
    Fail "peaks has no release for $os"
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
      if ($PSVersionTable.PSEdition -ne 'Core') {
        [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
      }
      Invoke-WebRequest -Uri $Url -OutFile $Destination -UseBasicParsing
    } elseif ($Url -like 'file://*') {
      Copy-Item -LiteralPath ([Uri]$Url).LocalPath -Destination $Destination
    } else {
      Copy-Item -LiteralPath $Url -Destination $Destination
    }
  }

  function Get-ComparablePath([string]$Path) {
    return [Environment]::ExpandEnvironmentVariables($Path).TrimEnd('\', '/')
  }

  # The user PATH value, kept between sessions: on Windows the registry's HKCU\Environment\Path.
  # PEAKS_TEST_PATH_STORE=<file> keeps it in that file instead, on any system, so tests observe
  # what would be written without touching the registry. $null where there is neither (Linux and
  # macOS: the installer prints how to add peaks to PATH).
  function Get-PathStore {
    if ($env:PEAKS_TEST_PATH_STORE) { return @{ Kind = 'file'; File = $env:PEAKS_TEST_PATH_STORE } }
    if ($OnWindows) { return @{ Kind = 'registry' } }
    return $null
  }

  # Reads the value without expanding %VARIABLES%, so entries such as %USERPROFILE%\bin keep
  # working when it is written back.
  function Read-UserPath($Store) {
    if ($Store.Kind -eq 'file') {
      if (-not (Test-Path -LiteralPath $Store.File -PathType Leaf)) { return '' }
      return ([IO.File]::ReadAllText($Store.File)).TrimEnd("`r", "`n")
    }
    $key = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment')
    if (-not $key) { return '' }
    try {
      return [string]$key.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
    } finally {
      $key.Close()
    }
  }

  # Writes the value back as REG_EXPAND_SZ and tells running programs about the change: a user
  # variable set through .NET broadcasts WM_SETTINGCHANGE, so new terminals see the new PATH.
  function Write-UserPath($Store, [string]$Value) {
    if ($Store.Kind -eq 'file') {
      [IO.File]::WriteAllText($Store.File, "$Value`n")
      return
    }
    $key = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')
    try {
      $key.SetValue('Path', $Value, [Microsoft.Win32.RegistryValueKind]::ExpandString)
    } finally {
      $key.Close()
    }
    $name = 'PeaksInstallerRefresh' + [Guid]::NewGuid().ToString('N')
    [Environment]::SetEnvironmentVariable($name, '1', 'User')
    [Environment]::SetEnvironmentVariable($name, $null, 'User')
  }

  # Adds the folder in front of the user PATH, or takes it out. False when there was nothing to do.
  function Update-UserPath($Store, [string]$Directory, [bool]$Add) {
    $current = Read-UserPath $Store
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
    Write-UserPath $Store ($updated -join ';')
    return $true
  }

  function Test-OnPath([string]$Directory) {
    $wanted = Get-ComparablePath $Directory
    foreach ($entry in ([string]$env:PATH -split [regex]::Escape([string]$PathSeparator))) {
      if ($entry -ne '' -and (Get-ComparablePath $entry) -eq $wanted) { return $true }
    }
    return $false
  }

  function Get-PeaksHome {
    $dir = if ($env:PEAKS_HOME) { $env:PEAKS_HOME } else { Join-Path $HOME '.peaks' }
    return $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($dir).TrimEnd('\', '/')
  }

  function Test-SafeRelative([string]$Path) {
    if ($Path -eq '' -or $Path -eq '.' -or [IO.Path]::IsPathRooted($Path) -or $Path.StartsWith('/')) { return $false }
    return -not (($Path -split '[\\/]') -contains '..')
  }

  # A path of the manifest (always with /) under the install directory.
  function Get-InstalledPath([string]$PeaksHome, [string]$Relative) {
    return Join-Path $PeaksHome ($Relative -replace '/', [IO.Path]::DirectorySeparatorChar)
  }

  function New-PathSet {
    $comparer = if ($OnWindows) { [StringComparer]::OrdinalIgnoreCase } else { [StringComparer]::Ordinal }
    return New-Object 'System.Collections.Generic.HashSet[string]' $comparer
  }

  # The files and folders under a folder, as manifest paths (with /), sorted.
  function Get-Tree([string]$Root, [switch]$Folders) {
    $root = $Root.TrimEnd('\', '/')
    $items = if ($Folders) {
      Get-ChildItem -LiteralPath $root -Recurse -Force -Directory
    } else {
      Get-ChildItem -LiteralPath $root -Recurse -Force -File
    }
    $paths = @($items | ForEach-Object { $_.FullName.Substring($root.Length + 1) -replace '\\', '/' })
    [Array]::Sort($paths, [StringComparer]::Ordinal)
    return , $paths
  }

  # What the manifest in place says the installer owns: Files, and Made (folders it created).
  # An older manifest's dir=<tree> owns every file and folder under that tree.
  function Read-Ownership([string]$PeaksHome) {
    $owned = @{ Files = (New-PathSet); Made = (New-PathSet); PathEntries = @(); Exists = $false }
    $manifest = Join-Path $PeaksHome $ManifestName
    if (-not (Test-Path -LiteralPath $manifest -PathType Leaf)) { return $owned }
    $owned.Exists = $true
    foreach ($line in Get-Content -LiteralPath $manifest) {
      if ($line -like 'path=*') { $owned.PathEntries += $line; continue }
      if ($line -notmatch '^(file|dir|mkdir)=(.*)$') { continue }
      $kind = $Matches[1]
      $value = $Matches[2]
      if (-not (Test-SafeRelative $value)) { Fail "$manifest lists an unsafe path: $value" }
      if ($kind -eq 'file') { [void]$owned.Files.Add($value) }
      if ($kind -eq 'mkdir') { [void]$owned.Made.Add($value) }
      if ($kind -eq 'dir') {
        $tree = Get-InstalledPath $PeaksHome $value
        if (Test-Path -LiteralPath $tree -PathType Container) {
          [void]$owned.Made.Add($value)
          foreach ($file in (Get-Tree $tree)) { [void]$owned.Files.Add("$value/$file") }
          foreach ($folder in (Get-Tree $tree -Folders)) { [void]$owned.Made.Add("$value/$folder") }
        }
      }
    }
    return $owned
  }

  function Invoke-Uninstall([string]$PeaksHome) {
    $manifest = Join-Path $PeaksHome $ManifestName
    $bin = Join-Path $PeaksHome 'bin'
    $exe = Join-Path $bin $BinaryName
    if (-not (Test-Path -LiteralPath $manifest)) {
      if (Test-Path -LiteralPath $exe) {
        Fail "$exe was not put there by this installer (no $ManifestName); remove it yourself if you want it gone"
      }
      Say "peaks is not installed in $PeaksHome; nothing to remove."
      return
    }
    # Every line is checked before anything is removed.
    $owned = Read-Ownership $PeaksHome
    if (-not (Confirm-Step "Remove peaks from $PeaksHome?")) { Fail 'nothing was removed' }
    $store = Get-PathStore
    foreach ($line in $owned.PathEntries) {
      $value = $line.Substring(5)
      if (-not $store) {
        Say "the user PATH still lists $value; remove it there yourself"
      } elseif (Update-UserPath $store $value $false) {
        Say "removed $value from the user PATH"
      }
    }
    foreach ($file in $owned.Files) {
      $target = Get-InstalledPath $PeaksHome $file
      if (Test-Path -LiteralPath $target -PathType Leaf) { Remove-Item -LiteralPath $target -Force }
    }
    # Folders the installer created go when they are empty; deepest first.
    $made = @($owned.Made)
    [Array]::Sort($made, [StringComparer]::Ordinal)
    [Array]::Reverse($made)
    foreach ($folder in $made) {
      $target = Get-InstalledPath $PeaksHome $folder
      if ((Test-Path -LiteralPath $target -PathType Container) -and -not (Get-ChildItem -LiteralPath $target -Force)) {
        Remove-Item -LiteralPath $target -Force
      }
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
  function Test-SameInstall([string]$PeaksHome, [string]$New, [string[]]$Files, [string]$ArchiveVersion) {
    $manifest = Join-Path $PeaksHome $ManifestName
    if (-not (Test-Path -LiteralPath $manifest)) { return $false }
    if (@(Get-Content -LiteralPath $manifest) -notcontains "version=$ArchiveVersion") { return $false }
    foreach ($file in $Files) {
      $installed = Get-InstalledPath $PeaksHome $file
      if (-not (Test-Path -LiteralPath $installed -PathType Leaf)) { return $false }
      if ((Get-Sha256 (Get-InstalledPath $New $file)) -ne (Get-Sha256 $installed)) { return $false }
    }
    return $true
  }

  # The paths the archive would take that hold something the installer did not put there: it
  # never deletes or overwrites a file of the user's.
  function Get-Conflicts([string]$PeaksHome, [string[]]$Files, [string[]]$Folders, $Owned) {
    $conflicts = @()
    foreach ($file in $Files) {
      $target = Get-InstalledPath $PeaksHome $file
      if ((Test-Path -LiteralPath $target) -and -not $Owned.Files.Contains($file)) { $conflicts += $file }
    }
    foreach ($folder in $Folders) {
      $target = Get-InstalledPath $PeaksHome $folder
      if ((Test-Path -LiteralPath $target) -and -not (Test-Path -LiteralPath $target -PathType Container)) {
        $conflicts += $folder
      }
    }
    return , $conflicts
  }

  # Moves the staged files into place. Files the last install put there that this archive no
  # longer holds go; folders are created as needed and recorded; a file being replaced is first
  # renamed into the staging folder (a running peaks.exe cannot be overwritten, only renamed).
  # Folders the installer created that are left empty go.
  function Move-IntoPlace([string]$PeaksHome, [string]$Stage, [string[]]$Files, [string[]]$Folders, $Owned) {
    $newFiles = New-PathSet
    foreach ($file in $Files) { [void]$newFiles.Add($file) }
    $newFolders = New-PathSet
    foreach ($folder in $Folders) { [void]$newFolders.Add($folder) }
    $old = Join-Path $Stage 'old'
    New-Item -ItemType Directory -Force -Path $old | Out-Null
    $n = 0
    foreach ($file in $Owned.Files) {
      $target = Get-InstalledPath $PeaksHome $file
      if (-not $newFiles.Contains($file) -and (Test-Path -LiteralPath $target -PathType Leaf)) {
        $n++
        Move-Item -LiteralPath $target -Destination (Join-Path $old "$n")
      }
    }
    foreach ($folder in $Folders) {
      $target = Get-InstalledPath $PeaksHome $folder
      if (-not (Test-Path -LiteralPath $target -PathType Container)) {
        New-Item -ItemType Directory -Path $target | Out-Null
        [void]$Owned.Made.Add($folder)
      }
    }
    foreach ($file in $Files) {
      $target = Get-InstalledPath $PeaksHome $file
      if (Test-Path -LiteralPath $target) {
        $n++
        Move-Item -LiteralPath $target -Destination (Join-Path $old "$n")
      }
      Move-Item -LiteralPath (Get-InstalledPath (Join-Path $Stage 'new') $file) -Destination $target
    }
    $made = @($Owned.Made)
    [Array]::Sort($made, [StringComparer]::Ordinal)
    [Array]::Reverse($made)
    foreach ($folder in $made) {
      $target = Get-InstalledPath $PeaksHome $folder
      if (-not $newFolders.Contains($folder) -and (Test-Path -LiteralPath $target -PathType Container) -and
        -not (Get-ChildItem -LiteralPath $target -Force)) {
        Remove-Item -LiteralPath $target -Force
      }
    }
  }

  function Find-Archive([string]$Target, [string]$WantedVersion, [string]$WorkDir) {
    $archivePath = $Archive
    $sumsPath = $Checksums
    if (-not $archivePath -and $PSScriptRoot) {
      $pattern = if ($WantedVersion -eq 'latest') { "peaks-*-$Target$ArchiveSuffix" } else { "peaks-$WantedVersion-$Target$ArchiveSuffix" }
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
      $suffix = "-$Target$ArchiveSuffix"
      $latest = $null
      foreach ($line in Get-Content -LiteralPath $sumsPath) {
        if ($line -match '^[0-9A-Fa-f]{64} [ *](peaks-.+)$' -and $Matches[1].EndsWith($suffix)) { $latest = $Matches[1]; break }
      }
      if (-not $latest) { Fail "the latest release has no archive for $Target" }
      $resolved = $latest.Substring(6, $latest.Length - 6 - $suffix.Length)
    }
    $name = "peaks-$resolved-$Target$ArchiveSuffix"
    Say "downloading peaks $resolved for $Target"
    try { Get-Remote "$base/download/v$resolved/SHA256SUMS" $sumsPath } catch { Fail "could not download $base/download/v$resolved/SHA256SUMS" }
    $archivePath = Join-Path $WorkDir $name
    try { Get-Remote "$base/download/v$resolved/$name" $archivePath } catch { Fail "could not download $base/download/v$resolved/$name" }
    return @{ Archive = $archivePath; Checksums = $sumsPath; Version = $resolved }
  }

  # Unpacks into $Destination; false when the archive is damaged.
  function Expand-PeaksArchive([string]$Path, [string]$Destination) {
    try {
      if ($OnWindows) {
        Expand-Archive -LiteralPath $Path -DestinationPath $Destination -Force
        return $true
      }
      & tar -xzf $Path -C $Destination 2>$null
      return ($LASTEXITCODE -eq 0)
    } catch {
      return $false
    }
  }

  # The line that puts the folder on PATH in this shell.
  function Get-PathHint([string]$Directory) {
    return "`$env:PATH = '$Directory$PathSeparator' + `$env:PATH"
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
      $suffix = "-$target$ArchiveSuffix"
      if (-not ($name.StartsWith($prefix) -and $name.EndsWith($suffix))) {
        if ($name -like 'peaks-*') { Fail "$name is not for this machine ($target)" }
        Fail "$name is not a peaks archive (expected peaks-<version>-$target$ArchiveSuffix)"
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
      $store = $null
      if (-not $NoModifyPath) { $store = Get-PathStore }
      $addPath = $store -and -not (Test-OnPath $bin)
      $question = "Install peaks $archiveVersion for $target into $PeaksHome"
      if ($addPath) { $question += " and add $bin to your user PATH" }
      if (-not (Confirm-Step "$question?")) { Fail 'nothing was changed' }

      # Unpack and check next to the destination, so moving into place is a rename.
      New-Item -ItemType Directory -Force -Path $PeaksHome | Out-Null
      # An old peaks.exe that was running during the last upgrade may have stayed behind.
      Get-ChildItem -LiteralPath $PeaksHome -Filter '.staging.*' -Directory -Force |
        Where-Object { $_.Name -match '^\.staging\.[0-9a-f]{32}$' } |
        Remove-Item -Recurse -Force -ErrorAction SilentlyContinue
      $stage = Join-Path $PeaksHome ('.staging.' + [Guid]::NewGuid().ToString('N'))
      $new = Join-Path $stage 'new'
      New-Item -ItemType Directory -Path $new | Out-Null
      if (-not (Expand-PeaksArchive $found.Archive $new)) {
        Fail "$name could not be unpacked (damaged archive?); nothing was changed"
      }
      $newExe = Join-Path $new $BinaryName
      if (-not (Test-Path -LiteralPath $newExe -PathType Leaf) -or -not (Test-Path -LiteralPath (Join-Path $new 'skills') -PathType Container)) {
        Fail "$name does not hold $BinaryName and skills; nothing was changed"
      }
      if (-not $OnWindows) { & chmod 755 $newExe }
      $reported = ''
      try { $reported = (& $newExe --version 2>&1 | Out-String).Trim() } catch { $reported = $_.Exception.Message }
      if ($reported -ne "peaks $archiveVersion") {
        Fail "the peaks in $name does not run here (it printed: $reported); nothing was changed"
      }
      # The staged tree takes the installed layout: the binary goes to bin.
      $newBin = Join-Path $new 'bin'
      if (Test-Path -LiteralPath $newBin) { Fail "$name holds a bin folder of its own; nothing was changed" }
      New-Item -ItemType Directory -Path $newBin | Out-Null
      Move-Item -LiteralPath $newExe -Destination (Join-Path $newBin $BinaryName)
      $files = Get-Tree $new
      $folders = Get-Tree $new -Folders
      $owned = Read-Ownership $PeaksHome

      $unchanged = Test-SameInstall $PeaksHome $new $files $archiveVersion
      if ($unchanged) {
        Say "peaks $archiveVersion is already installed in $PeaksHome; nothing to replace"
      } else {
        $conflicts = Get-Conflicts $PeaksHome $files $folders $owned
        if ($conflicts.Count -gt 0) {
          Fail "$PeaksHome already holds files this installer did not put there: $($conflicts -join ', '). It never replaces them: move them away, or install somewhere else with PEAKS_HOME. Nothing was changed."
        }
        Move-IntoPlace $PeaksHome $stage $files $folders $owned
      }

      $exe = Join-Path $bin $BinaryName
      $pathEntries = @($owned.PathEntries)
      if ($addPath) {
        # Only an entry this installer added is listed, so -Uninstall never removes one the user had.
        if (Update-UserPath $store $bin $true) {
          Say "added $bin to your user PATH"
          if ($pathEntries -notcontains "path=$bin") { $pathEntries += "path=$bin" }
        } else {
          Say "your user PATH already holds $bin"
        }
        $env:PATH = "$bin$PathSeparator$env:PATH"
      }
      $lines = @(
        '# Written by the peaks installer: -Uninstall removes exactly these.',
        "version=$archiveVersion",
        "target=$target"
      )
      foreach ($file in $files) { $lines += "file=$file" }
      # Folders it created: -Uninstall removes them once they are empty.
      $made = @($owned.Made | Where-Object { Test-Path -LiteralPath (Get-InstalledPath $PeaksHome $_) -PathType Container })
      [Array]::Sort($made, [StringComparer]::Ordinal)
      foreach ($folder in $made) { $lines += "mkdir=$folder" }
      $lines += $pathEntries
      # The same install again leaves the manifest as it is, timestamp included.
      $manifest = Join-Path $PeaksHome $ManifestName
      $previous = if (Test-Path -LiteralPath $manifest) { @(Get-Content -LiteralPath $manifest) -join "`n" } else { $null }
      if ($previous -ne ($lines -join "`n")) {
        $temp = "$manifest.tmp"
        [IO.File]::WriteAllLines($temp, [string[]]$lines)
        Move-Item -LiteralPath $temp -Destination $manifest -Force
      }

      if (-not $unchanged) { Say "installed peaks $archiveVersion into $PeaksHome" }
      if (Test-OnPath $bin) {
        Say 'Next step: cd into your project (its git repository), then run: peaks skills install'
      } else {
        $hint = Get-PathHint $bin
        if ($OnWindows) {
          Say "peaks is not on PATH. Add it with: $hint"
        } else {
          Say "peaks is not on PATH. Add it with: $hint (put that line in `$PROFILE to keep it)"
        }
        Say "Next step: cd into your project (its git repository), then run: & '$exe' skills install"
      }
    } finally {
      Remove-Item -LiteralPath $work -Recurse -Force -ErrorAction SilentlyContinue
      if ($stage) { Remove-Item -LiteralPath $stage -Recurse -Force -ErrorAction SilentlyContinue }
    }
  }

  function Invoke-Main {
    if ($Unexpected -and $Unexpected.Count -gt 0) {
      Fail-Usage "unknown option: $($Unexpected[0])"
    }
    if ($Help) {
      Write-Output $Usage
      return
    }
    $wanted = if ($Version) { $Version -replace '^v', '' } else { 'latest' }
    if ($wanted -ne 'latest' -and $wanted -notmatch '^[0-9][0-9A-Za-z.+-]*$') {
      Fail-Usage "-Version must look like 2.0.0 (got: $wanted)"
    }
    $peaksHome = Get-PeaksHome
    if ($Uninstall) { Invoke-Uninstall $peaksHome } else { Invoke-Install $peaksHome $wanted }
  }

  # True when this PowerShell ends after the current command (pwsh -File, -Command, ...), so
  # `exit` only sets its status; in an interactive window `exit` would close it.
  function Test-SessionEndsAfter {
    $ends = $false
    foreach ($word in @([Environment]::GetCommandLineArgs() | Select-Object -Skip 1)) {
      if ($word -match '^[-/](noe|noexit)$') { return $false }
      if ($word -match '^[-/](c|command|e|ec|encodedcommand|f|file)$') { $ends = $true }
    }
    return $ends
  }

  $status = 0
  try {
    Invoke-Main
  } catch {
    $status = 1
    $message = $_.Exception.Message
    if ($_.Exception -is [System.ArgumentException]) {
      $status = 2
      $message += "`nRun install.ps1 -Help for the options."
    }
    $Host.UI.WriteErrorLine("error: $message")
  }
  if ($status -ne 0) {
    if ($PSCommandPath -or (Test-SessionEndsAfter)) { exit $status }
    # `irm ... | iex` in an open window: the window stays, the status is in $LASTEXITCODE.
    $global:LASTEXITCODE = $status
  }
} $args
