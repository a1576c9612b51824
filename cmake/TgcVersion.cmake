# The tgc version: PROJECT_VERSION (the release) plus the git commit it was
# built from. The commit is found at build time, not configure time, so that a
# new commit needs no reconfigure; the header is rewritten only when it
# changes, so an unchanged commit rebuilds nothing.
#
# Where the commit comes from, first that works:
#   -DTGC_GIT_COMMIT=...          (packagers)
#   git rev-parse HEAD            (a checkout whose top level is this source tree)
#   cmake/commit.txt              (filled in by `git archive`: export-subst)
#   "unknown"

set(TGC_GIT_COMMIT "" CACHE STRING
  "Commit to report in tgc's version (default: from git, or from a git archive)")

set(TGC_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
configure_file(${PROJECT_SOURCE_DIR}/runtime/include/tgc/Version.h.in
  ${TGC_GENERATED_DIR}/include/tgc/Version.h @ONLY)

add_custom_target(tgc-commit
  COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DOUTPUT=${TGC_GENERATED_DIR}/private/TgcCommit.h
    -DOVERRIDE=${TGC_GIT_COMMIT}
    -P ${PROJECT_SOURCE_DIR}/cmake/WriteCommit.cmake
  BYPRODUCTS ${TGC_GENERATED_DIR}/private/TgcCommit.h
  COMMENT "Checking the git commit for tgc's version"
  VERBATIM)

# Before 1.0 every minor release may change the ABI: libtgc.so.0.1, .0.2, ...
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(TGC_SOVERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
else()
  set(TGC_SOVERSION "${PROJECT_VERSION_MAJOR}")
endif()
