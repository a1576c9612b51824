# cmake --install: the API headers, libtgc_runtime.so and libtgc.so, the
# tools, a CMake package (find_package(tgc CONFIG) gives tgc::runtime and
# tgc::tgc) and pkg-config files (tgc.pc, tgc-runtime.pc). Everything is
# relocatable: `cmake --install build --prefix DIR` works for any DIR.
# docs/api.md "Installing".
include(CMakePackageConfigHelpers)

# The public headers and everything they include, no more (the install test
# compiles each one on its own against the installed tree).
set(tgc_headers tgc.h tgc.hpp CacheStats.h CudnnGraph.h DType.h Plan.h Status.h)
list(TRANSFORM tgc_headers PREPEND ${PROJECT_SOURCE_DIR}/runtime/include/tgc/)
install(FILES ${tgc_headers} ${TGC_GENERATED_DIR}/include/tgc/Version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tgc)

set(tgc_libraries tgc_runtime_shared)
if(TARGET tgc)
  list(APPEND tgc_libraries tgc)
endif()
install(TARGETS ${tgc_libraries} EXPORT tgcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The tools link tgc statically: no RUNPATH (add_llvm_executable would give
# them $ORIGIN/../lib).
foreach(tool tg-opt tg-compile tg-run tg-emit-kernels tg-gen-attention)
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES INSTALL_RPATH "")
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

set(tgc_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
install(EXPORT tgcTargets NAMESPACE tgc:: DESTINATION ${tgc_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tgcConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/tgcConfig.cmake
  INSTALL_DESTINATION ${tgc_cmake_dir})
# Before 1.0 a minor release may change the ABI (TGC_SOVERSION).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/tgcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/tgcConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/tgcConfigVersion.cmake
  DESTINATION ${tgc_cmake_dir})

# pkg-config: the prefix is found from the .pc file's own place.
set(tgc_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${tgc_pc_dir}")
  set(TGC_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH tgc_up /tgc-prefix/${tgc_pc_dir} /tgc-prefix)
  string(REGEX REPLACE "/$" "" tgc_up "${tgc_up}")
  set(TGC_PC_PREFIX "\${pcfiledir}/${tgc_up}")
endif()
set(tgc_pc_files tgc-runtime)
if(TARGET tgc)
  list(APPEND tgc_pc_files tgc)
endif()
foreach(pc IN LISTS tgc_pc_files)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in
    ${CMAKE_BINARY_DIR}/cmake/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/cmake/${pc}.pc DESTINATION ${tgc_pc_dir})
endforeach()
