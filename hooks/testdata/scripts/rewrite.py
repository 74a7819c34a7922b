#!/usr/bin/env python3
"""A PreToolUse hook that rewrites its call: every command gets a timeout of
5 seconds, and a note for the model. It answers with the whole input, as
updatedInput replaces it."""
import json, sys

call = json.load(sys.stdin)
tool_input = dict(call["tool_input"])
field = "timeout" if call["tool_name"] == "Bash" else "timeout_secs"
tool_input[field] = 5000 if field == "timeout" else 5
tool_input["command"] = tool_input["command"].replace("echo hello", "echo rewritten")
json.dump({"hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "updatedInput": tool_input,
    "additionalContext": "rewrite.py: commands run with a 5 s timeout",
}}, sys.stdout)
