#!/bin/sh
# pkgconfig_build.sh CC PREFIX OUT: builds version.c with the flags
# `pkg-config tgc-runtime` and `pkg-config tgc` give for PREFIX, and runs
# both programs (finding the libraries through LD_LIBRARY_PATH, as pkg-config
# users do). Prints the flags with PREFIX written as <prefix>.
set -e
cc=$1 prefix=$2 out=$3
here=$(dirname "$0")
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
mkdir -p "$out"
for package in tgc-runtime tgc; do
  flags=$(pkg-config --cflags --libs "$package")
  echo "$package: $flags" | sed "s|$prefix|<prefix>|g"
  # Word splitting of $flags is intended.
  "$cc" "$here/version.c" -o "$out/$package" $flags
  LD_LIBRARY_PATH="$prefix/lib" "$out/$package"
done
