# The properties both shared libraries (libtgc_runtime.so, libtgc.so) get:
# a versioned SONAME, only the C and C++ API exported (tgc-exports.map), no
# undefined symbols left for the loader to find, and no RUNPATH into the
# build or the CUDA toolkit (the toolkit's libraries are loaded with dlopen;
# see docs/api.md "Finding CUDA").
function(tgc_shared_library_properties target)
  set(map ${PROJECT_SOURCE_DIR}/cmake/tgc-exports.map)
  set_target_properties(${target} PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${TGC_SOVERSION}
    LINK_DEPENDS ${map}
    BUILD_RPATH_USE_ORIGIN ON
    INSTALL_RPATH "")
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${map}" "LINKER:-z,defs")
endfunction()
