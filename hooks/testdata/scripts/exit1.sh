#!/bin/sh
# A hook that crashes: a non-blocking error in Claude Code's contract.
echo "exit1.sh: something broke" >&2
exit 1
