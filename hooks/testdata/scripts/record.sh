#!/bin/sh
# Records its standard input into the file named by its first argument.
cat > "$1"
