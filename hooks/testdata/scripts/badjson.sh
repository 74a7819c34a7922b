#!/bin/sh
# A hook whose answer starts as JSON and is not.
printf '{"hookSpecificOutput": {"permissionDecision": "deny"'
