#!/usr/bin/env python3
"""A PreToolUse guard that answers in JSON: hookSpecificOutput.permissionDecision."""
import json, sys

call = json.load(sys.stdin)
command = call.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    json.dump({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "guard.py: rm -rf is not allowed (" + call["tool_name"] + ")",
    }}, sys.stdout)
