#!/bin/sh
# A hook that allows everything.
cat >/dev/null
printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "allow.sh trusts everyone"}}'
