#!/bin/sh
# Installs peaks: the binary in $PEAKS_HOME/bin and the skills in $PEAKS_HOME/skills.
# POSIX sh with the usual tools (uname, tar and gzip, awk, sed, grep, find, sort, mktemp), sha256sum or
# shasum, and curl or wget only when it downloads. `sh install.sh --help` lists the options.
set -eu

# The release workflow writes the project's releases address here when it publishes
# this script; a checkout leaves it empty (use PEAKS_DOWNLOAD_BASE or --archive).
default_download_base=''

marker='# added by the peaks installer'
manifest_name='.install-manifest'

usage() {
  cat <<'EOF'
Install peaks (the binary and its agent skills).

Usage: install.sh [options]

Options:
  --version <v>       Version to install, e.g. 2.0.0 (default: the latest release).
  --archive <file>    Install from a local archive instead of downloading one.
  --checksums <file>  SHA256SUMS for that archive (default: SHA256SUMS next to it).
  --no-modify-path    Leave shell profiles alone; print the PATH line instead.
  --yes, -y           Do not ask for confirmation.
  --uninstall         Remove what this installer put into the install directory.
  --help, -h          Show this help.

Environment:
  PEAKS_HOME           Install directory (default: ~/.peaks): bin/peaks and skills/.
  PEAKS_VERSION        Same as --version.
  PEAKS_ARCHIVE        Same as --archive.
  PEAKS_CHECKSUMS      Same as --checksums.
  PEAKS_DOWNLOAD_BASE  Releases address to download from: <base>/download/v<version>/<file>
                       and <base>/latest/download/<file> (https://, http:// or file://).

An archive named peaks-<version>-<target>.tar.gz lying next to this script is used
without downloading anything. Every archive is checked against SHA256SUMS before it
is unpacked; a mismatch stops the installer and changes nothing.
EOF
}

say() { printf '%s\n' "$*"; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}
die_usage() {
  printf 'error: %s\nRun install.sh --help for the options.\n' "$*" >&2
  exit 2
}

# Words for a shell: single-quoted unless plain.
quote() {
  case "$1" in
    *[!A-Za-z0-9_./:=@%+-]* | '') printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf '%s' "$1" ;;
  esac
}

version="${PEAKS_VERSION:-}"
archive="${PEAKS_ARCHIVE:-}"
checksums="${PEAKS_CHECKSUMS:-}"
modify_path=1
assume_yes=0
action=install

while [ $# -gt 0 ]; do
  case "$1" in
    --version | --archive | --checksums)
      [ $# -ge 2 ] || die_usage "$1 needs a value"
      case "$1" in
        --version) version="$2" ;;
        --archive) archive="$2" ;;
        --checksums) checksums="$2" ;;
      esac
      shift 2
      ;;
    --version=*) version="${1#*=}" && shift ;;
    --archive=*) archive="${1#*=}" && shift ;;
    --checksums=*) checksums="${1#*=}" && shift ;;
    --no-modify-path) modify_path=0 && shift ;;
    --yes | -y) assume_yes=1 && shift ;;
    --uninstall) action=uninstall && shift ;;
    --help | -h)
      usage
      exit 0
      ;;
    *) die_usage "unknown option: $1" ;;
  esac
done

version="${version#v}"
case "$version" in
  '' | latest) version=latest ;;
  *[!0-9A-Za-z.+-]* | [!0-9]*) die_usage "--version must look like 2.0.0 (got: $version)" ;;
esac

