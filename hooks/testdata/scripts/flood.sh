#!/bin/sh
# A hook that prints 10 MB.
head -c 10485760 /dev/zero | tr '\0' 'x'
