# The whole front end under libFuzzer, as `linnet check` runs it: load (with
# the repository's stdlib/ and a copy of models/phi3 as the package), resolve
# and type-check with the lints on (compiler/modules, compiler/check). The
# fuzz build instruments every target, so linnet_check is covered.
# Seeds: corpus/check/.
linnet_add_fuzzer(check_fuzzer ${CMAKE_CURRENT_SOURCE_DIR}/check_fuzzer.cpp)
target_link_libraries(check_fuzzer PRIVATE linnet_check)
target_compile_definitions(check_fuzzer PRIVATE LINNET_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
