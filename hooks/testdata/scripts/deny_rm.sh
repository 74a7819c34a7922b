#!/bin/sh
# A PreToolUse guard in Claude Code's simplest form: exit 2 blocks, and
# standard error is the reason the model reads.
if grep -q 'rm -rf'; then
  echo "rm -rf is not allowed here; delete files one by one" >&2
  exit 2
fi
exit 0
