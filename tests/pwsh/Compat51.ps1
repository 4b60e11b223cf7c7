# What Windows PowerShell 5.1 lacks, found in a script's syntax tree: Get-Ps7OnlyConstruct lists
# each construct PowerShell 7 added that a script uses, as "line <n>: <what>". The script is
# parsed with PowerShell's own parser ([System.Management.Automation.Language.Parser]::ParseFile).

# Commands PowerShell 7 added.
$Ps7OnlyCommands = @(
  'Get-Error', 'Test-Json', 'Join-String', 'Get-Uptime', 'Remove-Alias', 'Remove-Service',
  'ConvertFrom-Markdown', 'Show-Markdown', 'Get-MarkdownOption', 'Set-MarkdownOption',
  'Get-PSSubsystem', 'Enable-ExperimentalFeature', 'Disable-ExperimentalFeature'
)

# Parameters PowerShell 7 added, per command ('*': any command).
$Ps7OnlyParameters = @{
  '*' = @('SkipCertificateCheck', 'SkipHttpErrorCheck', 'AsByteStream', 'SslProtocol')
  'ForEach-Object' = @('Parallel', 'ThrottleLimit', 'TimeoutSeconds', 'AsJob')
  'ConvertFrom-Json' = @('AsHashtable', 'Depth', 'NoEnumerate')
  'ConvertTo-Json' = @('AsArray', 'EnumsAsStrings', 'EscapeHandling')
  'Invoke-WebRequest' = @('Authentication', 'Token', 'Resume', 'StatusCodeVariable', 'ResponseHeadersVariable', 'AllowInsecureRedirect', 'HttpVersion')
  'Invoke-RestMethod' = @('Authentication', 'Token', 'Resume', 'StatusCodeVariable', 'ResponseHeadersVariable', 'AllowInsecureRedirect', 'HttpVersion')
  'Split-Path' = @('Extension', 'LeafBase')
  'Select-Object' = @('SkipIndex')
  'Start-Process' = @('Environment')
  'Get-Content' = @('AsByteStream')
  'Test-Connection' = @('TcpPort', 'Ping', 'Traceroute', 'MtuSize', 'Repeat')
}

$Aliases = @{ '%' = 'ForEach-Object'; 'foreach' = 'ForEach-Object'; 'select' = 'Select-Object'; 'iwr' = 'Invoke-WebRequest'; 'irm' = 'Invoke-RestMethod' }

function Get-Ps7OnlyConstruct([string]$Path) {
  $tokens = $null
  $errors = $null
  $ast = [System.Management.Automation.Language.Parser]::ParseFile($Path, [ref]$tokens, [ref]$errors)
  $found = [System.Collections.Generic.List[string]]::new()
  foreach ($e in $errors) { $found.Add("line $($e.Extent.StartLineNumber): does not parse: $($e.Message)") }
  $say = { param($node, $what) $found.Add("line $($node.Extent.StartLineNumber): $what") }

  foreach ($node in $ast.FindAll({ $true }, $true)) {
    switch ($node.GetType().Name) {
      'TernaryExpressionAst' { & $say $node 'the ternary operator a ? b : c' }
      'PipelineChainAst' { & $say $node "the pipeline chain operator $($node.Operator -eq 'AndAnd' ? '&&' : '||')" }
      'BinaryExpressionAst' {
        if ($node.Operator -eq [System.Management.Automation.Language.TokenKind]::QuestionQuestion) { & $say $node 'the null-coalescing operator ??' }
        $replacement = $node.Right
        if ($replacement -is [System.Management.Automation.Language.ArrayLiteralAst]) { $replacement = $replacement.Elements[-1] }
        if ($node.Operator -in 'Ireplace', 'Creplace' -and $replacement -is [System.Management.Automation.Language.ScriptBlockExpressionAst]) {
          & $say $node '-replace with a script block'
        }
      }
      'AssignmentStatementAst' {
        if ($node.Operator -eq [System.Management.Automation.Language.TokenKind]::QuestionQuestionEquals) { & $say $node 'the null-coalescing assignment ??=' }
      }
      { $_ -in 'MemberExpressionAst', 'InvokeMemberExpressionAst' } {
        if ($node.NullConditional) { & $say $node 'the null-conditional member access ?.' }
      }
      'IndexExpressionAst' {
        if ($node.NullConditional) { & $say $node 'the null-conditional index ?[]' }
      }
      'ScriptBlockAst' {
        if ($node.CleanBlock) { & $say $node.CleanBlock 'a clean block' }
      }
      'VariableExpressionAst' {
        $name = $node.VariablePath.UserPath
        if ($name -in 'IsWindows', 'IsLinux', 'IsMacOS', 'IsCoreCLR', 'PSStyle') {
          # 5.1 has no such variable: only a use next to a PSEdition check is safe.
          $statement = $node
          while ($statement.Parent -and -not ($statement.Parent -is [System.Management.Automation.Language.StatementBlockAst] -or
              $statement.Parent -is [System.Management.Automation.Language.NamedBlockAst])) {
            $statement = $statement.Parent
          }
          if ($statement.Extent.Text -notmatch 'PSEdition') { & $say $node "`$$name without a PSEdition guard (5.1 has no such variable)" }
        }
      }
      { $_ -in 'ExpandableStringExpressionAst', 'StringConstantExpressionAst' } {
        if ($node.Extent.Text -match '^@?"[\s\S]*`u\{') { & $say $node 'the `u{...} escape' }
      }
      'CommandAst' {
        $name = $node.GetCommandName()
        if (-not $name) { continue }
        if ($Aliases.ContainsKey($name)) { $name = $Aliases[$name] }
        if ($Ps7OnlyCommands -contains $name) { & $say $node "the command $name" }
        $parameters = @($node.CommandElements | Where-Object { $_ -is [System.Management.Automation.Language.CommandParameterAst] })
        $newer = @(@($Ps7OnlyParameters['*']) + @($Ps7OnlyParameters[$name]) | Where-Object { $_ } | Select-Object -Unique)
        foreach ($parameter in $parameters) {
          if ($newer -contains $parameter.ParameterName) { & $say $parameter "$name -$($parameter.ParameterName)" }
        }
        if ($name -eq 'Join-Path') {
          $positional = 0
          $elements = @($node.CommandElements | Select-Object -Skip 1)
          for ($i = 0; $i -lt $elements.Count; $i++) {
            if ($elements[$i] -is [System.Management.Automation.Language.CommandParameterAst]) {
              if (-not $elements[$i].Argument -and $elements[$i].ParameterName -notin 'Resolve') { $i++ }
            } else {
              $positional++
            }
          }
          if ($positional -gt 2) { & $say $node 'Join-Path with more than two positional paths' }
        }
      }
    }
  }
  return , $found.ToArray()
}
