# Shared by the Pester files: the fixture tests/pwsh/harness.ts laid out, and install.ps1 run in a
# child PowerShell with exactly the environment a test gives it (a scratch home, never the real one).

$Fixture = Get-Content -Raw -LiteralPath $env:PEAKS_PESTER_FIXTURE | ConvertFrom-Json

# A fresh scratch folder: home, PEAKS_HOME and the user PATH store of one test.
function New-Sandbox {
  $root = Join-Path $TestDrive ([Guid]::NewGuid().ToString('N').Substring(0, 8))
  $homeDir = Join-Path $root 'home'
  New-Item -ItemType Directory -Path $homeDir -Force | Out-Null
  [pscustomobject]@{
    Root = $root
    Home = $homeDir
    PeaksHome = Join-Path $homeDir '.peaks'
    PathStore = Join-Path $root 'user-path.txt'
    Tmp = (New-Item -ItemType Directory -Path (Join-Path $root 'tmp') -Force).FullName
  }
}

# The variables every child gets: a scratch home and temp folder, this PATH, no telemetry.
function Get-BaseEnvironment($Box) {
  $vars = [ordered]@{
    HOME = $Box.Home
    USERPROFILE = $Box.Home
    PATH = $env:PATH
    TMPDIR = $Box.Tmp
    TMP = $Box.Tmp
    TEMP = $Box.Tmp
    PEAKS_HOME = $Box.PeaksHome
    PEAKS_TEST_PATH_STORE = $Box.PathStore
    POWERSHELL_TELEMETRY_OPTOUT = '1'
    POWERSHELL_UPDATECHECK = 'Off'
    DOTNET_CLI_TELEMETRY_OPTOUT = '1'
    NO_COLOR = '1'
  }
  foreach ($name in 'DOTNET_ROOT', 'SystemRoot', 'SystemDrive', 'windir', 'ComSpec', 'PATHEXT') {
    $value = [Environment]::GetEnvironmentVariable($name)
    if ($value) { $vars[$name] = $value }
  }
  if ($Fixture.windows) {
    $vars.APPDATA = Join-Path $Box.Home 'AppData\Roaming'
    $vars.LOCALAPPDATA = Join-Path $Box.Home 'AppData\Local'
  }
  return $vars
}

# Runs a PowerShell (the one install.ps1 is tested under, by default) with exactly $Environment
# on top of the sandbox's variables (a $null value removes one), stdin closed.
function Invoke-Shell {
  param(
    [Parameter(Mandatory)]$Box,
    [string[]]$Arguments = @(),
    [System.Collections.IDictionary]$Environment = @{},
    [string]$Shell = $Fixture.installerShell
  )
  $info = [Diagnostics.ProcessStartInfo]::new($Shell)
  $info.ArgumentList.Add('-NoProfile')
  $info.ArgumentList.Add('-NonInteractive')
  if ($Shell -match 'powershell(\.exe)?$') {
    $info.ArgumentList.Add('-ExecutionPolicy')
    $info.ArgumentList.Add('Bypass')
  }
  foreach ($argument in $Arguments) { $info.ArgumentList.Add($argument) }
  $info.UseShellExecute = $false
  $info.RedirectStandardInput = $true
  $info.RedirectStandardOutput = $true
  $info.RedirectStandardError = $true
  $info.WorkingDirectory = $Box.Root
  $info.Environment.Clear()
  $base = Get-BaseEnvironment $Box
  foreach ($key in $base.Keys) { $info.Environment[$key] = $base[$key] }
  foreach ($key in $Environment.Keys) {
    if ($null -eq $Environment[$key]) { [void]$info.Environment.Remove($key) } else { $info.Environment[$key] = [string]$Environment[$key] }
  }
  $process = [Diagnostics.Process]::Start($info)
  $process.StandardInput.Close()
  $stdout = $process.StandardOutput.ReadToEndAsync()
  $stderr = $process.StandardError.ReadToEndAsync()
  $process.WaitForExit()
  $out = $stdout.GetAwaiter().GetResult() -replace "`r`n", "`n"
  $lines = @($out.TrimEnd("`n") -split "`n")
  [pscustomobject]@{
    Code = $process.ExitCode
    Stdout = $out
    Stderr = $stderr.GetAwaiter().GetResult() -replace "`r`n", "`n"
    LastLine = $lines[-1]
  }
}

# install.ps1 with these arguments.
function Invoke-Installer {
  param(
    [Parameter(Mandatory)]$Box,
    [string[]]$Arguments = @(),
    [System.Collections.IDictionary]$Environment = @{},
    [string]$Script = $Fixture.installer
  )
  Invoke-Shell -Box $Box -Arguments (@('-File', $Script) + $Arguments) -Environment $Environment
}

# Every file and folder under a folder, with a digest for files, to compare trees.
function Get-Snapshot([string]$Path) {
  $result = [ordered]@{}
  if (-not (Test-Path -LiteralPath $Path)) { return $result }
  $root = (Resolve-Path -LiteralPath $Path).Path.TrimEnd('\', '/')
  foreach ($item in Get-ChildItem -LiteralPath $root -Recurse -Force | Sort-Object FullName) {
    $relative = $item.FullName.Substring($root.Length + 1) -replace '\\', '/'
    $result[$relative] = if ($item.PSIsContainer) { 'dir' } else { (Get-FileHash -LiteralPath $item.FullName -Algorithm SHA256).Hash }
  }
  return $result
}

function Format-Snapshot($Snapshot) {
  return (@($Snapshot.Keys | ForEach-Object { "$_=$($Snapshot[$_])" }) -join "`n")
}

# A copy of a release folder (archive and SHA256SUMS) in the sandbox, to tamper with.
function Copy-Release($Release, $Box, [string]$Name = 'release') {
  $dir = Join-Path $Box.Root $Name
  New-Item -ItemType Directory -Path $dir -Force | Out-Null
  Copy-Item -LiteralPath $Release.archive -Destination $dir
  Copy-Item -LiteralPath $Release.sums -Destination $dir
  [pscustomobject]@{ Dir = $dir; Archive = Join-Path $dir $Release.name; Sums = Join-Path $dir 'SHA256SUMS'; Name = $Release.name }
}

# The binary install.ps1 puts in place, and what it answers to --version.
function Get-InstalledVersion($Box) {
  $exe = Join-Path (Join-Path $Box.PeaksHome 'bin') $Fixture.binaryName
  return ((& $exe --version) | Out-String).Trim()
}

# No PowerShell error record, stack trace or script position in the output.
function Assert-NoStackDump($Result) {
  $text = "$($Result.Stdout)`n$($Result.Stderr)"
  $text | Should -Not -Match 'at <ScriptBlock>|\+ CategoryInfo|FullyQualifiedErrorId|ScriptStackTrace|^\s*\|\s'
}
