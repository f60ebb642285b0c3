# Warnings for frontier's own targets; -Werror unless FRONTIER_WERROR=OFF.
function(frontier_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                         -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
                         -Wimplicit-fallthrough)
  if(FRONTIER_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# frontier_add_library(NAME src... ): a static library for one layer.
function(frontier_add_library name)
  add_library(${name} STATIC ${ARGN})
  set_property(GLOBAL APPEND PROPERTY FRONTIER_LIBRARIES ${name})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  frontier_set_warnings(${name})
  frontier_sanitizer_optimize(${name})
endfunction()
