// test_paths.h: the paths of this checkout and build that tests need (the
// frontier binary, the source tree, the fake NVML and ROCm SMI libraries, the
// build folder and its cmake and cpack), read at run time from environment
// variables that ctest sets on every test (frontier_add_test in
// CMakeLists.txt). They are not compile definitions: an absolute path on a
// compile line differs in every clone, and ccache would then compile each of
// those tests again in every fresh clone.
//
// To run a test binary without ctest, set the variables it asks for;
// `ctest -R NAME -V` in the build folder prints them. For example:
//   FRONTIER_BIN=$PWD/build/src/cli/frontier FRONTIER_SOURCE_DIR=$PWD build/tests/sweep/sweep_cli_test
//
// Thread safety: reads the environment; call it before changing it from another thread.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace frontier::testing_util {

// The value of the environment variable `variable`, one of the names below.
// When it is unset or empty, throws std::runtime_error with a message naming
// the variable and what to set it to: GoogleTest reports that as the failure
// of the test that asked. Call it from a test, never at namespace scope (test
// discovery runs the binary without these variables).
inline std::string TestPath(std::string_view variable) {
  static constexpr std::pair<std::string_view, std::string_view> kWhat[] = {
      {"FRONTIER_BIN", "the frontier binary under test (build/src/cli/frontier)"},
      {"FRONTIER_SOURCE_DIR", "the checkout's top folder"},
      {"FRONTIER_BUILD_DIR", "the build folder"},
      {"FRONTIER_FAKE_NVML", "the fake NVML library (build/src/power/libfake_nvml.so)"},
      {"FRONTIER_FAKE_RSMI", "the fake ROCm SMI library (build/src/power/libfake_rocm_smi.so)"},
      {"FRONTIER_CMAKE", "the cmake that configured the build folder"},
      {"FRONTIER_CPACK", "the cpack beside that cmake"},
  };
  const std::string name(variable);
  if (const char* value = std::getenv(name.c_str()); value != nullptr && *value != '\0') return value;
  std::string what = "a path";
  for (const auto& [known, description] : kWhat) {
    if (known == variable) what = description;
  }
  throw std::runtime_error(name + " is not set: ctest sets it on every test (frontier_add_test in CMakeLists.txt); " +
                           "to run this test binary directly, set " + name + " to " + what +
                           " (`ctest -R <test> -V` in the build folder prints the test's environment)");
}

}  // namespace frontier::testing_util
