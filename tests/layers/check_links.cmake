# check_links.cmake: fails when a library's link closure (one name a line, in
# CLOSURE, written at configure time by tests/layers/CMakeLists.txt) lacks a
# name in MUST, holds a name in FORBIDDEN (a name matches a forbidden entry
# when it equals it or, for entries without "::" or "frontier_", contains it:
# "curl" catches any path to libcurl), or, when ALLOWED is given, holds
# anything else. With NINJA_FILE, the link line of EXECUTABLE (an executable
# that links only that library and test frameworks) is checked the same way
# for libfrontier_*.a archives and libcurl.
#
#   cmake -DCLOSURE=... -DMUST=a;b -DFORBIDDEN=c;d [-DALLOWED=...] [-DNINJA_FILE=... -DEXECUTABLE=...] -P check_links.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT EXISTS "${CLOSURE}")
  message(FATAL_ERROR "no link closure at ${CLOSURE}: configure the build again")
endif()
file(STRINGS "${CLOSURE}" closure)
set(errors)

function(forbidden_in name out)
  set(hit "")
  foreach(f IN LISTS FORBIDDEN)
    if(name STREQUAL f)
      set(hit ${f})
    elseif(NOT f MATCHES "::|^frontier_" AND name MATCHES "${f}")
      set(hit ${f})
    endif()
  endforeach()
  set(${out} "${hit}" PARENT_SCOPE)
endfunction()

list(JOIN ALLOWED ", " allowed_text)
foreach(m IN LISTS MUST)
  if(NOT m IN_LIST closure)
    list(APPEND errors "does not link ${m}")
  endif()
endforeach()
foreach(name IN LISTS closure)
  forbidden_in("${name}" hit)
  if(hit)
    list(APPEND errors "links ${name}")
  endif()
  if(ALLOWED AND NOT name IN_LIST ALLOWED)
    list(APPEND errors "links ${name}, which is not among ${allowed_text}")
  endif()
endforeach()

# The link line the build really uses: frontier archives and libcurl on it.
if(NINJA_FILE AND EXISTS "${NINJA_FILE}")
  file(READ "${NINJA_FILE}" ninja)
  string(REGEX MATCH "build [^\n]*: CXX_EXECUTABLE_LINKER__${EXECUTABLE}_[^\n]*\n( [^\n]*\n)*" block "${ninja}")
  if(NOT block)
    list(APPEND errors "no link statement for ${EXECUTABLE} in ${NINJA_FILE}")
  endif()
  string(REGEX MATCH "\n  LINK_LIBRARIES = [^\n]*" line "${block}")
  string(REGEX MATCHALL "lib(frontier_[a-z_]+)\\.a" archives "${line}")
  foreach(a IN LISTS archives)
    string(REGEX REPLACE "^lib(.*)\\.a$" "\\1" name "${a}")
    forbidden_in("${name}" hit)
    if(hit)
      list(APPEND errors "${EXECUTABLE}'s link line holds ${a}")
    endif()
    if(ALLOWED AND NOT name IN_LIST ALLOWED AND NOT name IN_LIST MUST)
      list(APPEND errors "${EXECUTABLE}'s link line holds ${a}, which is not among ${allowed_text}")
    endif()
  endforeach()
  if("curl" IN_LIST FORBIDDEN AND line MATCHES "curl")
    list(APPEND errors "${EXECUTABLE}'s link line holds libcurl")
  endif()
endif()

if(errors)
  list(JOIN errors "\n  " text)
  message(FATAL_ERROR "link arrows broken (${CLOSURE}):\n  ${text}\n"
                      "docs/architecture.md says what each layer may link.")
endif()
list(JOIN closure ", " text)
message(STATUS "links: ${text}")
