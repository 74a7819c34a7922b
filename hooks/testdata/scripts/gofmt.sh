#!/bin/sh
# A PostToolUse formatter: gofmt -w the file the call edited, and tell the
# model when it changed anything. Works for Quiver's names (path) and Claude
# Code's (file_path, absolute).
input=$(cat)
file=$(printf '%s' "$input" | python3 -c 'import json,sys; t=json.load(sys.stdin)["tool_input"]; print(t.get("file_path") or t.get("path") or "")')
case "$file" in *.go) ;; *) exit 0 ;; esac
before=$(cat "$file")
gofmt -w "$file" || exit 1
if [ "$before" != "$(cat "$file")" ]; then
  printf '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "gofmt changed %s"}}' "$(basename "$file")"
fi
