#!/bin/sh
# Regenerates the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --force --install --verbose
# The TAP driver the test suite uses ships with automake but is not installed by default.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/