[ -n "${HOME:-}" ] || die "HOME is not set; set PEAKS_HOME to the install directory"
peaks_home="${PEAKS_HOME:-$HOME/.peaks}"
case "$peaks_home" in
  /*) ;;
  *) peaks_home="$(pwd)/$peaks_home" ;;
esac
bin_dir="$peaks_home/bin"

work_dir=''
stage_dir=''
cleanup() {
  [ -z "$work_dir" ] || rm -rf "$work_dir"
  [ -z "$stage_dir" ] || rm -rf "$stage_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Asks only when a person can answer: a terminal on stdout and /dev/tty to read.
confirm() {
  [ "$assume_yes" = 1 ] && return 0
  [ -t 1 ] || return 0
  (: </dev/tty) 2>/dev/null || return 0
  printf '%s [Y/n] ' "$1"
  answer=''
  read -r answer </dev/tty || answer=n
  case "$answer" in
    '' | [Yy] | [Yy][Ee][Ss]) return 0 ;;
    *) return 1 ;;
  esac
}

detect_target() {
  os="$(uname -s)"
  arch="$(uname -m)"
  case "$os" in
    Linux) os_part=unknown-linux-gnu ;;
    Darwin) os_part=apple-darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      die "this is Windows: run install.ps1 in PowerShell instead"
      ;;
    *) die "peaks has no release for $os" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch_part=x86_64 ;;
    aarch64 | arm64) arch_part=aarch64 ;;
    *) die "peaks has no release for $os on $arch" ;;
  esac
  # A shell translated by Rosetta reports x86_64 on Apple silicon; the native build is better.
  if [ "$os_part" = apple-darwin ] && [ "$arch_part" = x86_64 ] &&
    [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    arch_part=aarch64
  fi
  printf '%s-%s' "$arch_part" "$os_part"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | awk '{print $1}'
  else
    shasum -a 256 "$1" | awk '{print $1}'
  fi
}

# fetch <url> <file>: file:// and plain paths are copied, the rest needs curl or wget.
fetch() {
  case "$1" in
    file://*) cp "${1#file://}" "$2" 2>/dev/null ;;
    /*) cp "$1" "$2" 2>/dev/null ;;
    *)
      if command -v curl >/dev/null 2>&1; then
        curl --fail --silent --show-error --location --output "$2" "$1"
      elif command -v wget >/dev/null 2>&1; then
        wget --quiet --output-document="$2" "$1"
      else
        die "neither curl nor wget is installed; download the archive and SHA256SUMS yourself and pass --archive"
      fi
      ;;
  esac
}

# The line of SHA256SUMS for a file name: prints its digest or nothing.
expected_sha256() {
  awk -v name="$2" '($2 == name || $2 == "*" name) && length($1) == 64 { print tolower($1); exit }' "$1"
}

script_dir() {
  case "$0" in
    */*) [ -f "$0" ] && (cd "$(dirname "$0")" && pwd) ;;
    *) [ -f "$0" ] && pwd ;;
  esac
}

# Takes the marked PATH line out of a profile. A profile the installer created is deleted once
# nothing else is left in it; one that was there before keeps existing, even when empty.
remove_profile_lines() {
  [ -f "$1" ] || return 0
  grep -F "$marker" "$1" >/dev/null 2>&1 || return 0
  kept="$(grep -v -F "$marker" "$1" || true)"
  if [ -z "$kept" ] && [ "$2" = created-profile ] && [ ! -L "$1" ]; then
    rm -f "$1"
  elif [ -L "$1" ]; then
    # A symlinked dotfile is rewritten through the link, so it stays a link.
    if [ -n "$kept" ]; then printf '%s\n' "$kept"; fi >"$1"
  else
    # cp -p keeps the file's mode; the rename swaps the whole file at once.
    cp -p "$1" "$1.peaks-tmp"
    if [ -n "$kept" ]; then printf '%s\n' "$kept"; fi >"$1.peaks-tmp"
    mv -f "$1.peaks-tmp" "$1"
  fi
  say "removed the PATH line from $1"
}

