# Fails the build when a doctest case name cannot be registered as one CTest entry.
# doctest_discover_tests keeps the names in a CMake list, so a ';' splits one case into two
# entries whose --test-case= filters match nothing: both would "pass" without running.
# Usage: cmake -D TEST_EXECUTABLE=<exe> -P check_test_names.cmake
execute_process(
  COMMAND "${TEST_EXECUTABLE}" --list-test-cases --no-intro
  OUTPUT_VARIABLE output
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --list-test-cases failed (${result}):\n${output}")
endif()
# Bracket-free scan line by line: the output is split on newlines only, so ';' stays visible.
string(REGEX MATCHALL "[^\n]*;[^\n]*" bad "${output}")
if(bad)
  string(REPLACE ";" "<;>" shown "${bad}")
  message(FATAL_ERROR
    "${TEST_EXECUTABLE}: test case names must not contain ';' (CTest would split them into entries "
    "that run nothing). Rename: ${shown}")
endif()
