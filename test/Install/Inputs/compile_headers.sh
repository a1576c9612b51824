#!/bin/sh
# compile_headers.sh CC CXX INCLUDE_DIR: compiles every installed tgc header
# on its own (C++17, and tgc.h, the C API, also as C11), warnings as errors, against
# that include directory only. Prints "ok <header> (<language>)" for each.
set -e
cc=$1 cxx=$2 include=$3
for header in "$include"/tgc/*; do
  name=$(basename "$header")
  echo "#include \"tgc/$name\"" |
    "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$include" -x c++ -
  echo "ok $name (C++17)"
done
for name in tgc.h; do
  echo "#include \"tgc/$name\"" |
    "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$include" -x c -
  echo "ok $name (C11)"
done
