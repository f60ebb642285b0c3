# FRONTIER_FUZZ=ON: libFuzzer targets under fuzz/ with AddressSanitizer and
# UndefinedBehaviorSanitizer, built with clang (Debian's clang and
# libclang-rt-*-dev; see scripts/bootstrap) in a build folder of their own
# (scripts/fuzz uses build-fuzz/). Every library is instrumented for coverage;
# tests, benchmarks and the frontier binary are left out of the default build.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "FRONTIER_FUZZ needs clang: configure with CXX=clang++ (scripts/fuzz does)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -gline-tables-only)
add_link_options(-fsanitize=address,undefined)
set(FRONTIER_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(FRONTIER_BUILD_BENCH OFF CACHE BOOL "" FORCE)