safe_relative() {
  case "$1" in
    '' | . | /* | .. | ../* | */.. | */../*) return 1 ;;
    *) return 0 ;;
  esac
}

uninstall() {
  manifest="$peaks_home/$manifest_name"
  if [ ! -f "$manifest" ]; then
    if [ -e "$bin_dir/peaks" ]; then
      die "$bin_dir/peaks was not put there by this installer (no $manifest_name); remove it yourself if you want it gone"
    fi
    say "peaks is not installed in $peaks_home; nothing to remove."
    return 0
  fi
  confirm "Remove peaks from $peaks_home?" || die "nothing was removed"
  while IFS='=' read -r kind value; do
    case "$kind" in
      file | dir | mkdir)
        safe_relative "$value" || die "$manifest lists an unsafe path: $value"
        ;;
    esac
    case "$kind" in
      file) rm -f "${peaks_home:?}/$value" ;;
      # A whole tree, as installers before the file-by-file manifest listed skills/.
      dir) rm -rf "${peaks_home:?}/$value" ;;
      profile | created-profile) remove_profile_lines "$value" "$kind" ;;
    esac
  done <"$manifest"
  # Folders the installer created go when they are empty; deepest first.
  sed -n 's/^mkdir=//p' "$manifest" | sort -r | while IFS= read -r folder; do
    rmdir "${peaks_home:?}/$folder" 2>/dev/null || true
  done
  rm -f "$manifest"
  rmdir "$bin_dir" 2>/dev/null || true
  rmdir "$peaks_home" 2>/dev/null || true
  say "Skills that 'peaks skills install' copied into agent folders were left in place."
  say "Removed peaks from $peaks_home."
}

choose_profile() {
  case "$(basename "${SHELL:-sh}")" in
    zsh) printf '%s' "${ZDOTDIR:-$HOME}/.zshrc" ;;
    bash)
      if [ "$(uname -s)" = Darwin ]; then printf '%s' "$HOME/.bash_profile"; else printf '%s' "$HOME/.bashrc"; fi
      ;;
    fish) printf '%s' "${XDG_CONFIG_HOME:-$HOME/.config}/fish/conf.d/peaks.fish" ;;
    *) printf '%s' "$HOME/.profile" ;;
  esac
}

# The shell command that puts bin_dir first on PATH, for the profile at $1.
# shellcheck disable=SC2016 # $PATH is meant literally: the profile expands it.
path_command() {
  case "$1" in
    *.fish) printf 'fish_add_path --global --prepend %s' "$(quote "$bin_dir")" ;;
    *) printf 'export PATH=%s:"$PATH"' "$(quote "$bin_dir")" ;;
  esac
}

path_line() { printf '%s %s' "$(path_command "$1")" "$marker"; }

on_path() {
  case ":${PATH:-}:" in
    *":$bin_dir:"*) return 0 ;;
    *) return 1 ;;
  esac
}

# Resolves $archive and $checksums, downloading both when no local archive is given.
locate_archive() {
  target="$1"
  if [ -z "$archive" ]; then
    here="$(script_dir || true)"
    if [ -n "$here" ]; then
      pattern="peaks-*-$target.tar.gz"
      [ "$version" = latest ] || pattern="peaks-$version-$target.tar.gz"
      found=''
      count=0
      for candidate in "$here"/$pattern; do
        [ -f "$candidate" ] || continue
        found="$candidate"
        count=$((count + 1))
      done
      if [ "$count" -gt 1 ]; then
        die "several peaks archives for $target lie next to the installer; pick one with --archive"
      fi
      if [ -n "$found" ]; then
        archive="$found"
        say "using the archive next to the installer: $archive"
      fi
    fi
  fi
  if [ -n "$archive" ]; then
    [ -f "$archive" ] || die "archive not found: $archive"
    if [ -z "$checksums" ]; then
      checksums="$(dirname "$archive")/SHA256SUMS"
      [ -f "$checksums" ] ||
        die "no SHA256SUMS next to $archive; pass --checksums <file> (an archive is never installed unverified)"
    fi
    [ -f "$checksums" ] || die "checksums file not found: $checksums"
    return 0
  fi

  base="${PEAKS_DOWNLOAD_BASE:-$default_download_base}"
  [ -n "$base" ] ||
    die "no download address: set PEAKS_DOWNLOAD_BASE to the releases address, or pass --archive <file>"
  base="${base%/}"
  work_dir="$(mktemp -d "${TMPDIR:-/tmp}/peaks-install.XXXXXX")"
  if [ "$version" = latest ]; then
    fetch "$base/latest/download/SHA256SUMS" "$work_dir/SHA256SUMS" ||
      die "could not download $base/latest/download/SHA256SUMS"
    latest_name="$(awk -v t="-$target.tar.gz" '{ n = $2; sub(/^\*/, "", n) } n ~ /^peaks-/ && substr(n, length(n) - length(t) + 1) == t { print n; exit }' "$work_dir/SHA256SUMS")"
    [ -n "$latest_name" ] || die "the latest release has no archive for $target"
    version="${latest_name#peaks-}"
    version="${version%-"$target".tar.gz}"
  fi
  name="peaks-$version-$target.tar.gz"
  say "downloading peaks $version for $target"
  fetch "$base/download/v$version/SHA256SUMS" "$work_dir/SHA256SUMS" ||
    die "could not download $base/download/v$version/SHA256SUMS"
  fetch "$base/download/v$version/$name" "$work_dir/$name" ||
    die "could not download $base/download/v$version/$name"
  archive="$work_dir/$name"
  checksums="$work_dir/SHA256SUMS"
}

# True when an install of this version is in place with exactly the files the staged archive
# holds: running the installer again then moves and rewrites nothing.
same_install() {
  [ -f "$peaks_home/$manifest_name" ] || return 1
  grep -x "version=$archive_version" "$peaks_home/$manifest_name" >/dev/null 2>&1 || return 1
  while IFS= read -r entry; do
    [ -f "$peaks_home/$entry" ] || return 1
    [ "$(sha256_of "$stage_dir/new/$entry")" = "$(sha256_of "$peaks_home/$entry")" ] || return 1
  done <"$stage_dir/files"
}

