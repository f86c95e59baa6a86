#!/usr/bin/env bash
# check-format-version.sh [BASE_REF] — the path-based format-version gate
# (shared/specs/goon.md §6.2). For each output format, a change in BASE...HEAD
# to the format's non-test Go sources requires its config/*_VERSION file to
# hold a valid semantic version greater than the one at BASE.
#
# Exit 0: passed, skipped or nothing watched changed. 1: a bump is missing or
# invalid. 2: usage error or BASE not resolvable (fetch it first; a shallow
# clone must fetch the base).
#
# Skips (for wire-neutral edits only; the fingerprint check in `make test`
# still runs): SKIP_FORMAT_VERSION_CHECK=1 (all formats),
# SKIP_<FORMAT>_FORMAT_VERSION_CHECK=1 (one format, e.g. SKIP_GOON_...), or the
# tag [skip format-version-check] / [skip <format>-format-version-check] in the
# merge request title or description (CI_MERGE_REQUEST_TITLE,
# CI_MERGE_REQUEST_DESCRIPTION) or in any commit message of BASE...HEAD.
set -euo pipefail

usage() { echo "usage: $0 [BASE_REF]" >&2; exit 2; }
[[ $# -le 1 ]] || usage
base="${1:-origin/main}"
[[ "$base" != -* ]] || usage

if ! git rev-parse --verify --quiet "${base}^{commit}" >/dev/null; then
  echo "check-format-version: base ref '$base' is not resolvable; fetch it first (e.g. git fetch origin main)" >&2
  exit 2
fi

# format ; watched paths (extended regexes; *_test.go never counts) ; version file
table=(
  "goon;^(goon|graphresponse|formatter)/.*\\.go$;config/GOON_OUTPUT_FORMAT_VERSION"
  "raw;^graphresponse/.*\\.go$;^config/schemas/query_response\\.json$;config/RAW_OUTPUT_FORMAT_VERSION"
  "gcf;^gcf/.*\\.go$;config/GCF_OUTPUT_FORMAT_VERSION"
  "gcx;^gcx/.*\\.go$;config/GCX_OUTPUT_FORMAT_VERSION"
  "toon;^toon/.*\\.go$;config/TOON_OUTPUT_FORMAT_VERSION"
  "markdown;^markdown/.*\\.go$;config/MARKDOWN_OUTPUT_FORMAT_VERSION"
  "xml;^xmlgraph/.*\\.go$;^config/schemas/graph_response\\.xsd$;config/XML_OUTPUT_FORMAT_VERSION"
  "gcb1;^gcb1/.*\\.go$;config/GCB1_OUTPUT_FORMAT_VERSION"
)

# Buffer the log before grepping, so grep -q cannot SIGPIPE git under pipefail.
messages="$(git log --format=%B "${base}...HEAD")"
messages+=$'\n'"${CI_MERGE_REQUEST_TITLE:-}"$'\n'"${CI_MERGE_REQUEST_DESCRIPTION:-}"

skipped() { # $1 = format name
  local upper
  upper="$(tr '[:lower:]-' '[:upper:]_' <<<"$1")"
  [[ "${SKIP_FORMAT_VERSION_CHECK:-}" == 1 ]] && return 0
  local var="SKIP_${upper}_FORMAT_VERSION_CHECK"
  [[ "${!var:-}" == 1 ]] && return 0
  grep -qF "[skip format-version-check]" <<<"$messages" && return 0
  grep -qF "[skip $1-format-version-check]" <<<"$messages" && return 0
  return 1
}

semver_re='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'

# semver_gt A B: true when A has higher precedence than B (both valid).
semver_gt() {
  local a="${1%%+*}" b="${2%%+*}"
  local acore="${a%%-*}" bcore="${b%%-*}" apre="" bpre=""
  [[ "$a" == *-* ]] && apre="${a#*-}"
  [[ "$b" == *-* ]] && bpre="${b#*-}"
  local IFS=.
  local -a x=($acore) y=($bcore)
  for i in 0 1 2; do
    if (( 10#${x[i]} > 10#${y[i]} )); then return 0; fi
    if (( 10#${x[i]} < 10#${y[i]} )); then return 1; fi
  done
  [[ -z "$apre" && -n "$bpre" ]] && return 0
  [[ -z "$bpre" ]] && return 1
  [[ -z "$apre" ]] && return 1
  local -a p=($apre) q=($bpre)
  local n=${#p[@]}
  (( ${#q[@]} > n )) && n=${#q[@]}
  for ((i = 0; i < n; i++)); do
    [[ $i -ge ${#p[@]} ]] && return 1
    [[ $i -ge ${#q[@]} ]] && return 0
    local s="${p[i]}" t="${q[i]}"
    if [[ "$s" =~ ^[0-9]+$ && "$t" =~ ^[0-9]+$ ]]; then
      (( 10#$s > 10#$t )) && return 0
      (( 10#$s < 10#$t )) && return 1
    elif [[ "$s" =~ ^[0-9]+$ ]]; then return 1
    elif [[ "$t" =~ ^[0-9]+$ ]]; then return 0
    else
      [[ "$s" > "$t" ]] && return 0
      [[ "$s" < "$t" ]] && return 1
    fi
  done
  return 1
}

changed="$(git diff --name-only "${base}...HEAD")"
status=0
for row in "${table[@]}"; do
  IFS=';' read -r -a parts <<<"$row"
  name="${parts[0]}"
  file="${parts[${#parts[@]}-1]}"
  hit=""
  while IFS= read -r path; do
    [[ -z "$path" ]] && continue
    for re in "${parts[@]:1:${#parts[@]}-2}"; do
      if [[ "$path" =~ $re ]]; then
        if [[ "$path" == *.go && "$path" == *_test.go ]]; then continue; fi
        hit="$path"
        break 2
      fi
    done
  done <<<"$changed"
  [[ -z "$hit" ]] && continue
  if skipped "$name"; then
    echo "check-format-version: $name: skipped by request (changed: $hit)"
    continue
  fi
  new="$(git show "HEAD:$file" 2>/dev/null | tr -d '[:space:]' || true)"
  old="$(git show "${base}:$file" 2>/dev/null | tr -d '[:space:]' || true)"
  if [[ ! "$new" =~ $semver_re ]]; then
    echo "check-format-version: $name: $hit changed but $file holds '$new', not a semantic version" >&2
    status=1
  elif [[ -n "$old" && "$new" == "$old" ]]; then
    echo "check-format-version: $name: $hit changed but $file is still $old: bump it (patch for fixes, minor for additions, major for breaking changes) and refresh config/format-versions.lock" >&2
    status=1
  elif [[ -n "$old" ]] && ! semver_gt "$new" "$old"; then
    echo "check-format-version: $name: $file went from $old to $new: a bump must increase the version" >&2
    status=1
  else
    echo "check-format-version: $name: $file ${old:-(new)} -> $new"
  fi
done
exit "$status"
