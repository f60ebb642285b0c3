# FRONTIER_SANITIZE=ON builds everything with ASan + UBSan (CI runs the tests both ways).
if(FRONTIER_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# frontier_sanitizer_optimize(target): in a sanitizer build, the product's code
# (its libraries and the frontier binary) is compiled at -O1, whatever the
# build type: the sanitizers' manuals recommend it for reasonable speed, and
# at -O0 the suite's many runs of the binary (the hostile corpus, the
# installed quickstart, the command-line tests) and the simulations inside
# the unit tests spent most of their time in unoptimised code. The tests' own
# code stays at the build type's level (-O0 in Debug), which compiles three
# times faster. Assertions stay on in a Debug build.
# GCC's -Wmaybe-uninitialized is off for these targets only: with the
# sanitizers' instrumentation at -O1 it reports libstdc++'s own <regex> and
# <functional> code; the optimised build keeps the warning, as an error.
function(frontier_sanitizer_optimize target)
  if(FRONTIER_SANITIZE)
    target_compile_options(${target} PRIVATE -O1)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
    endif()
  endif()
endfunction()