# What the manifest in place says the installer owns, one path a line: $stage_dir/owned for
# files, $stage_dir/made for folders it created. An older manifest's dir=<tree> owns every file
# and folder under that tree.
read_ownership() {
  : >"$stage_dir/owned"
  : >"$stage_dir/made"
  old_manifest="$peaks_home/$manifest_name"
  [ -f "$old_manifest" ] || return 0
  while IFS='=' read -r kind value; do
    case "$kind" in
      file | dir | mkdir) safe_relative "$value" || die "$old_manifest lists an unsafe path: $value" ;;
      *) continue ;;
    esac
    case "$kind" in
      file) say "$value" >>"$stage_dir/owned" ;;
      mkdir) say "$value" >>"$stage_dir/made" ;;
      dir)
        if [ -d "$peaks_home/$value" ]; then
          (cd "$peaks_home" && find "$value" -type f) >>"$stage_dir/owned"
          (cd "$peaks_home" && find "$value" -type d) >>"$stage_dir/made"
        fi
        ;;
    esac
  done <"$old_manifest"
}

listed() { grep -F -x -e "$1" "$2" >/dev/null 2>&1; }

# Refuses, naming them, the paths the archive would take that hold something the installer did
# not put there: it never deletes or overwrites a file of the user's.
check_conflicts() {
  conflicts=''
  while IFS= read -r entry; do
    if [ -e "$peaks_home/$entry" ] || [ -L "$peaks_home/$entry" ]; then
      listed "$entry" "$stage_dir/owned" || conflicts="$conflicts${conflicts:+, }$entry"
    fi
  done <"$stage_dir/files"
  while IFS= read -r folder; do
    if [ -e "$peaks_home/$folder" ] || [ -L "$peaks_home/$folder" ]; then
      [ -d "$peaks_home/$folder" ] || conflicts="$conflicts${conflicts:+, }$folder"
    fi
  done <"$stage_dir/folders"
  [ -z "$conflicts" ] ||
    die "$peaks_home already holds files this installer did not put there: $conflicts. It never replaces them: move them away, or install somewhere else with PEAKS_HOME. Nothing was changed."
}

# Moves the staged files into place. Files the last install put there that this archive no
# longer holds go; folders are created as needed and recorded; the archive's files replace only
# the installer's own (check_conflicts ran first). Folders it created that are left empty go.
place_files() {
  while IFS= read -r entry; do
    listed "$entry" "$stage_dir/files" || rm -f "${peaks_home:?}/$entry"
  done <"$stage_dir/owned"
  while IFS= read -r folder; do
    if [ ! -d "$peaks_home/$folder" ]; then
      mkdir "$peaks_home/$folder" || die "could not create $peaks_home/$folder"
      say "$folder" >>"$stage_dir/made"
    fi
  done <"$stage_dir/folders"
  while IFS= read -r entry; do
    mv -f "$stage_dir/new/$entry" "$peaks_home/$entry" || die "could not move $entry into $peaks_home"
  done <"$stage_dir/files"
  sort -r -u "$stage_dir/made" | while IFS= read -r folder; do
    listed "$folder" "$stage_dir/folders" || rmdir "${peaks_home:?}/$folder" 2>/dev/null || true
  done
}

