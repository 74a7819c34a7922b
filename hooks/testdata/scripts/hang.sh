#!/bin/sh
# A hook that never answers.
sleep 600