install() {
  target="$(detect_target)"
  if ! command -v sha256sum >/dev/null 2>&1 && ! command -v shasum >/dev/null 2>&1; then
    die "neither sha256sum nor shasum is installed; the installer verifies every archive and cannot go on"
  fi
  locate_archive "$target"

  name="$(basename "$archive")"
  case "$name" in
    peaks-*-"$target".tar.gz) ;;
    peaks-*.tar.gz | peaks-*.zip) die "$name is not for this machine ($target)" ;;
    *) die "$name is not a peaks archive (expected peaks-<version>-$target.tar.gz)" ;;
  esac
  archive_version="${name#peaks-}"
  archive_version="${archive_version%-"$target".tar.gz}"
  if [ "$version" != latest ] && [ "$version" != "$archive_version" ]; then
    die "$name holds peaks $archive_version, but version $version was asked for"
  fi

  expected="$(expected_sha256 "$checksums" "$name")"
  [ -n "$expected" ] || die "$checksums has no entry for $name; refusing to install an unverified archive"
  actual="$(sha256_of "$archive" | tr 'A-F' 'a-f')"
  if [ "$expected" != "$actual" ]; then
    die "checksum mismatch for $name (expected $expected, got ${actual:-nothing}); nothing was changed"
  fi
  say "verified $name (sha256 $actual)"

  profile=''
  if [ "$modify_path" = 1 ] && ! on_path; then profile="$(choose_profile)"; fi
  question="Install peaks $archive_version for $target into $peaks_home"
  [ -z "$profile" ] || question="$question and add $bin_dir to PATH in $profile"
  confirm "$question?" || die "nothing was changed"

  # Unpack and check next to the destination, so moving into place is a rename.
  mkdir -p "$peaks_home"
  stage_dir="$(mktemp -d "$peaks_home/.staging.XXXXXX")"
  mkdir "$stage_dir/new"
  tar -xzf "$archive" -C "$stage_dir/new" 2>/dev/null ||
    die "$name could not be unpacked (damaged archive?); nothing was changed"
  if [ ! -f "$stage_dir/new/peaks" ] || [ ! -d "$stage_dir/new/skills" ]; then
    die "$name does not hold peaks and skills/; nothing was changed"
  fi
  chmod 755 "$stage_dir/new/peaks"
  reported="$("$stage_dir/new/peaks" --version 2>&1 || true)"
  [ "$reported" = "peaks $archive_version" ] ||
    die "the peaks in $name does not run here (it printed: $reported); nothing was changed"
  # The staged tree takes the installed layout: the binary goes to bin/.
  [ ! -e "$stage_dir/new/bin" ] || die "$name holds a bin/ of its own; nothing was changed"
  mkdir "$stage_dir/new/bin"
  mv "$stage_dir/new/peaks" "$stage_dir/new/bin/peaks"
  (cd "$stage_dir/new" && find . -type f) | sed 's|^\./||' | LC_ALL=C sort >"$stage_dir/files"
  (cd "$stage_dir/new" && find . -type d) | sed -n 's|^\./||p' | LC_ALL=C sort >"$stage_dir/folders"
  read_ownership

  unchanged=0
  if same_install; then
    unchanged=1
    say "peaks $archive_version is already installed in $peaks_home; nothing to replace"
  else
    check_conflicts
    place_files
  fi

  profile_kind=profile
  if [ -n "$profile" ]; then
    # A profile this installer creates is deleted again by --uninstall; one that existed is kept.
    if [ ! -e "$profile" ] ||
      grep -F -x "created-profile=$profile" "$peaks_home/$manifest_name" >/dev/null 2>&1; then
      profile_kind=created-profile
    fi
    line="$(path_line "$profile")"
    if [ -f "$profile" ] && grep -F -x "$line" "$profile" >/dev/null 2>&1; then
      say "$profile already puts $bin_dir on PATH"
    else
      mkdir -p "$(dirname "$profile")"
      # Start on a fresh line when the profile does not end with one.
      if [ -s "$profile" ] && [ -n "$(tail -c 1 "$profile")" ]; then printf '\n' >>"$profile"; fi
      printf '%s\n' "$line" >>"$profile"
      say "added $bin_dir to PATH in $profile"
    fi
  fi

  {
    say "# Written by the peaks installer: --uninstall removes exactly these."
    say "version=$archive_version"
    say "target=$target"
    sed 's/^/file=/' "$stage_dir/files"
    # Folders it created: --uninstall removes them once they are empty.
    LC_ALL=C sort -u "$stage_dir/made" | while IFS= read -r folder; do
      [ ! -d "$peaks_home/$folder" ] || say "mkdir=$folder"
    done
    [ -z "$profile" ] || say "$profile_kind=$profile"
    # Profiles an earlier install edited stay listed, so --uninstall still cleans them.
    if [ -f "$peaks_home/$manifest_name" ]; then
      awk -v path="$profile" \
        '/^(created-)?profile=/ && substr($0, index($0, "=") + 1) != path' "$peaks_home/$manifest_name"
    fi
  } >"$stage_dir/manifest"
  # The same install again leaves the manifest as it is, timestamp included.
  if [ -f "$peaks_home/$manifest_name" ] &&
    [ "$(cat "$stage_dir/manifest")" = "$(cat "$peaks_home/$manifest_name")" ]; then
    rm -f "$stage_dir/manifest"
  else
    mv -f "$stage_dir/manifest" "$peaks_home/$manifest_name"
  fi

  [ "$unchanged" = 1 ] || say "installed peaks $archive_version into $peaks_home"
  if on_path; then
    say "Next step: cd into your project (its git repository), then run: peaks skills install"
  else
    if [ -n "$profile" ]; then
      say "Open a new terminal to get peaks on PATH (or run: $(path_command "$profile"))."
    else
      say "peaks is not on PATH. Add it with: $(path_command "$HOME/.profile")"
    fi
    say "Next step: cd into your project (its git repository), then run: $(quote "$bin_dir/peaks") skills install"
  fi
}

case "$action" in
  install) install ;;
  uninstall) uninstall ;;
esac
